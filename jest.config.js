// `npx jest` at the root runs every package's tests; scripts/test.mjs brings up what they need.
module.exports = {
  projects: [
    '<rootDir>/packages/*/jest.config.js',
    '<rootDir>/services/*/jest.config.js',
    '<rootDir>/tests/jest.config.js',
  ],
};
