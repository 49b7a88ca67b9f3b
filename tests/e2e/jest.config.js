// The browser journeys (*.e2e-spec.ts): Chromium against the whole stack from its builds, so
// they need `npx tsc -b && npm run build -w @shortener/frontend` first and are kept out of
// the other suites (tests/jest.config.js matches *.spec.ts and *.int-spec.ts only).
module.exports = {
  ...require('../../jest.preset.js')(__dirname),
  testMatch: ['**/*.e2e-spec.ts'],
};
