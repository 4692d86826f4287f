import { describe, expect, it } from 'vitest';
import type { CatalogPerfume } from '../catalog/types.ts';
import { QUALITIES } from '../contracts/widget.ts';
import type { ReferencePerfume } from '../scoring/engine.ts';
import { CompiledProducts, lineOf, notesOf, referenceOf, type ScoringProduct } from '../scoring/products.ts';
import { normalizeQuiz, type QuizInput } from '../scoring/quiz.ts';

/**
 * A merchant's products and the perfumes a shopper names: which listing is
 * the loved perfume itself, which a version of it, which a disliked one; the
 * price to beat; and what each recommendation says it shares.
 */
const SAUVAGE = { rose: 0, 'fresh spicy': 1, amber: 0.7, citrus: 0.6 };
const accords = (a: Record<string, number>) =>
  Object.entries(a)
    .filter(([, w]) => w > 0)
    .map(([name, weight]) => ({ name, weight }));
const product = (
  id: string,
  perfume: { id: string; name: string; house: string } | null,
  over: Partial<ScoringProduct> & { accordsOf?: Record<string, number>; notes?: string[] } = {},
): ScoringProduct => ({
  merchantProductId: id,
  perfumeId: perfume?.id ?? null,
  name: perfume?.name ?? id,
  house: perfume?.house ?? 'Atelier',
  price: 100,
  currency: 'SAR',
  productUrl: null,
  imageUrl: null,
  quality: perfume ? 'full' : 'partial',
  profile: {
    source: perfume ? 'catalog' : 'merchant',
    notes: { top: over.notes ?? [], heart: [], base: [] },
    families: [],
    accords: accords(over.accordsOf ?? SAUVAGE),
    seasons: [],
    times: [],
    occasions: [],
  },
  line: perfume ? lineOf(perfume.house, perfume.name) : `merchant|${id}`,
  lineHouse: perfume?.house ?? 'Atelier',
  ...over,
});
const ref = (id: string, name: string, house: string, a: Record<string, number> = SAUVAGE): ReferencePerfume => ({
  id,
  name,
  house,
  families: [],
  accords: accords(a),
  notes: [],
});
const ask = (
  shop: CompiledProducts,
  input: QuizInput,
  loved: ReferencePerfume[],
  disliked: ReferencePerfume[] = [],
) => {
  const r = normalizeQuiz(input);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return shop.score(r.quiz, 24, { loved, disliked });
};
const relations = (answer: ReturnType<typeof ask>) =>
  Object.fromEntries(
    [...answer.recommendations, ...answer.also_explore].map((r) => [
      r.merchant_product_id,
      r.similar_to ? `${r.similar_to.relation}:${r.similar_to.sillage_perfume_id}` : 'none',
    ]),
  );

const loved = ref('dior-sauvage-edt', 'Sauvage', 'Dior');
const at = (id: string, name: string, house = 'Dior') => ({ id, name, house });

