import { describe, expect, it } from 'vitest';
import { loadBundledCatalog } from '../catalog/bundled.ts';
import { agreementWithNotes, checkedPerfumeOf, unexplainedAccords } from '../matching/accord-check.ts';

/**
 * The shipped catalog checked by the notes knowledge base: profiles derived
 * from each record's notes alone agree with its listed accords (floors a
 * little below the figures of docs/benchmarks.md), and no record lists a
 * material accord its notes cannot explain.
 */
// the records with notes: an identity without a profile has none to agree with
const perfumes = loadBundledCatalog().profiled;

describe('the catalog, checked by its own notes', () => {
  it('no shipped record lists an accord named for a material that none of its notes smells of', () => {
    const flagged = perfumes
      .map((p) => ({ id: p.id, missing: unexplainedAccords(checkedPerfumeOf(p)) }))
      .filter((x) => x.missing.length > 0);
    expect(flagged).toEqual([]);
  });

  it('flags a record built to fail: an oud accord with no oud-like note, a citrus accord with no citrus', () => {
    const wrong = {
      id: 'made-up',
      accords: [
        { name: 'oud', weight: 1 },
        { name: 'citrus', weight: 0.8 },
        { name: 'floral', weight: 0.6 },
      ],
      notes: { top: ['pink pepper'], heart: ['jasmine'], base: ['vanilla', 'musk'] },
    };
    expect(unexplainedAccords(wrong)).toEqual(['oud', 'citrus']);
    // with the notes that explain them, nothing is flagged
    expect(
      unexplainedAccords({ ...wrong, notes: { top: ['bergamot'], heart: ['jasmine'], base: ['agarwood'] } }),
    ).toEqual([]);
  });

  // measured 3.20 of 5 and 74% (docs/benchmarks.md); the goal is 3.2 and 85%, the second not yet met
  it('profiles derived from notes alone agree with the catalog: ≥ 3.15 of 5 accords shared, strongest in the top 3 for ≥ 72%', () => {
    const a = agreementWithNotes(perfumes.map(checkedPerfumeOf));
    expect(a.meanShared).toBeGreaterThanOrEqual(3.15);
    expect(a.topInTop3).toBeGreaterThanOrEqual(0.72);
  });
});
