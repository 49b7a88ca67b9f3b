// `npm run test:faults`: the fault and hostile-input suites. They start the distributed stack
// for real, kill the shared Kafka broker and cut links to PostgreSQL and Redis, so they run
// one file at a time and are kept out of `npx jest` (their files are *.fault-spec.ts).
const preset = require('../../jest.preset.js')(__dirname);

module.exports = {
  ...preset,
  testMatch: ['**/*.fault-spec.ts'],
  maxWorkers: 1,
  // A scenario waits out broker restarts and consumer-group session timeouts.
  testTimeout: 240_000,
};
