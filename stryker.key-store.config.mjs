// Mutation testing of the key store (docs/testing.md), apart from the core's run: its tests need
// a database and Redis. npm run test:mutation:key-store
// @ts-check
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  // the harvest's shop catalogs (a link to files outside the repository) are not the project's
  ignorePatterns: ['.harvest'],
  vitest: { configFile: 'vitest.key-store.config.ts', related: false },
  mutate: ['auth/key-store.ts'],
  // every mutant against the whole file: per-test coverage misses code run from timers and promises
  coverageAnalysis: 'all',
  concurrency: 2,
  timeoutMS: 20_000,
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/key-store.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  ignoreStatic: false,
};
