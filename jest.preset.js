// One Jest set-up for every TypeScript package: SWC compiles (with the decorator metadata Nest
// needs), and every workspace package resolves to its sources, so a test never runs a stale
// build (a service a test starts as a process still runs its dist/main.js).
const { existsSync } = require('node:fs');
const path = require('node:path');
const { workspaces } = require('./package.json');

/** Each workspace package with sources (src/index.ts), by its name, mapped to them. */
const workspaceSources = Object.fromEntries(
  workspaces
    .map((folder) => path.join(__dirname, folder))
    .filter((dir) => existsSync(path.join(dir, 'src', 'index.ts')))
    .map((dir) => [
      `^${require(path.join(dir, 'package.json')).name}$`,
      path.join(dir, 'src', 'index.ts'),
    ]),
);

/** @param {string} dir the package folder */
module.exports = function jestConfigFor(dir) {
  return {
    displayName: path.relative(__dirname, dir),
    rootDir: dir,
    roots: ['<rootDir>'],
    testPathIgnorePatterns: ['/node_modules/', '/dist/'],
    testEnvironment: 'node',
    testMatch: ['**/*.spec.ts', '**/*.int-spec.ts'],
    transform: {
      '^.+\\.ts$': [
        '@swc/jest',
        {
          jsc: {
            parser: { syntax: 'typescript', decorators: true },
            transform: { legacyDecorator: true, decoratorMetadata: true },
            target: 'es2022',
          },
          module: { type: 'commonjs' },
        },
      ],
    },
    moduleNameMapper: workspaceSources,
    testTimeout: 60_000,
  };
};
