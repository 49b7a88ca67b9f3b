import { copiesOf, dockerIgnore, execForm, parseDockerfile, type Stage } from './support/docker';
import {
  defaultPort,
  readRepoFile,
  repoPathExists,
  runtimeWorkspaces,
  SERVICES,
  workspaceFolders,
} from './support/repo';

const IMAGES: [string, string][] = [
  ...SERVICES.map((service): [string, string] => [service, `services/${service}/Dockerfile`]),
  ['frontend', 'frontend/Dockerfile'],
];

const runs = (stage: Stage, pattern: RegExp) =>
  stage.instructions.some(({ keyword, args }) => keyword === 'RUN' && pattern.test(args));
const last = (stage: Stage, keyword: string) =>
  stage.instructions.filter((instruction) => instruction.keyword === keyword).at(-1);

describe.each(IMAGES)('the %s image (%s)', (image, dockerfile) => {
  const stages = parseDockerfile(dockerfile);
  const runtime = stages.at(-1)!;
  const fromContext = stages.flatMap(copiesOf).filter((copy) => copy.from === undefined);

  it('copies from the build context only paths that exist and .dockerignore lets through', () => {
    const ignored = dockerIgnore();
    const problems = fromContext
      .flatMap((copy) => copy.sources)
      .flatMap((source) => [
        ...(repoPathExists(source) ? [] : [`${source} does not exist`]),
        ...(ignored(source) ? [`${source} is left out by .dockerignore`] : []),
      ]);
    expect(fromContext.length).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });

  it('copies the lock file and every workspace’s manifest, as npm ci needs them all', () => {
    const sources = fromContext.flatMap((copy) => copy.sources);
    const manifests = ['package.json', 'package-lock.json'].concat(
      workspaceFolders().map((folder) => `${folder}/package.json`),
    );
    expect(manifests.filter((manifest) => !sources.includes(manifest))).toEqual([]);
    expect(stages.some((stage) => runs(stage, /\bnpm ci\b/))).toBe(true);
  });

  it('copies between stages only from an earlier one', () => {
    const problems = stages.flatMap((stage, index) =>
      copiesOf(stage)
        .filter((copy) => copy.from !== undefined)
        .filter((copy) => !stages.slice(0, index).some((earlier) => earlier.name === copy.from))
        .map((copy) => `COPY --from=${copy.from} in stage ${index}`),
    );
    expect(problems).toEqual([]);
  });

  it('runs as a numeric non-root user, with a healthcheck, from a small base image', () => {
    expect(last(runtime, 'USER')?.args).toMatch(/^[1-9]\d*(:\d+)?$/);
    expect(last(runtime, 'HEALTHCHECK')?.args).toMatch(/\bCMD\b/);
    expect(runtime.base).toMatch(
      image === 'frontend' ? /^nginxinc\/nginx-unprivileged:.*alpine/ : /^node:\d+-(alpine|slim)/,
    );
  });

  if (image === 'frontend') {
    it('serves the built web app with its own nginx configuration', () => {
      const copies = copiesOf(runtime);
      expect(copies).toContainEqual({
        from: undefined,
        sources: ['frontend/nginx.conf'],
        destination: '/etc/nginx/conf.d/default.conf',
      });
      expect(copies).toContainEqual({
        from: 'build',
        sources: ['/app/frontend/dist/'],
        destination: '/usr/share/nginx/html/',
      });
      expect(
        stages.some((stage) => runs(stage, /npm run build --workspace @shortener\/frontend/)),
      ).toBe(true);
    });
    return;
  }

  it('compiles the service with tsc -b and installs only its production dependencies', () => {
    expect(stages.some((stage) => runs(stage, new RegExp(`tsc -b services/${image}\\b`)))).toBe(
      true,
    );
    const productionInstall = new RegExp(
      `npm ci --omit=dev .*--workspace @shortener/${image}(\\s|$)`,
    );
    expect(stages.some((stage) => runs(stage, productionInstall))).toBe(true);
  });

  it('ships the compiled output of the service and of every workspace package it uses', () => {
    const copied = copiesOf(runtime)
      .filter((copy) => copy.from === 'build')
      .flatMap((copy) => copy.sources);
    const missing = runtimeWorkspaces(image as (typeof SERVICES)[number])
      .flatMap((folder) => [`/app/${folder}/package.json`, `/app/${folder}/dist/`])
      .filter((needed) => !copied.includes(needed));
    expect(missing).toEqual([]);
  });

  it('starts dist/main.js in production mode, on the service’s port', () => {
    const service = image as (typeof SERVICES)[number];
    expect(execForm(last(runtime, 'CMD'))).toContain(`services/${service}/dist/main.js`);
    expect(repoPathExists(`services/${service}/src/main.ts`)).toBe(true);
    expect(last(runtime, 'ENV')?.args).toMatch(/\bNODE_ENV=production\b/);
    expect(last(runtime, 'EXPOSE')?.args).toBe(String(defaultPort(service)));
    expect(execForm(last(runtime, 'HEALTHCHECK')).join(' ')).toMatch(/\/healthz/);
  });

  it('runs Node with the options the service’s package.json declares, and only those', () => {
    const manifest = JSON.parse(readRepoFile(`services/${image}/package.json`)) as {
      config?: { nodeOptions?: string };
    };
    const inImage = runtime.instructions
      .filter(({ keyword }) => keyword === 'ENV')
      .map(({ args }) => /\bNODE_OPTIONS="([^"]*)"/.exec(args)?.[1])
      .filter((value) => value !== undefined);
    expect(inImage).toEqual(manifest.config?.nodeOptions ? [manifest.config.nodeOptions] : []);
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
    const sources = ['package.json', 'services/links/src/main.ts', 'frontend/src/main.tsx'];
    expect(sources.filter(ignored)).toEqual([]);
  });
});
