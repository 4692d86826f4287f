import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALIKE_MIN_SHARED, alikePairs, checkAlike, isAlike, noteSet, pairKey } from '../catalog/alike.ts';

type R = { id: string; house: string; name: string; notes: { top?: string[]; heart?: string[]; base?: string[] } };

const rec = (id: string, house: string, name: string, top: string[], heart: string[], base: string[]): R => ({
  id,
  house,
  name,
  notes: { top, heart, base },
});

const aventus = rec(
  'creed-aventus-edp',
  'Creed',
  'Aventus',
  ['pineapple', 'bergamot', 'black currant', 'apple'],
  ['birch', 'patchouli', 'jasmine', 'rose'],
  ['musk', 'oakmoss', 'ambergris', 'vanilla'],
);

describe('near-identical pyramids of different perfumes', () => {
  it("flags a record written with another house's pyramid, even in another order and with other spellings", () => {
    const copy = rec(
      'x-copy-edp',
      'X',
      'Copy',
      ['Bergamot', 'Blackcurrant', 'Pineapple', 'apple'],
      ['rose', 'birch', 'jasmine', 'patchouli'],
      ['vanilla', 'musk', 'ambergris', 'oak moss'],
    );
    const pairs = alikePairs([aventus, copy]);
    expect(pairs).toHaveLength(1);
    expect(pairs[0]).toMatchObject({ a: 'creed-aventus-edp', b: 'x-copy-edp', shared: 12, similarity: 1 });
  });

  it('compares notes the knowledge base does not know as they are written', () => {
    const odd = ['quarklox', 'glomtak', 'zephyr dust', 'moon sap', 'star tar'];
    const a = rec('a', 'A', 'One', odd.slice(0, 2), odd.slice(2, 4), odd.slice(4));
    const b = rec('b', 'B', 'Two', odd.slice(0, 2), odd.slice(2, 4), [...odd.slice(4), 'musk']);
    expect(alikePairs([a, b]).map((p) => p.shared)).toEqual([5]);
    expect(noteSet(a)).toEqual(new Set(odd));
  });

  it('compares a flat list with a tiered pyramid: the tiers a record lacks hold nothing', () => {
    const flat = {
      id: 'flat',
      house: 'F',
      name: 'Flat',
      notes: { heart: ['pineapple', 'bergamot', 'birch', 'rose', 'musk'] },
    };
    const tiered = rec('tiered', 'T', 'Tiered', ['pineapple', 'bergamot'], ['birch', 'rose'], ['musk']);
    expect(noteSet(flat)).toEqual(new Set(['pineapple', 'bergamot', 'birch', 'rose', 'musk']));
    expect(alikePairs([flat, tiered]).map((p) => p.similarity)).toEqual([1]);
  });

  it('leaves a line alone: the EDT and the EDP of one perfume may share their pyramid', () => {
    const edt = { ...aventus, id: 'creed-aventus-edt' };
    expect(alikePairs([aventus, edt])).toEqual([]);
    // the same name under another house is another perfume
    expect(alikePairs([aventus, { ...aventus, id: 'y-aventus-edp', house: 'Y' }])).toHaveLength(1);
  });

  it('flags a pyramid cut from a longer one (every note of the shorter in the longer)', () => {
    const noir = rec(
      'tf-noir-extreme',
      'Tom Ford',
      'Noir Extreme',
      ['mandarin', 'neroli', 'cardamom', 'nutmeg', 'saffron'],
      ['kulfi', 'mastic', 'orange blossom', 'rose', 'jasmine'],
      ['vanilla', 'amber', 'sandalwood', 'woody notes'],
    );
    const cut = rec(
      'a-homme',
      'Armaf',
      'Odyssey Homme',
      ['cardamom', 'neroli', 'mandarin orange'],
      ['orange blossom', 'rose'],
      ['vanilla', 'woody notes', 'sandalwood', 'amber'],
    );
    expect(alikePairs([noir, cut]).map((p) => p.b)).toEqual(['a-homme']);
  });

  it('does not flag a short list inside a long pyramid, nor a family of four shared notes', () => {
    const long = rec(
      'long',
      'A',
      'Long',
      ['bergamot', 'lemon', 'mandarin', 'grapefruit', 'neroli', 'petitgrain'],
      ['rose', 'jasmine', 'iris', 'violet', 'lavender', 'geranium'],
      ['musk', 'amber', 'vanilla', 'cedar', 'vetiver', 'patchouli'],
    );
    const short = rec('short', 'B', 'Short', ['bergamot', 'lemon'], ['rose', 'jasmine'], ['musk', 'amber']);
    expect(alikePairs([long, short])).toEqual([]); // 6 of 18: contained, but not a copy
    const four = rec('four', 'C', 'Four', ['bergamot', 'lemon'], ['rose'], ['musk']);
    const fourToo = rec('four-too', 'D', 'Four too', ['bergamot', 'lemon'], ['rose'], ['musk', 'oud']);
    expect(alikePairs([four, fourToo])).toEqual([]);
  });

  it('the rule: alike from 0.7 of all notes, or 0.85 of the smaller with 0.5 of all', () => {
    expect(isAlike(0.7, 0.7)).toBe(true);
    expect(isAlike(0.69, 0.84)).toBe(false);
    expect(isAlike(0.5, 0.85)).toBe(true);
    expect(isAlike(0.49, 1)).toBe(false);
  });

  it('finds exactly the pairs a comparison of every pair finds, in any order of the records (property)', () => {
    const notes = ['bergamot', 'lemon', 'rose', 'jasmine', 'musk', 'amber', 'vanilla', 'oud', 'cedar', 'iris'];
    const record = fc.record({
      house: fc.constantFrom('A', 'B'),
      name: fc.constantFrom('One', 'Two', 'Three'),
      top: fc.subarray(notes),
      heart: fc.subarray(notes),
      base: fc.subarray(notes),
    });
    fc.assert(
      fc.property(fc.array(record, { maxLength: 8 }), (rows) => {
        const records = rows.map((r, i) => rec(`p${i}`, r.house, r.name, r.top, r.heart, r.base));
        const brute: string[] = [];
        const similarity = new Map<string, number>();
        const sim = (k: string) => similarity.get(k) ?? 0;
        for (const [i, a] of records.entries()) {
          for (const b of records.slice(i + 1)) {
            if (a.house === b.house && a.name === b.name) continue;
            const A = noteSet(a);
            const B = noteSet(b);
            const n = [...A].filter((x) => B.has(x)).length;
            if (n >= ALIKE_MIN_SHARED && isAlike(n / (A.size + B.size - n), n / Math.min(A.size, B.size))) {
              brute.push(`${a.id} ${b.id}`);
              similarity.set(`${a.id} ${b.id}`, n / (A.size + B.size - n));
            }
          }
        }
        const found = alikePairs(records).map((p) => `${p.a} ${p.b}`);
        // most alike first, then by the pair's ids
        expect(found).toEqual(brute.sort((x, y) => sim(y) - sim(x) || (x < y ? -1 : 1)));
        const reversed = alikePairs([...records].reverse()).map((p) => pairKey(p.a, p.b));
        expect(reversed.sort()).toEqual(found.map((k) => pairKey(...(k.split(' ') as [string, string]))).sort());
      }),
    );
  });
});

