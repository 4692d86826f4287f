import { describe, expect, it } from 'vitest';
import { matchListing } from '../matching/matcher.ts';
import { bundledSnapshot } from './bundled-snapshot.ts';
import { figuresOf, type LabelledListing, loadLabelledListings, outcomeOf } from './listing-fixture.ts';

/**
 * The matcher on 2,500 labelled real listings (2,000 marketplace titles as
 * sellers wrote them, 450 written the way Gulf shops write them, 50 with the
 * spellings shops use: "L Interdit", "House of Lattafa", "Elixer", no house), in two
 * parts: the one the rules were tuned on and a quarter held out. Floors are
 * the figures measured when they were set (docs/benchmarks.md), a little
 * below: a change that loses recognition, or matches one wrong, fails here.
 */
const snapshot = bundledSnapshot();
const listings = loadLabelledListings();
const lineOf = (id: string) => snapshot.byId.get(id);

function scored(rows: readonly LabelledListing[]) {
  return rows.map((r) => {
    const m = matchListing(snapshot, { name: r.title, house: r.house ?? '' });
    return {
      r,
      m,
      label: r.label,
      outcome: outcomeOf(r.label, { perfumeId: m.perfumeId, sibling: m.sibling === true }, lineOf),
    };
  });
}

const tune = scored(listings.filter((l) => l.part === 'tune'));
const holdout = scored(listings.filter((l) => l.part === 'holdout'));

describe('the labelled real listings', () => {
  it('hold 2,000 marketplace titles, 450 Gulf shop listings and 50 shop spellings, every label naming a perfume we have', () => {
    expect(listings.filter((l) => l.ref.startsWith('ebay-'))).toHaveLength(2000);
    expect(listings.filter((l) => l.ref.startsWith('gulf:'))).toHaveLength(450);
    expect(listings.filter((l) => l.ref.startsWith('spell:'))).toHaveLength(50);
    const arabic = listings.filter((l) => /[\u0600-\u06FF]/.test(l.title));
    expect(arabic.length).toBeGreaterThanOrEqual(400);
    for (const l of listings) {
      if (l.label.kind === 'catalog') expect(snapshot.byId.has(l.label.perfume_id), l.ref).toBe(true);
      if (l.label.kind === 'absent' && l.label.sibling) expect(snapshot.byId.has(l.label.sibling), l.ref).toBe(true);
    }
    expect(holdout.length).toBeGreaterThan(500);
  });

  it.each([
    ['tuned-on part', tune, 0.95, 0.005],
    ['held-out part', holdout, 0.95, 0.01],
  ])(
    '%s: recognises its catalog perfumes and matches almost nothing wrongly',
    (_part, rows, recallFloor, wrongCeiling) => {
      const f = figuresOf(rows);
      expect(f.recall).toBeGreaterThanOrEqual(recallFloor);
      expect(f.wrongShare).toBeLessThanOrEqual(wrongCeiling);
    },
  );

  it('never matches a non-perfume (body mist, deodorant, gift set with lotion, sample kit…) as a perfume', () => {
    const matched = [...tune, ...holdout].filter((x) => x.label.kind === 'not_perfume' && x.m.perfumeId !== null);
    expect(matched.map((x) => `${x.r.ref} ${x.r.title}`)).toEqual([]);
  });

  it('never passes a sibling version off as the product', () => {
    const passedOff = [...tune, ...holdout].filter(
      (x) => x.label.kind === 'absent' && x.label.sibling && x.m.perfumeId !== null && x.m.sibling !== true,
    );
    expect(passedOff.filter((x) => x.outcome === 'wrong').map((x) => `${x.r.ref} ${x.r.title}`)).toEqual([]);
  });
});
