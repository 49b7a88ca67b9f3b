import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  contextPaths,
  copiesOf,
  dockerIgnore,
  execForm,
  mountsOf,
  parseDockerfile,
  shellOf,
  type Instruction,
  type Stage,
} from './support/docker';
import {
  readRepoFile,
  REPO_ROOT,
  runtimeWorkspaces,
  SERVICES,
  serviceSpec,
  workspaceFolders,
  type ServiceName,
} from './support/repo';

// There is no Docker engine where these run: they read the Dockerfile as BuildKit would, and
// run its two scripts (the build's check of SERVICE and PORT, the image's assembly) on copies
// of the files they would see.

const stages = parseDockerfile('Dockerfile');
const stageNamed = (name: string): Stage => {
  const stage = stages.find((candidate) => candidate.name === name);
  if (!stage) throw new Error(`no stage ${name} in the Dockerfile`);
  return stage;
};
/** A service's image: the last stage, which `docker build` builds unless given a --target. */
const runtime = stages.at(-1)!;
const webApp = stageNamed('web-app');

const runs = (stage: Stage): Instruction[] =>
  stage.instructions.filter(({ keyword }) => keyword === 'RUN');
const last = (stage: Stage, keyword: string) =>
  stage.instructions.filter((instruction) => instruction.keyword === keyword).at(-1);
/** A stage and every stage it is built FROM, nearest first. */
const lineage = (stage: Stage): Stage[] => {
  const parent = stages.find((candidate) => candidate.name === stage.base);
  return [stage, ...(parent ? lineage(parent) : [])];
};
/** A build argument's value in a path, for each service. */
const perService = (text: string): string[] =>
  text.includes('${SERVICE}')
    ? SERVICES.map((name) => text.replaceAll('${SERVICE}', name))
    : [text];

/** A RUN of the build stage, found by what it mentions. */
function buildRun(mentioning: string): Instruction {
  const found = runs(stageNamed('build')).find(({ args }) => args.includes(mentioning));
  if (!found) throw new Error(`no RUN mentioning ${mentioning} in the build stage`);
  return found;
}

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'dockerfile-'));
}

function copyInto(root: string, relative: string): void {
  fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
  fs.copyFileSync(path.join(REPO_ROOT, relative), path.join(root, relative));
}