describe('the loved perfume, its versions, and the rest', () => {
  // built inside each test (a mutant of the constructor is then covered by the tests that run it)
  const sauvageShop = () =>
    new CompiledProducts(1, [
      product('edt', at('dior-sauvage-edt', 'Sauvage')),
      product('edp', at('dior-sauvage-edp', 'Sauvage')),
      product('elixir', at('dior-sauvage-elixir', 'Sauvage Elixir')),
      // a Parfum listing of a line held as EDT: scored as the EDT, a version
      product('sibling', at('dior-sauvage-edt', 'Sauvage'), { quality: 'sibling' }),
      product('eau', at('dior-eau-sauvage-edt', 'Eau Sauvage')),
      product('sauvageon', at('dior-sauvageon-edt', 'Sauvageon')),
      product('other-house', at('x-sauvage', 'Sauvage', 'Other House')),
      product('clone', null),
    ]);

  it('the same perfume matched in full is "same"; another concentration, a flanker and a sibling listing are versions', () => {
    const all = sauvageShop();
    const r = relations(ask(all, { loved_perfumes: ['dior-sauvage-edt'] }, [loved]));
    expect(r.edt).toBe('same:dior-sauvage-edt');
    // one version at most is shown: which one, the ranking says; none of the others is "similar"
    const versions = ['edp', 'elixir', 'sibling'].filter((id) => r[id] !== undefined);
    expect(versions.map((id) => r[id])).toEqual(versions.map(() => 'version:dior-sauvage-edt'));
    // another perfume whose name only begins or ends alike, or the same name at another house: like it, not a version
    for (const id of ['eau', 'sauvageon', 'other-house', 'clone']) expect(r[id], id).toBe('similar:dior-sauvage-edt');
  });

  it('the loved perfume itself is "same" whatever its profile rests on; a sibling listing of it is a version, whatever its profile rests on', () => {
    for (const quality of QUALITIES) {
      const s = new CompiledProducts(1, [product('it', at('dior-sauvage-edt', 'Sauvage'), { quality })]);
      const r = relations(ask(s, { loved_perfumes: ['dior-sauvage-edt'] }, [loved]));
      expect(r.it, quality).toBe(quality === 'sibling' ? 'version:dior-sauvage-edt' : 'same:dior-sauvage-edt');
      // a sibling listing of an identity without a profile, profiled otherwise: a version all the same
      const sibling = new CompiledProducts(1, [
        product('it', at('dior-sauvage-edt', 'Sauvage'), { quality, sibling: true }),
      ]);
      expect(relations(ask(sibling, { loved_perfumes: ['dior-sauvage-edt'] }, [loved])).it, quality).toBe(
        'version:dior-sauvage-edt',
      );
    }
  });

  it('a flanker loved: the base perfume is a version of it', () => {
    const elixir = ref('dior-sauvage-elixir', 'Sauvage Elixir', 'Dior');
    const r = relations(ask(sauvageShop(), { loved_perfumes: ['dior-sauvage-elixir'] }, [elixir]));
    expect(r.elixir).toBe('same:dior-sauvage-elixir');
    expect(['edt', 'edp', 'sibling'].map((id) => r[id]).filter((x) => x !== undefined)).toEqual([
      'version:dior-sauvage-elixir',
    ]);
  });

  it('a disliked perfume and its versions are never shown, even when also a version of a loved one', () => {
    const disliked = ref('dior-sauvage-edp', 'Sauvage', 'Dior');
    const a = ask(
      sauvageShop(),
      { loved_perfumes: ['dior-sauvage-elixir'], disliked_perfumes: ['dior-sauvage-edp'] },
      [ref('dior-sauvage-elixir', 'Sauvage Elixir', 'Dior')],
      [disliked],
    );
    const shown = Object.keys(relations(a));
    for (const id of ['edt', 'edp', 'elixir', 'sibling']) expect(shown, id).not.toContain(id);
    expect(shown).toContain('eau');
  });

  it('a version names the loved perfume it is a version of, not the closest', () => {
    const khamrah = ref('lattafa-khamrah-edp', 'Khamrah', 'Lattafa');
    // Sauvage's accords under Khamrah's name: closest to Sauvage, a version of Khamrah
    const mixed = new CompiledProducts(1, [
      product('qahwa', at('lattafa-khamrah-qahwa-edp', 'Khamrah Qahwa', 'Lattafa')),
    ]);
    const r = relations(ask(mixed, { loved_perfumes: ['dior-sauvage-edt', 'lattafa-khamrah-edp'] }, [loved, khamrah]));
    expect(r.qahwa).toBe('version:lattafa-khamrah-edp');
  });

  it('a product the loved perfume itself stays so when it is also a version of another loved one', () => {
    const elixir = ref('dior-sauvage-elixir', 'Sauvage Elixir', 'Dior');
    const r = relations(
      ask(sauvageShop(), { loved_perfumes: ['dior-sauvage-elixir', 'dior-sauvage-edt'] }, [elixir, loved]),
    );
    expect(r.elixir).toBe('same:dior-sauvage-elixir');
    expect(r.edt).toBe('same:dior-sauvage-edt');
  });

  it('an unmatched listing is never called a version, whatever its name', () => {
    const s = new CompiledProducts(1, [
      product('edt', at('dior-sauvage-edt', 'Sauvage')),
      product('lookalike', null, { line: lineOf('Dior', 'Sauvage'), lineHouse: 'Dior' }),
    ]);
    const r = relations(ask(s, { loved_perfumes: ['dior-sauvage-edt'] }, [loved]));
    expect(r.edt).toBe('same:dior-sauvage-edt');
    expect(r.lookalike).toBe('similar:dior-sauvage-edt');
  });

  it('a disliked perfume alone: it and its versions are left out', () => {
    const disliked = ref('dior-sauvage-edt', 'Sauvage', 'Dior');
    const a = ask(
      sauvageShop(),
      { disliked_perfumes: ['dior-sauvage-edt'], accord_ratings: { 'fresh spicy': 'love' } },
      [],
      [disliked],
    );
    const shown = Object.keys(relations(a));
    expect(shown).toContain('eau');
    for (const id of ['edt', 'edp', 'elixir', 'sibling']) expect(shown, id).not.toContain(id);
  });

  it('a product like the second loved perfume names that one', () => {
    const khamrahAccords = { amber: 1, sweet: 0.9, spicy: 0.7, vanilla: 0.6 };
    const khamrah = ref('lattafa-khamrah-edp', 'Khamrah', 'Lattafa', khamrahAccords);
    const s = new CompiledProducts(1, [product('dupe', null, { accordsOf: khamrahAccords })]);
    const r = relations(ask(s, { loved_perfumes: ['dior-sauvage-edt', 'lattafa-khamrah-edp'] }, [loved, khamrah]));
    expect(r.dupe).toBe('similar:lattafa-khamrah-edp');
  });
});

