import { describe, expect, it } from 'vitest';
import {
  buildProductMatrix,
  buildTaste,
  matchAccords,
  REL_DISLIKED,
  REL_NONE,
  REL_SAME,
  REL_VERSION,
  type ReferencePerfume,
  type Relations,
  rank,
  scoreProducts,
  TIER_NEVER_SHOWN,
  TIER_SAME,
  tasteSummary,
} from '../scoring/engine.ts';
import type { Quiz } from '../scoring/quiz.ts';
import { ACCORDS } from '../vocabulary/index.ts';

/**
 * Loved and disliked perfumes in the engine, each rule on profiles made for
 * it: the similarity's formula, the closest of five, the perfume itself and
 * its versions, alternatives for less, a disliked perfume's distinctive
 * accords, and the summary. tests/loved-perfumes.test.ts asks the same of the
 * shipped catalog.
 */
const quiz = (q: Partial<Quiz> = {}): Quiz => ({ families: [], ratings: [], season: null, occasion: null, ...q });
const accords = (a: Record<string, number>) => Object.entries(a).map(([name, weight]) => ({ name, weight }));
const product = (
  a: Record<string, number>,
  o: { notes?: string[]; families?: string[]; seasons?: string[]; line?: string; house?: string } = {},
) => ({
  profile: { families: o.families ?? [], accords: accords(a), seasons: o.seasons ?? [], times: [], occasions: [] },
  line: o.line ?? `line-${JSON.stringify(a)}-${o.notes?.join()}`,
  house: o.house ?? `house-${JSON.stringify(a)}-${o.notes?.join()}`,
  notes: o.notes,
});
const ref = (
  id: string,
  a: Record<string, number>,
  notes: string[] = [],
  families: string[] = [],
): ReferencePerfume => ({
  id,
  name: id,
  house: 'H',
  families,
  accords: accords(a),
  notes,
});
const at = (i: number) => (xs: Uint8Array) => xs[i];
const idx = (name: string) => ACCORDS.findIndex((a) => a.slug === name);

describe('similarity to a loved perfume: ¾ accords, ¼ notes', () => {
  const loved = ref('L', { rose: 1, oud: 0.5 }, ['a', 'b']);
  const products = [
    product({ rose: 1, oud: 0.5 }, { notes: ['a', 'b'] }), // the same profile
    product({ rose: 1, oud: 0.5 }, { notes: ['c', 'd'] }), // the same accords, no note in common
    product({ rose: 1, oud: 0.5 }), // the same accords, no notes known
    product({ citrus: 1 }, { notes: ['a', 'b'] }), // the same notes, nothing of its accords
    product({ rose: 1 }, { notes: ['a'] }), // part of each
    product({ rose: 1, oud: 0.5 }, { notes: ['a', 'a', 'b'] }), // a note named twice counts once
  ];
  const s = scoreProducts(buildProductMatrix(products), buildTaste(quiz(), { loved: [loved] }));

  it('is 100 for the same profile, 75 for the accords alone, the accords alone when one side has no notes', () => {
    expect([...s.similarity]).toEqual([100, 75, 100, 25, 85, 100]);
  });

  it('scores a loved perfume alone as 50 + 50 × (0.85 × close + 0.075 + 0.075): close from 0.35 to 0.9', () => {
    // 96.25; 0.75 → close 0.727 → 84.7; 0.25 → close 0 → 53.75; 0.848 → close 0.905 → 92.2
    expect([...s.scores]).toEqual([96, 85, 96, 54, 92, 96]);
  });

  it('without notes on the loved perfume, the accords alone', () => {
    const bare = scoreProducts(
      buildProductMatrix(products),
      buildTaste(quiz(), { loved: [ref('L', { rose: 1, oud: 0.5 })] }),
    );
    expect([...bare.similarity]).toEqual([100, 100, 100, 0, 89, 100]);
  });

  it('counts only the accords the vocabulary knows, and the first eight, as the products do', () => {
    const odd = ref('L', { 'not-an-accord': 1, rose: 1, oud: 0.5 }, ['a', 'b']);
    expect(scoreProducts(buildProductMatrix(products), buildTaste(quiz(), { loved: [odd] })).similarity[0]).toBe(100);
    const nine = { rose: 1, oud: 0.9, amber: 0.8, vanilla: 0.7, woody: 0.6, musky: 0.5, citrus: 0.4, leather: 0.3 };
    const long = ref('N', { ...nine, smoky: 0.2 });
    const eight = scoreProducts(buildProductMatrix([product(nine)]), buildTaste(quiz(), { loved: [long] }));
    expect(eight.similarity[0]).toBe(100);
  });

  it('with a season asked, the season counts as in any quiz; with families too, half the fit is theirs', () => {
    const summer = [product({ rose: 1, oud: 0.5 }, { seasons: ['summer'] }), product({ rose: 1, oud: 0.5 })];
    const m = buildProductMatrix(summer);
    const t = scoreProducts(m, buildTaste(quiz({ season: 'summer' }), { loved: [ref('L', { rose: 1, oud: 0.5 })] }));
    expect([...t.scores]).toEqual([98, 94]); // 0.85 + 0.075 + 0.0375; 0.85 + 0 + 0.0375
    // a citrus product identical to the loved one, for an oud family lover: 0.5 × 0.075 + 0.5 × 1
    const both = scoreProducts(
      buildProductMatrix([product({ citrus: 1 })]),
      buildTaste(quiz({ families: ['oud'] }), { loved: [ref('C', { citrus: 1 })] }),
    );
    expect(both.scores[0]).toBe(77);
  });
});