describe('the Dockerfile', () => {
  const fromContext = stages.flatMap(copiesOf).filter((copy) => copy.from === undefined);

  it('is the only one: every image is a build of it', () => {
    const tracked = execFileSync(
      'git',
      ['ls-files', '--cached', '--others', '--exclude-standard'],
      { cwd: REPO_ROOT, encoding: 'utf8' },
    )
      .split('\n')
      .filter(
        (file) => path.basename(file) === 'Dockerfile' && fs.existsSync(path.join(REPO_ROOT, file)),
      );
    expect(tracked).toEqual(['Dockerfile']);
  });

  it('copies from the build context only paths that exist and .dockerignore lets through', () => {
    const ignored = dockerIgnore();
    const problems = fromContext
      .flatMap((copy) => copy.sources)
      .flatMap(perService)
      .flatMap((source) => {
        const paths = contextPaths(source);
        const missing = paths.filter((found) => !fs.existsSync(path.join(REPO_ROOT, found)));
        return [
          ...(paths.length === 0 ? [`${source} matches nothing`] : []),
          ...missing.map((found) => `${found} does not exist`),
          ...paths.filter(ignored).map((found) => `${found} is left out by .dockerignore`),
        ];
      });
    expect(fromContext.length).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });

  it('copies the lock file and every workspace’s manifest, each in its folder, as npm ci needs them all', () => {
    const manifests = copiesOf(stageNamed('manifests'));
    const copied = manifests
      .filter((copy) => copy.parents && copy.destination === '/app/')
      .flatMap((copy) => copy.sources.flatMap(contextPaths));
    const needed = ['package.json', 'package-lock.json'].concat(
      workspaceFolders().map((folder) => `${folder}/package.json`),
    );
    expect(needed.filter((manifest) => !copied.includes(manifest))).toEqual([]);
    // Only manifests: a source file there would rebuild the dependency layer on every change.
    expect(copied.filter((file) => !/(^|\/)package(-lock)?\.json$/.test(file))).toEqual([]);
  });

  it('installs every dependency before anything reads SERVICE, so one layer serves every image', () => {
    const installing = stages.filter((stage) =>
      runs(stage).some(({ args }) => /\bnpm ci\b(?!.*--omit=dev)/.test(args)),
    );
    expect(installing.map((stage) => stage.name)).toEqual(['deps']);
    const readsService = lineage(installing[0]!).flatMap((stage) =>
      stage.instructions.filter(({ args }) => args.includes('SERVICE')),
    );
    expect(readsService).toEqual([]);
    expect(lineage(stageNamed('build')).map((stage) => stage.name)).toContain('deps');
  });

  it('copies and mounts between stages only from an earlier one', () => {
    const problems = stages.flatMap((stage, index) => {
      const earlier = (name: string | undefined) =>
        stages.slice(0, index).some((candidate) => candidate.name === name);
      const copies = copiesOf(stage)
        .filter((copy) => copy.from !== undefined && !earlier(copy.from))
        .map((copy) => `COPY --from=${copy.from} in stage ${stage.name ?? index}`);
      const mounts = runs(stage)
        .flatMap(mountsOf)
        .filter((mount) => mount.from !== undefined && !earlier(mount.from))
        .map((mount) => `RUN --mount from=${mount.from} in stage ${stage.name ?? index}`);
      return [...copies, ...mounts];
    });
    expect(problems).toEqual([]);
  });

  describe('a service’s image (the default target)', () => {
    it('compiles the service with tsc -b and installs only its production dependencies', () => {
      expect(runs(stageNamed('build')).map(shellOf)).toContain('npx tsc -b services/${SERVICE}');
      expect(runs(stageNamed('prod-deps')).map(shellOf).join('\n')).toMatch(
        /npm ci --omit=dev .*--workspace services\/\$\{SERVICE\}(\s|$)/,
      );
    });

    describe('checks SERVICE and PORT against the list, and keeps the Node options of the service’s package.json', () => {
      const check = shellOf(buildRun('node.env'));
      let root: string;
      beforeAll(() => {
        root = tempDir();
        copyInto(root, 'services/services.json');
        for (const name of SERVICES) copyInto(root, `services/${name}/package.json`);
      });
      afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

      const build = (SERVICE: string, PORT: string) =>
        spawnSync('sh', ['-c', check], {
          cwd: root,
          env: { PATH: process.env['PATH'], SERVICE, PORT },
          encoding: 'utf8',
        });

      it.each(SERVICES)(
        '%s: node.env holds its package.json’s config.nodeOptions, and only those',
        (name) => {
          const result = build(name, String(serviceSpec(name).port));
          expect(result.stderr).toBe('');
          const manifest = JSON.parse(readRepoFile(`services/${name}/package.json`)) as {
            config?: { nodeOptions?: string };
          };
          const envFile = path.join(root, 'services', name, 'node.env');
          const loaded = execFileSync(
            process.execPath,
            [`--env-file=${envFile}`, '-p', 'process.env.NODE_OPTIONS ?? ""'],
            { env: { PATH: process.env['PATH'] }, encoding: 'utf8' },
          ).trim();
          expect(loaded).toBe(manifest.config?.nodeOptions ?? '');
        },
      );

      it.each(SERVICES)(
        '%s: node.args holds its package.json’s config.nodeArgs, and only those',
        (name) => {
          expect(build(name, String(serviceSpec(name).port)).status).toBe(0);
          const manifest = JSON.parse(readRepoFile(`services/${name}/package.json`)) as {
            config?: { nodeArgs?: string };
          };
          const written = fs.readFileSync(path.join(root, 'services', name, 'node.args'), 'utf8');
          expect(written).toBe(`${manifest.config?.nodeArgs ?? ''}\n`);
        },
      );

      it('gives redirect its garbage collection on the thread it runs on', () => {
        expect(build('redirect', '7004').status).toBe(0);
        expect(fs.readFileSync(path.join(root, 'services/redirect/node.args'), 'utf8')).toBe(
          '--single-threaded-gc\n',
        );
      });

      it('gives redirect its heap settings, and analytics and redirect no kafkajs timer warning', () => {
        expect(build('redirect', '7004').status).toBe(0);
        expect(fs.readFileSync(path.join(root, 'services/redirect/node.env'), 'utf8')).toMatch(
          /^NODE_OPTIONS="--max-semi-space-size=\d+ --max-old-space-size=\d+ --disable-warning=TimeoutNegativeWarning"\n$/,
        );
        // kafkajs 2.2.4's negative timer: three lines that are not JSON on Node 24's stderr.
        expect(build('analytics', '7003').status).toBe(0);
        expect(fs.readFileSync(path.join(root, 'services/analytics/node.env'), 'utf8')).toBe(
          'NODE_OPTIONS="--disable-warning=TimeoutNegativeWarning"\n',
        );
      });

      it('stops the build on a port the list does not give the service, or a service it does not list', () => {
        const wrongPort = build('links', '7003');
        expect(wrongPort.status).not.toBe(0);
        expect(wrongPort.stderr).toContain(
          'PORT=7003: services/services.json gives links port 7002',
        );
        const unknown = build('linkz', '7002');
        expect(unknown.status).not.toBe(0);
        expect(unknown.stderr).toContain('SERVICE=linkz is not in services/services.json');
      });
    });

    describe('holds the package.json and dist/ of every workspace the service uses, and the web app only where it is served', () => {
      const assembly = buildRun('/links/');
      let root: string;
      beforeAll(() => {
        root = tempDir();
        for (const folder of workspaceFolders()) {
          copyInto(root, `${folder}/package.json`);
          fs.mkdirSync(path.join(root, folder, 'dist'), { recursive: true });
          fs.writeFileSync(path.join(root, folder, 'dist', 'index.js'), '');
        }
        copyInto(root, 'services/services.json');
      });
      afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

      it('mounts the links of the production install and the built web app', () => {
        expect(mountsOf(assembly)).toEqual([
          {
            type: 'bind',
            from: 'prod-deps',
            source: '/app/node_modules/@shortener',
            target: '/links',
          },
          { type: 'bind', from: 'web-build', source: '/app/frontend/dist', target: '/web-app' },
        ]);
      });

      /**
       * The assembly as BuildKit runs it, with its mounts and /image in a folder of its own;
       * node_modules/@shortener holds a link per runtime workspace, as npm ci --omit=dev
       * --workspace makes them.
       */
      function assemble(name: ServiceName): string[] {
        const sandbox = path.join(root, `.${name}`);
        const links = path.join(sandbox, 'links');
        fs.mkdirSync(links, { recursive: true });
        for (const folder of runtimeWorkspaces(name)) {
          const { name: packageName } = JSON.parse(readRepoFile(`${folder}/package.json`)) as {
            name: string;
          };
          fs.symlinkSync(`../../${folder}`, path.join(links, packageName.split('/')[1]!));
        }
        fs.mkdirSync(path.join(sandbox, 'web-app'));
        fs.writeFileSync(path.join(sandbox, 'web-app', 'index.html'), '');
        fs.writeFileSync(path.join(root, 'services', name, 'node.env'), '');
        fs.writeFileSync(path.join(root, 'services', name, 'node.args'), '\n');
        const script = shellOf(assembly).replace(
          /(?<![\w.])\/(links|image|web-app)\b/g,
          `${sandbox}/$1`,
        );
        const result = spawnSync('sh', ['-c', script], {
          cwd: root,
          env: { PATH: process.env['PATH'], SERVICE: name },
          encoding: 'utf8',
        });
        if (result.status !== 0)
          throw new Error(`the assembly failed for ${name}:\n${result.stderr}`);
        const image = path.join(sandbox, 'image');
        return fs
          .readdirSync(image, { recursive: true, encoding: 'utf8' })
          .filter((entry) => fs.statSync(path.join(image, entry)).isFile())
          .sort();
      }

      it.each(SERVICES)('%s', (name) => {
        const expected = [
          ...runtimeWorkspaces(name).flatMap((folder) => [
            `${folder}/dist/index.js`,
            `${folder}/package.json`,
          ]),
          `services/${name}/node.args`,
          `services/${name}/node.env`,
          ...(serviceSpec(name).webApp ? ['frontend/dist/index.html'] : []),
        ].sort();
        expect(assemble(name)).toEqual(expected);
      });
    });

    it('puts together the production node_modules and the assembled workspaces', () => {
      expect(copiesOf(runtime)).toEqual([
        {
          from: 'prod-deps',
          parents: false,
          sources: ['/app/node_modules/'],
          destination: '/app/node_modules/',
        },
        { from: 'build', parents: false, sources: ['/image/'], destination: '/app/' },
      ]);
    });

    it('starts the listed entry from the service’s folder, with its Node options, in production mode on PORT', () => {
      expect(last(runtime, 'WORKDIR')?.args).toBe('/app/services/${SERVICE}');
      // The command as the image's shell runs it, in a folder holding node.args, with a `node`
      // that prints the arguments it was given.
      const [shell, flag, script] = execForm(last(runtime, 'CMD'));
      expect([shell, flag]).toEqual(['/bin/sh', '-c']);
      expect(script).toMatch(/^exec node /);
      const folder = tempDir();
      try {
        fs.writeFileSync(path.join(folder, 'node.args'), '--single-threaded-gc --no-opt\n');
        fs.writeFileSync(
          path.join(folder, 'node'),
          '#!/bin/sh\nfor arg in "$@"; do echo "$arg"; done\n',
          { mode: 0o755 },
        );
        const run = spawnSync('sh', ['-c', script!], {
          cwd: folder,
          env: { PATH: `${folder}:${process.env['PATH']}` },
          encoding: 'utf8',
        });
        expect(run.stderr).toBe('');
        const args = run.stdout.trim().split('\n');
        expect(args.slice(0, -1)).toEqual([
          '--single-threaded-gc',
          '--no-opt',
          '--env-file=node.env',
          '--enable-source-maps',
        ]);
        expect(new Set(SERVICES.map((name) => serviceSpec(name).entry))).toEqual(
          new Set([args.at(-1)]),
        );
      } finally {
        fs.rmSync(folder, { recursive: true, force: true });
      }
      expect(last(runtime, 'ENV')?.args).toMatch(/\bNODE_ENV=production\b/);
      expect(last(runtime, 'ENV')?.args).toMatch(/\bPORT=\$\{PORT\}(\s|$)/);
      expect(last(runtime, 'EXPOSE')?.args).toBe('${PORT}');
      expect(execForm(last(runtime, 'HEALTHCHECK')).join(' ')).toMatch(
        /process\.env\.PORT\+'\/healthz'/,
      );
      // The Node options come from node.env only: an ENV would be a second copy to drift.
      const env = runtime.instructions.filter(({ keyword }) => keyword === 'ENV');
      expect(env.map(({ args }) => args).join(' ')).not.toContain('NODE_OPTIONS');
    });

    it('runs as a numeric non-root user, from a small base image without npm', () => {
      expect(last(runtime, 'USER')?.args).toMatch(/^[1-9]\d*(:\d+)?$/);
      expect(runtime.base).toMatch(/^node:\d+-(alpine|slim)/);
      expect(shellOf(runs(runtime)[0]!)).toMatch(
        /^rm -rf \/usr\/local\/lib\/node_modules \/usr\/local\/bin\/npm \/usr\/local\/bin\/npx /,
      );
    });
  });

  describe('the web app’s image (--target web-app)', () => {
    it('serves the built web app with its own nginx configuration, as a numeric non-root user', () => {
      const copies = copiesOf(webApp);
      expect(copies).toContainEqual({
        from: undefined,
        parents: false,
        sources: ['frontend/nginx.conf'],
        destination: '/etc/nginx/conf.d/default.conf',
      });
      expect(copies).toContainEqual({
        from: 'web-build',
        parents: false,
        sources: ['/app/frontend/dist/'],
        destination: '/usr/share/nginx/html/',
      });
      expect(runs(stageNamed('web-build')).map(shellOf)).toContain(
        'npm run build --workspace @shortener/frontend',
      );
      expect(webApp.base).toMatch(/^nginxinc\/nginx-unprivileged:.*alpine/);
      expect(last(webApp, 'USER')?.args).toMatch(/^[1-9]\d*(:\d+)?$/);
      expect(last(webApp, 'HEALTHCHECK')?.args).toMatch(/\bCMD\b/);
    });
  });
});

