// Mutation testing of the core (docs/testing.md): npm run test:mutation
// One file: npm run test:mutation -- --mutate scoring/engine.ts
// @ts-check
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  // the harvest's shop catalogs (a link to files outside the repository) are not the project's
  ignorePatterns: ['.harvest'],
  vitest: { configFile: 'vitest.mutation.config.ts', related: true },
  // each module group against its own fast tests (vitest.mutation.config.ts)
  mutate: [
    'scoring/engine.ts',
    'scoring/quiz.ts',
    'scoring/affinities.ts',
    'scoring/products.ts',
    'matching/matcher.ts',
    'matching/reason.ts',
    'matching/recognise.ts',
    'catalog/search.ts',
    'catalog/alike.ts',
    'catalog/bundled.ts',
    'catalog/evidence.ts',
    'catalog/validate.ts',
    'catalog/harvest/sources.ts',
    'catalog/harvest/inspired.ts',
    'events/validate.ts',
    'auth/origins.ts',
    'auth/keys.ts',
    'auth/admin-token.ts',
    'auth/key-guesses.ts',
    'http/large-bodies.ts',
    'lib/shared-counter.ts',
    'auth/sign-in-throttle.ts',
    'auth/salla-dashboard-gate.ts',
    'console/install-check.ts',
    'console/names.ts',
    'feeds/google.ts',
    'feeds/generic.ts',
    'feeds/salla.ts',
    'platforms/salla.ts',
    'feeds/zid.ts',
    'platforms/zid.ts',
    'platforms/common.ts',
    'lib/pacer.ts',
    'platforms/shopify.ts',
    'feeds/shopify-graphql.ts',
    'platforms/woocommerce.ts',
    'apps/shopify/extensions/sillage-pixel/src/purchase.js',
  ],
  coverageAnalysis: 'perTest',
  // a rerun after a small change tests only the mutants it touches
  incremental: true,
  incrementalFile: 'reports/mutation/incremental.json',
  concurrency: 2,
  timeoutMS: 10_000,
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  // module-level tables (the season and occasion leans) are mutated too: each such mutant runs
  // every test related to its file
  ignoreStatic: false,
};