describe('five loved perfumes at once: each product is compared with the closest', () => {
  const five = ['rose', 'oud', 'citrus', 'vanilla', 'musky'].map((a, k) => ref(`R${k}`, { [a]: 1 }, [`n${k}`]));
  it('names the closest of each of the five, and its similarity', () => {
    const products = five.map((r) => product({ [r.accords[0]?.name as string]: 1 }, { notes: [...r.notes] }));
    // vanilla's accord with oud's note: 0.75 like the fourth, 0.25 like the second
    products.push(product({ vanilla: 1 }, { notes: ['n1'] }));
    const s = scoreProducts(buildProductMatrix(products), buildTaste(quiz(), { loved: five }));
    expect([...s.closest]).toEqual([0, 1, 2, 3, 4, 3]);
    expect([...s.similarity]).toEqual([100, 100, 100, 100, 100, 75]);
  });

  it('a note shared with one loved perfume counts for that one only', () => {
    for (let k = 0; k < 5; k++) {
      const p = product({ leather: 1 }, { notes: [`n${k}`] });
      const s = scoreProducts(buildProductMatrix([p]), buildTaste(quiz(), { loved: five }));
      expect(s.closest[0]).toBe(k);
      expect(s.similarity[0]).toBe(25);
    }
  });
});

describe('the perfume itself, its versions, a disliked perfume', () => {
  const L = ref('L', { rose: 1, oud: 0.5 });
  // the loved perfume as the shop lists it scores below a twin; three versions, two others
  const products = [
    product({ rose: 1, oud: 0.5, amber: 0.6 }), // 0: the perfume itself
    product({ rose: 1, oud: 0.5 }, { line: 'twin' }), // 1: another perfume, the same profile
    product({ rose: 1, oud: 0.5 }, { line: 'v1', house: 'h1' }), // 2: a version
    product({ rose: 1, oud: 0.5 }, { line: 'v2', house: 'h2' }), // 3: a version
    product({ rose: 1, oud: 0.5 }, { line: 'v3', house: 'h3' }), // 4: a version
    product({ rose: 1, oud: 0.5 }, { line: 'd', house: 'hd' }), // 5: a disliked perfume
  ];
  const m = buildProductMatrix(products);
  const rel: Relations = {
    relation: Uint8Array.from([REL_SAME, REL_NONE, REL_VERSION, REL_VERSION, REL_VERSION, REL_DISLIKED]),
    of: new Uint8Array(6),
  };
  const t = buildTaste(quiz(), { loved: [L] });

  it('the perfume itself comes first, whatever a twin scores; a disliked perfume is never shown', () => {
    const s = scoreProducts(m, t, rel);
    expect(s.scores[1]).toBeGreaterThan(s.scores[0] as number);
    expect(at(0)(s.tier)).toBe(TIER_SAME);
    expect(at(5)(s.tier)).toBe(TIER_NEVER_SHOWN);
    const r = rank(m, t, 10, rel);
    expect(r.recommendations[0]?.index).toBe(0);
    expect([...r.recommendations, ...r.alsoExplore].map((x) => x.index)).not.toContain(5);
  });

  it('one version at most, even when the list is left short', () => {
    const r = rank(m, t, 10, rel);
    expect(r.recommendations.map((x) => x.index).sort()).toEqual([0, 1, 2]);
  });

  it('one version of each loved perfume: two loved, two versions', () => {
    const two: Relations = { relation: rel.relation, of: Uint8Array.from([0, 0, 0, 1, 1, 0]) };
    const r = rank(m, buildTaste(quiz(), { loved: [L, ref('M', { rose: 1 })] }), 10, two);
    expect(r.recommendations.map((x) => x.index).sort()).toEqual([0, 1, 2, 3]);
  });

  it('a version on the loved perfume’s own line and house is shown while others fill the list (limit 6)', () => {
    // the Sauvage lover: the shop's Sauvage and Sauvage Elixir (one line, one house), and eight other
    // fitting lines, two of them of the same house
    const shelf = [
      product({ rose: 1, oud: 0.5 }, { line: 'sauvage', house: 'dior' }), // 0: the perfume itself
      product({ rose: 1, oud: 0.3 }, { line: 'sauvage', house: 'dior' }), // 1: its Elixir
      ...[...'abcdefgh'].map((l, k) =>
        product({ rose: 1, oud: 0.5, amber: 0.1 * (k + 1) }, { line: l, house: k < 2 ? 'dior' : `h${l}` }),
      ),
    ];
    const relations: Relations = {
      relation: Uint8Array.from([REL_SAME, REL_VERSION, 0, 0, 0, 0, 0, 0, 0, 0]),
      of: new Uint8Array(10),
    };
    const s = buildProductMatrix(shelf);
    const r = rank(s, t, 6, relations);
    expect(r.recommendations).toHaveLength(6);
    expect(r.recommendations[0]?.index).toBe(0);
    expect(r.recommendations.map((x) => x.index)).toContain(1);
    // and in the order of its score among the others
    const scores = r.recommendations.slice(1).map((x) => x.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('without relations every product is a product like any other', () => {
    const r = rank(m, t, 10);
    expect(r.recommendations).toHaveLength(6);
  });
});

describe('alternatives for less', () => {
  const L = ref('L', { rose: 1, oud: 0.5 });
  const near = { rose: 1, oud: 0.5 };
  const products = [
    product(near, { line: 'self', house: 'h0' }), // 0: the loved perfume, 100
    product(near, { line: 'a', house: 'ha' }), // 1: 99
    product(near, { line: 'b', house: 'hb' }), // 2: 100, not under it
    product(near, { line: 'c', house: 'hc' }), // 3: no comparable price
    product({ rose: 1, leather: 1, smoky: 0.55 }, { line: 'd', house: 'hd' }), // 4: 10, similarity 0.59
    product(near, { line: 'e', house: 'he' }), // 5: 10, a version
    product(near, { line: 'f', house: 'hf' }), // 6: 20
    product(near, { line: 'g', house: 'hg' }), // 7: 30
    product(near, { line: 'h', house: 'hh' }), // 8: 40
  ];
  const m = buildProductMatrix(products);
  const t = buildTaste(quiz(), { loved: [L] });
  const rel = (beat: number[]): Relations => ({
    relation: Uint8Array.from([REL_SAME, 0, 0, 0, 0, REL_VERSION, 0, 0, 0]),
    of: new Uint8Array(9),
    price: Float64Array.from([100, 99, 100, Number.NaN, 10, 10, 20, 30, 40]),
    forLessThan: Float64Array.from(beat),
  });

  it('close (similarity 60 or more), under the price, never a version; three at most, the best first', () => {
    expect(scoreProducts(m, t).similarity[4]).toBe(59);
    const r = rank(m, t, 1, rel([100]));
    expect(r.recommendations.map((x) => x.index)).toEqual([0]);
    const forLess = r.alsoExplore.filter((x) => x.reason === 'for_less').map((x) => x.index);
    expect(forLess).toEqual([1, 6, 7]);
  });

  it('similarity 60 is close enough; 59 is not', () => {
    const edge = [
      product(near, { line: 'self', house: 'h0' }),
      product({ rose: 1, leather: 1, smoky: 0.45 }, { line: 'x', house: 'hx' }),
      product({ rose: 1, leather: 1, smoky: 0.55 }, { line: 'y', house: 'hy' }),
    ];
    const e = buildProductMatrix(edge);
    expect([...scoreProducts(e, t).similarity]).toEqual([100, 60, 59]);
    const r = rank(e, t, 1, {
      relation: Uint8Array.from([REL_SAME, 0, 0]),
      of: new Uint8Array(3),
      price: Float64Array.from([100, 50, 50]),
      forLessThan: Float64Array.from([100]),
    });
    expect(r.alsoExplore.filter((x) => x.reason === 'for_less').map((x) => x.index)).toEqual([1]);
  });

  it('none when no price is known to beat', () => {
    const r = rank(m, t, 1, rel([Number.NaN]));
    expect(r.alsoExplore.filter((x) => x.reason === 'for_less')).toEqual([]);
  });

  it('each alternative is held to the price of the loved perfume it is closest to', () => {
    const two = buildTaste(quiz(), { loved: [ref('X', { citrus: 1 }), L] });
    const r = rank(m, two, 1, { ...rel([1000, Number.NaN]), of: Uint8Array.from([1, 0, 0, 0, 0, 1, 0, 0, 0]) });
    expect(r.alsoExplore.filter((x) => x.reason === 'for_less')).toEqual([]);
  });
});

describe('a disliked perfume', () => {
  const L = ref('L', { rose: 1, oud: 0.8, amber: 0.3 });
  const D = ref('D', { oud: 1, leather: 0.9, patchouli: 0.6, smoky: 0.2, musky: 0.1 });

  it('its prominent accords that no loved perfume shares, and the shopper did not rate, count as disliked', () => {
    const t = buildTaste(quiz({ ratings: [['patchouli', 'like']] }), { loved: [L], disliked: [D] });
    expect(t.values[idx('leather')]).toBe(-0.5);
    expect(t.values[idx('patchouli')]).toBe(0.5);
    expect(t.values[idx('smoky')]).toBe(0);
    expect(t.values[idx('oud')]).toBe(0);
  });

  it('alone, all its prominent accords', () => {
    const t = buildTaste(quiz({ families: ['floral'] }), { disliked: [D] });
    expect(['oud', 'leather', 'patchouli'].map((a) => t.values[idx(a)])).toEqual([-0.5, -0.5, -0.5]);
    expect(t.values[idx('smoky')]).toBeGreaterThanOrEqual(0);
  });

  it('what sets it apart lowers the products that carry it', () => {
    const products = [product({ rose: 1, leather: 0.8 }), product({ rose: 1, amber: 0.8 })];
    const m = buildProductMatrix(products);
    const before = scoreProducts(m, buildTaste(quiz(), { loved: [L] }));
    const after = scoreProducts(m, buildTaste(quiz(), { loved: [L], disliked: [D] }));
    expect(after.scores[0]).toBeLessThan(before.scores[0] as number);
    expect(after.scores[1]).toBe(before.scores[1]);
  });
});

describe('prominent accords, however the profile lists them', () => {
  it('the three strongest, not the three listed first', () => {
    const m = buildProductMatrix([product({ musky: 0.1, rose: 0.2, oud: 0.3, amber: 0.4, woody: 1 })]);
    const avoid = (a: string) => scoreProducts(m, buildTaste(quiz({ ratings: [[a as 'oud', 'avoid']] }))).tier[0];
    expect(avoid('musky')).not.toBe(TIER_NEVER_SHOWN);
    expect(avoid('rose')).not.toBe(TIER_NEVER_SHOWN);
    expect(avoid('oud')).toBe(TIER_NEVER_SHOWN);
    expect(avoid('woody')).toBe(TIER_NEVER_SHOWN);
  });
});

describe('what loving a perfume says, in the summary and the reasons', () => {
  const A = ref('A', { rose: 0.4, oud: 1, amber: 0.6 }, [], ['oud', 'not-a-family']);
  const B = ref('B', { rose: 0.9, citrus: 0.2 }, [], ['floral', 'oud']);

  it('names the perfumes; their families and accords are inferred, strongest first, never said', () => {
    const q = quiz({ families: ['amber'] });
    const s = tasteSummary(q, buildTaste(q, { loved: [A, B], disliked: [ref('D', { leather: 1 })] }));
    expect(s.loved_perfumes).toEqual([
      { sillage_perfume_id: 'A', name: 'A', house: 'H' },
      { sillage_perfume_id: 'B', name: 'B', house: 'H' },
    ]);
    expect(s.disliked_perfumes).toEqual([{ sillage_perfume_id: 'D', name: 'D', house: 'H' }]);
    expect(s.inferred?.families).toEqual(['oud', 'floral']);
    expect(s.inferred?.accords.slice(0, 3)).toEqual(['oud', 'rose', 'amber']);
    expect(s.top_accords).toEqual([]);
    expect(s.dominant_families).toEqual(['amber']);
    const none = tasteSummary(quiz({ families: ['amber'] }), buildTaste(quiz({ families: ['amber'] })));
    expect(none).not.toHaveProperty('loved_perfumes');
    expect(none).not.toHaveProperty('disliked_perfumes');
  });

  it('a loved perfume’s accords are reasons a product matched, unless the shopper rated them down', () => {
    const m = buildProductMatrix([product({ rose: 1, citrus: 0.5, woody: 0.4 })]);
    const t = buildTaste(quiz({ ratings: [['citrus', 'dislike']] }), { loved: [B] });
    expect(matchAccords(m, t, 0)).toEqual(['rose']);
    const down = buildTaste(quiz({ ratings: [['rose', 'dislike']] }), { loved: [B] });
    expect(matchAccords(m, down, 0)).toEqual(['citrus']);
  });

  it('the families of the loved perfumes are not "other" families in also_explore', () => {
    const products = ['floral', 'floral', 'oud', 'woody'].map((f, i) =>
      product({ rose: 1, oud: 0.5 }, { families: [f], line: `${f}${i}` }),
    );
    const r = rank(
      buildProductMatrix(products),
      buildTaste(quiz(), { loved: [ref('L', { rose: 1, oud: 0.5 }, [], ['floral'])] }),
      1,
    );
    // the second floral perfume is of the loved perfume's family: not a discovery
    expect(r.alsoExplore.filter((x) => x.reason === 'other_family').map((x) => x.index)).toEqual([2, 3]);
  });
});
