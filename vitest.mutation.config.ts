import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The fast tests of the core's pure modules, for the mutation run
 * (stryker.config.mjs): no app, no database, no browser, no global set-up.
 * `npm test` runs them too, with everything else (vitest.config.ts).
 *
 * Listed in the order they run: a mutant is killed by its first failing test
 * (the run stops there), so the quick tests that hold each rule directly come
 * before the broad ones. Left to `npm test`: the floors measured on many real
 * or random inputs, seconds a run each, which a single mutant rarely crosses
 * and whose rules the tests here hold one by one: the labelled listings
 * (`tests/listing-fixture.test.ts`, `tests/matcher-accuracy.test.ts`), the
 * lookup queries (`tests/lookup-relevance.test.ts`) and the work caps under
 * random text (`tests/matcher-work.test.ts`).
 */
export const MUTATION_TESTS = [
  'tests/cache.test.ts',
  'tests/quiz.test.ts',
  'tests/affinities.test.ts',
  'tests/engine.test.ts',
  'tests/engine-properties.test.ts',
  'tests/scoring.test.ts',
  'tests/compiled-products.test.ts',
  'tests/heat.test.ts',
  'tests/layering.test.ts',
  'tests/gulf-shopper-cases.test.ts',
  'tests/recognise.test.ts',
  'tests/gtin.test.ts',
  'tests/barcodes.test.ts',
  'tests/shop-notes.test.ts',
  'tests/answers.test.ts',
  'tests/identity-proposals.test.ts',
  'tests/product-kind.test.ts',
  'tests/loved-engine.test.ts',
  'tests/loved-products.test.ts',
  'tests/loved-perfumes.test.ts',
  'tests/catalog-validate.test.ts',
  'tests/catalog-evidence.test.ts',
  'tests/catalog-harvest.test.ts',
  'tests/catalog-alike.test.ts',
  'tests/catalog-files.test.ts',
  'tests/search.test.ts',
  'tests/search-rules.test.ts',
  'tests/parse-tables.test.ts',
  'tests/matcher-tables.test.ts',
  'tests/matcher-rules.test.ts',
  'tests/matcher.test.ts',
  'tests/listing-parse.test.ts',
  'tests/event-validate.test.ts',
  'tests/origins.test.ts',
  'tests/origin-rules.test.ts',
  'tests/keys.test.ts',
  'tests/admin-token.test.ts',
  'tests/key-guesses.test.ts',
  'tests/large-bodies.test.ts',
  'tests/shared-counter.test.ts',
  'tests/shared-counter-faults.test.ts',
  'tests/sign-in-throttle.test.ts',
  'tests/salla-dashboard-gate.test.ts',
  'tests/console-views.test.ts',
  'tests/console-words.test.ts',
  'tests/feeds-google.test.ts',
  'tests/feeds-generic.test.ts',
  'tests/feeds-salla.test.ts',
  'tests/zid-platform.test.ts',
  'tests/pacer.test.ts',
  'tests/salla-platform.test.ts',
  'tests/shopify-platform.test.ts',
  'tests/shopify-pixel.test.ts',
  'tests/woo-platform.test.ts',
];

/** Runs the files in the order of MUTATION_TESTS rather than slowest first. */
class ListedOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = MUTATION_TESTS.indexOf(relative(this.ctx.config.root, f.moduleId).replaceAll('\\', '/'));
      return i === -1 ? MUTATION_TESTS.length : i;
    };
    return [...files].sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: MUTATION_TESTS,
    testTimeout: 30_000,
    pool: 'forks',
    sequence: { sequencer: ListedOrder },
  },
});