describe('the price to beat', () => {
  const near = { 'fresh spicy': 1, amber: 0.7, citrus: 0.6, woody: 0.2 };
  const shop = (self: Partial<ScoringProduct> | null, others: [string, number, string][]) =>
    new CompiledProducts(1, [
      ...(self ? [product('self', at('dior-sauvage-edt', 'Sauvage'), { price: 500, ...self })] : []),
      ...others.map(([id, price, currency]) => product(id, null, { price, currency, accordsOf: near })),
    ]);
  const forLess = (a: ReturnType<typeof ask>) =>
    a.also_explore.filter((r) => r.reason === 'for_less').map((r) => r.merchant_product_id);

  it("the shop's own price of the loved perfume, in its currency", () => {
    const s = shop({}, [
      ['a', 400, 'SAR'],
      ['b', 300, 'AED'],
      ['c', 600, 'SAR'],
    ]);
    const r = s.score(normalizeQuizOk({ loved_perfumes: ['dior-sauvage-edt'] }), 1, { loved: [loved], disliked: [] });
    expect(r.recommendations.map((x) => x.merchant_product_id)).toEqual(['self']);
    expect(forLess(r as ReturnType<typeof ask>)).toEqual(['a']);
  });

  it("the shopper's price when lower; the shop's when lower; none when the loved perfume has no price and none is asked", () => {
    const others: [string, number, string][] = [
      ['a', 400, 'SAR'],
      ['b', 200, 'SAR'],
    ];
    const limit1 = (s: CompiledProducts, input: QuizInput) =>
      s.score(normalizeQuizOk(input), 1, { loved: [loved], disliked: [] });
    const ids = (a: ReturnType<typeof limit1>) => forLess(a as ReturnType<typeof ask>);
    expect(ids(limit1(shop({}, others), { loved_perfumes: ['dior-sauvage-edt'], for_less_than: 300 }))).toEqual(['b']);
    expect(ids(limit1(shop({}, others), { loved_perfumes: ['dior-sauvage-edt'], for_less_than: 900 }))).toEqual([
      'a',
      'b',
    ]);
    expect(ids(limit1(shop({ price: null }, others), { loved_perfumes: ['dior-sauvage-edt'] }))).toEqual([]);
  });

  it("a loved perfume the shop sells without a price: the shopper's price alone", () => {
    const s = shop({ price: null }, [
      ['a', 400, 'SAR'],
      ['b', 200, 'SAR'],
    ]);
    const a = s.score(normalizeQuizOk({ loved_perfumes: ['dior-sauvage-edt'], for_less_than: 300 }), 1, {
      loved: [loved],
      disliked: [],
    });
    expect(forLess(a as ReturnType<typeof ask>)).toEqual(['b']);
  });

  it('the loved perfume sold in two currencies: the price in the first is beaten, never a cheaper one in another', () => {
    const s = new CompiledProducts(1, [
      product('self', at('dior-sauvage-edt', 'Sauvage'), { price: 500 }),
      product('self2', at('dior-sauvage-edt', 'Sauvage'), { price: 100, currency: 'AED' }),
      product('a', null, { price: 400, accordsOf: { 'fresh spicy': 1, amber: 0.7, citrus: 0.6, woody: 0.2 } }),
    ]);
    const a = s.score(normalizeQuizOk({ loved_perfumes: ['dior-sauvage-edt'] }), 1, { loved: [loved], disliked: [] });
    expect(forLess(a as ReturnType<typeof ask>)).toEqual(['a']);
  });

  it('two loved perfumes, one sold here: nothing is "for less" than the one with no price', () => {
    const khamrahAccords = { amber: 1, sweet: 0.9, spicy: 0.7, vanilla: 0.6 };
    const khamrah = ref('lattafa-khamrah-edp', 'Khamrah', 'Lattafa', khamrahAccords);
    const s = new CompiledProducts(1, [
      product('self', at('dior-sauvage-edt', 'Sauvage'), { price: 500 }),
      product('kdupe', null, { price: 50, accordsOf: khamrahAccords }),
      product('kdupe2', null, { price: 60, accordsOf: khamrahAccords }),
    ]);
    const a = s.score(normalizeQuizOk({ loved_perfumes: ['dior-sauvage-edt', 'lattafa-khamrah-edp'] }), 1, {
      loved: [loved, khamrah],
      disliked: [],
    });
    expect(forLess(a as ReturnType<typeof ask>)).toEqual([]);
  });

  it('the currency most prices are in, even when another comes first', () => {
    const s = shop(null, [
      ['a', 50, 'SAR'],
      ['b', 100, 'AED'],
      ['c', 100, 'AED'],
      ['d', 900, 'AED'],
    ]);
    const a = s.score(normalizeQuizOk({ loved_perfumes: ['dior-sauvage-edt'], for_less_than: 300 }), 1, {
      loved: [loved],
      disliked: [],
    });
    const all = [...a.recommendations, ...a.also_explore.filter((x) => x.reason === 'for_less')].map(
      (x) => x.merchant_product_id,
    );
    expect(all).toContain('b');
    expect(a.also_explore.filter((x) => x.reason === 'for_less').map((x) => x.merchant_product_id)).not.toContain('a');
  });

  it("without the loved perfume in the shop, the shopper's price in the currency most of the shop's prices are in", () => {
    const s = shop(null, [
      ['r', 900, 'AED'],
      ['a', 100, 'AED'],
      ['b', 100, 'AED'],
      ['c', 50, 'SAR'],
    ]);
    const a = s.score(normalizeQuizOk({ loved_perfumes: ['dior-sauvage-edt'], for_less_than: 300 }), 1, {
      loved: [loved],
      disliked: [],
    });
    // equal scores rank by id: a is recommended; b is under 300 AED, c is in another currency
    expect(a.recommendations.map((x) => x.merchant_product_id)).toEqual(['a']);
    const got = a.also_explore.filter((x) => x.reason === 'for_less').map((x) => x.merchant_product_id);
    expect(got).toEqual(['b']);
    expect(got).not.toContain('c');
  });
});

