import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CELL_BUDGET, MAX_QUERY_WORDS, search, work } from '../catalog/search.ts';
import { CANDIDATES, matchListing, PAIR_BUDGET } from '../matching/matcher.ts';
import { MAX_LISTING_WORDS } from '../matching/parse.ts';
import { bundledSnapshot } from './bundled-snapshot.ts';

/**
 * Whatever a client sends as a listing or a query, the work of matching it
 * has a cap: edit-distance cells, spelling variants tried and index postings
 * read are counted (catalog/search.ts `work`) and must stay under the caps
 * named here. Time is measured in the benchmark, never here.
 */
// the catalog is built by the first test that needs it, not on loading (the mutation run's coverage)
const snapshot = () => bundledSnapshot();

/** a word has at most 24 letters for fuzzy matching: ≤ 1 + 24 + 24·23/2 = 301 spelling variants */
const VARIANTS_PER_WORD = 301;
const MAX_VARIANTS = (MAX_QUERY_WORDS + 1) * VARIANTS_PER_WORD;
/** every index word a query word may stand for lists at most every perfume */
const maxPostingsPerSearch = () => (MAX_QUERY_WORDS + 1) * 64 * snapshot().perfumes.length;

function cost(fn: () => void) {
  const before = { ...work };
  fn();
  return {
    cells: work.cells - before.cells,
    variants: work.variants - before.variants,
    postings: work.postings - before.postings,
  };
}

const PERFUME_WORDS = ['sauvage', 'khamrah', 'aventus', 'baccarat', 'rouge', 'oud', 'wood', 'light', 'blue', 'سوفاج'];
const adversarial = fc.oneof(
  // the longest name allowed, one letter over and over
  fc.constantFrom('a', 'ا', 'é', '1').map((c) => c.repeat(300)),
  // perfume words run together without spaces
  fc.array(fc.constantFrom(...PERFUME_WORDS), { minLength: 1, maxLength: 40 }).map((w) => w.join('').slice(0, 300)),
  // many real words, spaced
  fc
    .array(fc.constantFrom(...PERFUME_WORDS, 'edp', 'parfum', 'for', 'men'), { maxLength: 80 })
    .map((w) => w.join(' ').slice(0, 300)),
  // any text, mixed scripts
  fc.string({ unit: fc.constantFrom('a', 'b', 'x', ' ', 'س', 'و', 'ف', '-', '1', 'é', '&'), maxLength: 300 }),
  fc.string({ maxLength: 300 }),
);

describe('the work of matching a listing is capped, whatever the text', () => {
  it('never spends more than its edit-distance budget, spelling variants and postings', () => {
    fc.assert(
      fc.property(adversarial, fc.constantFrom('Dior', 'Lattafa', 'Unbranded', ''), (name, house) => {
        const c = cost(() => matchListing(snapshot(), { name, house: house || 'x' }));
        expect(c.cells).toBeLessThanOrEqual(CELL_BUDGET);
        expect(c.variants).toBeLessThanOrEqual(MAX_VARIANTS);
        expect(c.postings).toBeLessThanOrEqual(maxPostingsPerSearch() + CANDIDATES * snapshot().perfumes.length);
      }),
      { numRuns: 300 },
    );
  });

  it('a lookup query of any text stays within the same caps', () => {
    fc.assert(
      fc.property(adversarial, (q) => {
        const c = cost(() => search(snapshot().index, q.slice(0, 200), { limit: 10 }));
        expect(c.cells).toBeLessThanOrEqual(CELL_BUDGET);
        expect(c.variants).toBeLessThanOrEqual(MAX_VARIANTS);
      }),
      { numRuns: 300 },
    );
  });

  it('compares at most PAIR_BUDGET word pairs beyond exact equality in one match', () => {
    fc.assert(
      fc.property(adversarial, fc.constantFrom('Dior', 'Lattafa', 'Unbranded', ''), (name, house) => {
        const before = work.pairs;
        matchListing(snapshot(), { name, house: house || 'x' });
        expect(work.pairs - before).toBeLessThanOrEqual(PAIR_BUDGET);
      }),
      { numRuns: 200 },
    );
  });

  it('compares sounds across scripts for each distinct word once, however many pairs it meets', () => {
    const letters = '㌖㌗㌠㌶㍇㌁㌈㌌㌍㌒';
    const words = Array.from({ length: 23 }, (_, i) =>
      Array.from({ length: 12 }, (_, k) => letters[(i * 7 + k * 3) % letters.length]).join(''),
    );
    const name = `لطا ${words.join(' ')}`;
    const before = work.skeletons;
    matchListing(snapshot(), { name, house: 'Lattafa' });
    // 24 listing words and the names of at most 25 candidates
    expect(work.skeletons - before).toBeLessThanOrEqual(24 + 25 * 30);
  });

  it('a 300-letter word run together does no fuzzy work at all', () => {
    const c = cost(() => matchListing(snapshot(), { name: 'sauvagekhamrahaventus'.repeat(15), house: 'Dior' }));
    expect(c).toEqual({ cells: 0, variants: 0, postings: 0 });
  });

  it('reads at most MAX_LISTING_WORDS words of a listing', () => {
    const long = Array.from({ length: 100 }, (_, i) => `word${i}`).join(' ');
    const few = Array.from({ length: MAX_LISTING_WORDS }, (_, i) => `word${i}`).join(' ');
    const a = cost(() => matchListing(snapshot(), { name: long, house: 'Dior' }));
    const b = cost(() => matchListing(snapshot(), { name: few, house: 'Dior' }));
    expect(a).toEqual(b);
  });

  it('reads a house field of at most 12 words for a house among extras, at most 78 runs of its words', () => {
    const runs = (house: string) => {
      const before = work.houseRuns;
      matchListing(snapshot(), { name: 'Khamrah', house });
      return work.houseRuns - before;
    };
    // the most: one word amid 11 a field says around a house (each run held exactly in tests/matcher-rules.test.ts)
    expect(runs('House of Perfumes Dubai UAE Nowhere Paris London Official Store Shop Group')).toBe(42);
    expect(runs('x '.repeat(100))).toBe(0);
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (house) => {
        expect(runs(house)).toBeLessThanOrEqual(78);
      }),
      { numRuns: 200 },
    );
  });

  it('a budget spent on one listing does not carry over to the next', () => {
    matchListing(snapshot(), { name: 'x'.repeat(300), house: 'Dior' });
    expect(matchListing(snapshot(), { name: 'Savuage EDT', house: 'Dior' }).perfumeId).toBe('dior-sauvage-edt');
  });
});
