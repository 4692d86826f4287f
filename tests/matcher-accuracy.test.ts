import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadBundledCatalog } from '../catalog/bundled.ts';
import { buildSearchIndex } from '../catalog/search.ts';
import { matchListing } from '../matching/matcher.ts';

/**
 * The matcher on the 312 labelled listings of tests/fixtures/match-listings.json,
 * against floors. Two seconds a run: left out of the mutation run
 * (vitest.mutation.config.ts), whose tests hold the same rules one by one.
 */
const { houses, perfumes } = loadBundledCatalog();
const ps = perfumes.map((p) => ({ ...p, nameAr: p.name_ar }));
const catalog = {
  index: buildSearchIndex(
    ps,
    houses.map((h) => ({ ...h, nameAr: h.name_ar })),
  ),
  perfumes: ps,
};
const match = (name: string, house: string) => matchListing(catalog, { name, house });

/** Floors recorded in docs/benchmarks.md (measured: 1.000 and 0.000 on 312 listings). */
const ACCURACY_FLOOR = 0.97;
const WRONG_MATCH_CEILING = 0.01;

describe('accuracy on the labelled listings', () => {
  const listings = JSON.parse(readFileSync(new URL('./fixtures/match-listings.json', import.meta.url), 'utf8')) as {
    name: string;
    house: string;
    expected: string | null;
  }[];

  it('has at least 300 listings, a third of them in Arabic script, with negatives', () => {
    expect(listings.length).toBeGreaterThanOrEqual(300);
    expect(listings.filter((l) => /[\u0600-\u06FF]/.test(l.name)).length * 3).toBeGreaterThanOrEqual(listings.length);
    expect(listings.filter((l) => l.expected === null).length).toBeGreaterThanOrEqual(40);
  });

  it(`matches ≥ ${ACCURACY_FLOOR * 100}% of listings of catalog perfumes, and wrongly matches ≤ ${WRONG_MATCH_CEILING * 100}% of the rest`, () => {
    const positives = listings.filter((l) => l.expected !== null);
    const negatives = listings.filter((l) => l.expected === null);
    const right = positives.filter((l) => match(l.name, l.house).perfumeId === l.expected).length;
    // a version of a line we lack may be matched to its sibling, said so: not passed off as the product
    const wrong = negatives.filter((l) => {
      const m = match(l.name, l.house);
      return m.perfumeId !== null && !m.sibling;
    }).length;
    expect(right / positives.length).toBeGreaterThanOrEqual(ACCURACY_FLOOR);
    expect(wrong / negatives.length).toBeLessThanOrEqual(WRONG_MATCH_CEILING);
  });

  it('never matches a listing of a catalog perfume to another perfume', () => {
    const wrong = listings
      .filter((l) => l.expected !== null)
      .map((l) => ({ l, got: match(l.name, l.house).perfumeId }))
      .filter(({ l, got }) => got !== null && got !== l.expected);
    expect(wrong).toEqual([]);
  });
});