describe('what a recommendation says it shares', () => {
  it('the accords both carry, strongest in both first, by name when equal, three at most', () => {
    const shop = new CompiledProducts(1, [
      product('p', null, { accordsOf: { rose: 1, oud: 0.6, amber: 0.5, woody: 0.5, musky: 0.3 } }),
    ]);
    const r = ask(shop, { loved_perfumes: ['x'] }, [ref('x', 'X', 'H', { rose: 0.5, oud: 1, amber: 0.5, woody: 0.5 })]);
    expect(r.recommendations[0]?.similar_to).toEqual({
      sillage_perfume_id: 'x',
      name: 'X',
      house: 'H',
      relation: 'similar',
      similarity: expect.any(Number),
      shared_accords: ['oud', 'amber', 'rose'],
    });
  });
});

describe('notes as the engine compares them', () => {
  it('by the notes knowledge base: برغموت is bergamot, tonka beans tonka bean, each note once', () => {
    expect(notesOf({ top: ['برغموت', 'bergamot'], heart: ['Tonka', 'tonka beans'], base: ['Unknownium'] })).toEqual([
      'bergamot',
      'tonka bean',
      'unknownium',
    ]);
  });

  it('a catalog perfume is made a loved perfume once', () => {
    const p = {
      id: 'x',
      name: 'X',
      house: 'H',
      families: ['citrus'],
      accords: [{ name: 'citrus', weight: 1 }],
      notes: { top: ['Bergamot'] },
    } as unknown as CatalogPerfume;
    expect(referenceOf(p)).toBe(referenceOf(p));
    expect(referenceOf(p)).toEqual({
      id: 'x',
      name: 'X',
      house: 'H',
      families: ['citrus'],
      accords: [{ name: 'citrus', weight: 1 }],
      notes: ['bergamot'],
    });
  });
});

function normalizeQuizOk(input: QuizInput) {
  const r = normalizeQuiz(input);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.quiz;
}
