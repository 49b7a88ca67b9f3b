import fs from 'node:fs';
import path from 'node:path';
import { readRepoFile, REPO_ROOT } from './repo';

export interface Instruction {
  keyword: string;
  args: string;
}

export interface Stage {
  /** The FROM image, with the global ARG defaults substituted. */
  base: string;
  name: string | undefined;
  instructions: Instruction[];
}

export interface Copy {
  from: string | undefined;
  /** COPY --parents: each source keeps its folders under the destination. */
  parents: boolean;
  sources: string[];
  destination: string;
}

interface Mount {
  type: string;
  from?: string;
  source?: string;
  target?: string;
}

/** A Dockerfile's stages. Comment lines go, continued lines are joined, as Docker reads them. */
export function parseDockerfile(relativePath: string): Stage[] {
  const lines = readRepoFile(relativePath)
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'));
  const logical: string[] = [];
  let pending = '';
  for (const line of lines) {
    if (line.trimEnd().endsWith('\\')) {
      pending += line.trimEnd().slice(0, -1) + ' ';
      continue;
    }
    logical.push(pending + line);
    pending = '';
  }
  const globalArgs = new Map<string, string>();
  const stages: Stage[] = [];
  for (const line of logical.map((text) => text.trim()).filter(Boolean)) {
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const instruction = { keyword: keyword.toUpperCase(), args };
    if (instruction.keyword === 'FROM') {
      const [image = '', as, name] = args.split(/\s+/).filter((part) => !part.startsWith('--'));
      const base = image.replace(/\$\{?(\w+)\}?/g, (_, arg: string) => globalArgs.get(arg) ?? '');
      stages.push({ base, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else if (stages.length === 0 && instruction.keyword === 'ARG') {
      const [name = '', value = ''] = args.split('=');
      globalArgs.set(name, value);
    } else {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  return stages;
}

/** The COPY and ADD instructions of a stage, with their --from and their paths. */
export function copiesOf(stage: Stage): Copy[] {
  return stage.instructions
    .filter(({ keyword }) => keyword === 'COPY' || keyword === 'ADD')
    .map(({ args }) => {
      const { flags, rest } = splitFlags(args);
      const paths = rest.startsWith('[') ? (JSON.parse(rest) as string[]) : rest.split(/\s+/);
      return {
        from: flags.find(([name]) => name === 'from')?.[1],
        parents: flags.some(([name]) => name === 'parents'),
        sources: paths.slice(0, -1),
        destination: paths.at(-1)!,
      };
    });
}

/** An instruction's leading --flags (`--name=value`, or `--name` alone) and what follows them. */
function splitFlags(args: string): { flags: [string, string][]; rest: string } {
  const flags: [string, string][] = [];
  let rest = args.trim();
  for (;;) {
    const match = /^--([\w-]+)(?:=(\S+))?\s*/.exec(rest);
    if (!match) break;
    flags.push([match[1]!, match[2] ?? '']);
    rest = rest.slice(match[0].length);
  }
  return { flags, rest };
}

/** The --mount options of a RUN instruction. */
export function mountsOf(instruction: Instruction): Mount[] {
  return splitFlags(instruction.args)
    .flags.filter(([name]) => name === 'mount')
    .map(
      ([, value]) => Object.fromEntries(value.split(',').map((pair) => pair.split('='))) as Mount,
    );
}

/** A RUN instruction's shell command, without its flags. */
export function shellOf(instruction: Instruction): string {
  return splitFlags(instruction.args).rest;
}

/** The last argument list of an exec-form instruction (CMD, HEALTHCHECK … CMD [...]). */
export function execForm(instruction: Instruction | undefined): string[] {
  const json = /\[.*\]$/.exec(instruction?.args ?? '')?.[0];
  return json ? (JSON.parse(json) as string[]) : [];
}

/**
 * .dockerignore as Docker applies it: each pattern (Go filepath.Match, plus **) matches a
 * path or any folder above it; a later pattern overrides an earlier one; ! re-includes.
 */
export function dockerIgnore(): (relativePath: string) => boolean {
  const rules = readRepoFile('.dockerignore')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const include = line.startsWith('!');
      const pattern = path.posix.normalize(line.replace(/^!/, '').replace(/^\/+|\/+$/g, ''));
      const source = pattern
        .split(/(\*\*\/|\*\*|\*|\?)/)
        .map((part) => {
          if (part === '**/') return '(?:.*/)?';
          if (part === '**') return '.*';
          if (part === '*') return '[^/]*';
          if (part === '?') return '[^/]';
          return part.replace(/[.+^${}()|[\]\\]/g, '\\$&');
        })
        .join('');
      return { include, regex: new RegExp(`^${source}$`) };
    });
  return (relativePath) => {
    const parts = path.posix.normalize(relativePath).split('/');
    const candidates = parts.map((_, index) => parts.slice(0, index + 1).join('/'));
    let ignored = false;
    for (const { include, regex } of rules) {
      if (candidates.some((candidate) => regex.test(candidate))) ignored = !include;
    }
    return ignored;
  };
}

/**
 * The paths of the build context a COPY source names, as Docker matches it: `*` within one
 * path segment; a source without a wildcard names itself (whether or not it exists).
 */
export function contextPaths(source: string): string[] {
  const segments = source.replace(/\/+$/, '').split('/');
  let found = [''];
  for (const segment of segments) {
    if (!segment.includes('*')) {
      found = found.map((prefix) => (prefix ? `${prefix}/${segment}` : segment));
      continue;
    }
    const pattern = new RegExp(`^${segment.split('*').map(escapeRegExp).join('[^/]*')}$`);
    found = found.flatMap((prefix) => {
      const folder = path.join(REPO_ROOT, prefix);
      if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) return [];
      return fs
        .readdirSync(folder)
        .filter((entry) => pattern.test(entry))
        .map((entry) => (prefix ? `${prefix}/${entry}` : entry));
    });
  }
  return segments.some((segment) => segment.includes('*'))
    ? found.filter((candidate) => fs.existsSync(path.join(REPO_ROOT, candidate)))
    : found;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}