/**
 * The oldest Node.js line the images may run: an LTS line still supported (Node.js 20 reached
 * its end of life in April 2026; 24 is the active LTS line).
 */
const OLDEST_SUPPORTED_NODE = 24;

describe('the images’ Node.js', () => {
  const nodeStages = stages.filter((stage) => stage.base.startsWith('node:'));
  const majors = [...new Set(nodeStages.map((stage) => /^node:(\d+)\b/.exec(stage.base)?.[1]))];

  it('is one supported LTS line, 24 or later, in every stage that runs node', () => {
    // deps, prod-deps and the service's image: what builds is what runs.
    expect(nodeStages.length).toBeGreaterThanOrEqual(3);
    expect(majors).toHaveLength(1);
    const major = Number(majors[0]);
    // Even majors become LTS; odd ones end after six months.
    expect(major % 2).toBe(0);
    expect(major).toBeGreaterThanOrEqual(OLDEST_SUPPORTED_NODE);
  });

  it('is the oldest line package.json’s engines allows: no older line is tested', () => {
    const { engines } = JSON.parse(readRepoFile('package.json')) as { engines: { node: string } };
    const oldest = /^>=\s*(\d+)(?:\.\d+){0,2}$/.exec(engines.node);
    expect(oldest).not.toBeNull();
    expect(oldest![1]).toBe(majors[0]);
  });

  it('is the line of the release .nvmrc pins, which npm test runs the suites on', () => {
    // scripts/image-node.mjs: on another line, npm test starts again on this release.
    const pinned = readRepoFile('.nvmrc').trim();
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(pinned.split('.')[0]).toBe(majors[0]);
  });
});

describe('.dockerignore', () => {
  it('keeps local, installed and built files out of every build context', () => {
    const ignored = dockerIgnore();
    const local = [
      'node_modules/typescript/package.json',
      'services/links/node_modules/x/index.js',
      'services/links/dist/main.js',
      'frontend/dist/index.html',
      'packages/chassis/tsconfig.tsbuildinfo',
      '.git/HEAD',
      '.infra/kafka/lib/kafka.jar',
      '.data/pglite/base',
      'artifacts/jest-results.json',
      '.env',
      'services/links/src/links/links.service.spec.ts',
    ];
    expect(local.filter((file) => !ignored(file))).toEqual([]);
    const sources = [
      'package.json',
      'services/links/src/main.ts',
      'services/services.json',
      'frontend/src/main.tsx',
    ];
    expect(sources.filter(ignored)).toEqual([]);
  });
});
