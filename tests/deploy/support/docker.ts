import path from 'node:path';
import { readRepoFile } from './repo';

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
  sources: string[];
  destination: string;
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
      const flags = new Map(
        [...args.matchAll(/--(\w+)=(\S+)/g)].map((match): [string, string] => [
          match[1]!,
          match[2]!,
        ]),
      );
      const rest = args.replace(/--\w+=\S+\s*/g, '').trim();
      const paths = rest.startsWith('[') ? (JSON.parse(rest) as string[]) : rest.split(/\s+/);
      return {
        from: flags.get('from'),
        sources: paths.slice(0, -1),
        destination: paths.at(-1)!,
      };
    });
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