describe('hand resolutions of alike pairs', () => {
  const copy = { ...aventus, id: 'afnan-supremacy-silver-edp', house: 'Afnan', name: 'Supremacy Silver' };
  const other = { ...aventus, id: 'z-other', house: 'Z', name: 'Other' };

  it('a pair no resolution names stays unresolved; a resolution names the records resolved together', () => {
    expect(checkAlike([aventus, copy], []).unresolved).toHaveLength(1);
    const resolved = checkAlike([aventus, copy], [{ ids: [aventus.id, copy.id], why: 'the house publishes them' }]);
    expect(resolved).toEqual({ unresolved: [], stale: [] });
    // named in either order
    const reversed = checkAlike([aventus, copy], [{ ids: [copy.id, aventus.id], why: 'the house publishes them' }]);
    expect(reversed).toEqual({ unresolved: [], stale: [] });
    // a third copy is not covered by a resolution of the first two
    const third = checkAlike([aventus, copy, other], [{ ids: [aventus.id, copy.id], why: 'the house publishes them' }]);
    expect(third.unresolved.map((p) => [p.a, p.b].sort().join(' '))).toEqual([
      'afnan-supremacy-silver-edp z-other',
      'creed-aventus-edp z-other',
    ]);
  });

  it('a resolution that no longer holds is reported: an id gone, no reason, or its records no longer alike', () => {
    const gone = checkAlike([aventus], [{ ids: [aventus.id, 'withdrawn-id', 'gone-too'], why: 'x' }]);
    expect(gone.stale).toEqual([
      'resolution 1 (creed-aventus-edp, withdrawn-id, gone-too): withdrawn-id, gone-too not in the catalog',
    ]);
    expect(checkAlike([aventus, copy], [{ ids: [aventus.id, copy.id], why: ' ' }]).stale).toEqual([
      'resolution 1 (creed-aventus-edp, afnan-supremacy-silver-edp): no reason given',
    ]);
    const corrected = { ...copy, notes: { top: ['oud'], heart: ['rose'], base: ['musk'] } };
    const resolutions = [
      { ids: [aventus.id], why: 'x' },
      { ids: [aventus.id, copy.id], why: 'x' },
    ];
    expect(checkAlike([aventus, corrected], resolutions)).toEqual({
      unresolved: [],
      stale: [
        'resolution 1 (creed-aventus-edp): no pair of these is alike',
        'resolution 2 (creed-aventus-edp, afnan-supremacy-silver-edp): no pair of these is alike',
      ],
    });
  });
});
