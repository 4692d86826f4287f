import { defineConfig } from 'vitest/config';

/**
 * The fast tests of the core's pure modules, for the mutation run
 * (stryker.config.mjs): no app, no database, no browser, no global set-up.
 * `npm test` runs them too, with everything else (vitest.config.ts).
 */
export const MUTATION_TESTS = [
  'tests/scoring.test.ts',
  'tests/affinities.test.ts',
  'tests/engine.test.ts',
  'tests/quiz.test.ts',
  'tests/matcher.test.ts',
  'tests/listing-parse.test.ts',
  'tests/matcher-work.test.ts',
  'tests/listing-fixture.test.ts',
  'tests/search.test.ts',
  'tests/lookup-relevance.test.ts',
  'tests/event-validate.test.ts',
  'tests/origins.test.ts',
  'tests/origin-rules.test.ts',
  'tests/keys.test.ts',
  'tests/admin-token.test.ts',
];

export default defineConfig({
  test: {
    include: MUTATION_TESTS,
    testTimeout: 30_000,
    pool: 'forks',
  },
});
