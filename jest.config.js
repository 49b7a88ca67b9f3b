// `npx jest` at the root runs every package's tests; scripts/test.mjs brings up what they need.
module.exports = {
  // Integration tests start real processes and wait for Kafka groups; a global option in Jest.
  testTimeout: 60_000,
  projects: [
    '<rootDir>/packages/*/jest.config.js',
    '<rootDir>/services/*/jest.config.js',
    '<rootDir>/tests/jest.config.js',
  ],
};
