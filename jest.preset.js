// One Jest set-up for every TypeScript package: SWC compiles (with the decorator metadata Nest
// needs), shared workspace packages resolve to their sources so no build is needed first.
const path = require('node:path');

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
    moduleNameMapper: {
      '^@shortener/(contracts|chassis|testkit|link-cache)$': `${__dirname}/packages/$1/src/index.ts`,
      '^@shortener/chassis/nest$': `${__dirname}/packages/chassis/src/nest/index.ts`,
      '^@shortener/chassis/(.+)$': `${__dirname}/packages/chassis/src/$1.ts`,
    },
    testTimeout: 60_000,
  };
};
