import { describe, expect, it } from 'vitest';
import type { Recommendation } from '../contracts/widget.ts';
import { CompiledProducts, notesOf, type ScoringProduct } from '../scoring/products.ts';
import { normalizeQuiz } from '../scoring/quiz.ts';

/** A merchant's compiled products, held directly: the picture each answer names, its remembered answers, its order. */
const product = (id: string, over: Partial<ScoringProduct> = {}): ScoringProduct => ({
  merchantProductId: id,
  perfumeId: null,
  name: `Oud ${id}`,
  house: 'Atelier',
  price: 100,
  currency: 'SAR',
  productUrl: null,
  imageUrl: null,
  quality: 'partial',
  profile: {
    source: 'merchant',
    notes: { top: [], heart: [], base: [] },
    families: ['oud'],
    accords: [
      { name: 'oud', weight: 1 },
      { name: 'woody', weight: 0.6 },
    ],
    seasons: [],
    times: [],
    occasions: [],
  },
  line: `line-${id}`,
  lineHouse: `house-${id}`,
  ...over,
});
const quiz = (() => {
  const r = normalizeQuiz({ families: ['oud'], accord_ratings: { oud: 'love' } });
  if (!r.ok) throw new Error('quiz');
  return r.quiz;
})();

describe('compiled products', () => {
  it("a product with no picture gets its scent's, under the service's URL; its own picture wins; no URL, no picture", () => {
    const shop = new CompiledProducts(1, [product('a'), product('b', { imageUrl: 'https://shop.example/b.jpg' })], {
      imageBase: 'https://svc.example',
    });
    const byId = Object.fromEntries(
      shop.score(quiz, 6).recommendations.map((r) => [r.merchant_product_id, r.image_url]),
    );
    expect(byId.b).toBe('https://shop.example/b.jpg');
    const url = new URL(byId.a as string);
    expect(`${url.origin}${url.pathname}`).toBe('https://svc.example/widget/v1/scent.svg');
    expect(url.searchParams.get('a')).toBe('oud:100,woody:60');
    expect(url.searchParams.get('h')).toBe('Atelier');
    expect(url.searchParams.get('n')).toBe('Oud a');
    const bare = new CompiledProducts(1, [product('a')]);
    expect(bare.score(quiz, 6).recommendations[0]?.image_url).toBeNull();
  });

  it('says what kind each product is and whether it holds alcohol, and keeps to the kinds, alcohol and budget asked', () => {
    const shop = new CompiledProducts(1, [
      product('spray'),
      product('af-spray', { alcoholFree: true, price: 250 }),
      product('oil', { kind: 'oil', price: 60 }),
      product('mist', { kind: 'mist', price: null }),
    ]);
    const ask = (extra: object) => {
      const r = normalizeQuiz({ families: ['oud'], accord_ratings: { oud: 'love' }, ...extra });
      if (!r.ok) throw new Error('quiz');
      const answer = shop.score(r.quiz, 6);
      return [...answer.recommendations, ...answer.also_explore].map((x) => [
        x.merchant_product_id,
        x.product_kind,
        x.alcohol_free,
      ]);
    };
    expect(ask({}).sort()).toEqual([
      ['af-spray', 'spray', true],
      ['mist', 'mist', false],
      ['oil', 'oil', true],
      ['spray', 'spray', false],
    ]);
    expect(
      ask({ kinds: ['oil', 'mist'] })
        .map(([id]) => id)
        .sort(),
    ).toEqual(['mist', 'oil']);
    expect(
      ask({ alcohol_free: true })
        .map(([id]) => id)
        .sort(),
    ).toEqual(['af-spray', 'oil']);
    expect(
      ask({ budget: { min: 80, max: 300 } })
        .map(([id]) => id)
        .sort(),
    ).toEqual(['af-spray', 'spray']);
  });

  it('says how many shop descriptions a profile as shops describe it rests on, and nothing of it for another', () => {
    const shop = new CompiledProducts(1, [
      product('a', { quality: 'shops', perfumeId: 'x-edp', shops: 3 }),
      product('b'),
    ]);
    const byId = Object.fromEntries(shop.score(quiz, 6).recommendations.map((r) => [r.merchant_product_id, r]));
    expect(byId.a).toMatchObject({ quality: 'shops', described_by_shops: 3 });
    expect(byId.b).not.toHaveProperty('described_by_shops');
  });

  it('remembers the answer to a quiz it has scored, unless told not to', () => {
    const remembering = new CompiledProducts(1, [product('a')]);
    expect(remembering.score(quiz, 6)).toBe(remembering.score(quiz, 6));
    expect(remembering.score(quiz, 5)).not.toBe(remembering.score(quiz, 6));
    const once = new CompiledProducts(1, [product('a')], { rememberAnswers: false });
    expect(once.score(quiz, 6)).not.toBe(once.score(quiz, 6));
    expect(once.score(quiz, 6)).toEqual(once.score(quiz, 6));
  });

  it('equal scores rank by product id, whatever order the products came in; each says for whom', () => {
    const ids = ['c', 'a', 'd', 'b'];
    const given = ids.map((id) => product(id, { gender: 'women' }));
    const a = new CompiledProducts(1, given).score(quiz, 6).recommendations;
    const b = new CompiledProducts(1, [...given].reverse()).score(quiz, 6).recommendations;
    expect(a.map((r) => r.merchant_product_id)).toEqual(['a', 'b', 'c', 'd']);
    expect(b).toEqual(a);
    for (const r of a)
      expect(r).toMatchObject({ gender: 'women', fit: 'strong', quality: 'partial', house: 'Atelier' });
  });

  it('ranks by product id among many equal scores, from any order', () => {
    const ids = ['k', 'c', 'h', 'a', 'j', 'e', 'b', 'l', 'g', 'd', 'i', 'f'];
    const sorted = [...ids].sort();
    for (const order of [ids, [...ids].reverse(), sorted, [...sorted].reverse()]) {
      const got = new CompiledProducts(
        1,
        order.map((id) => product(id)),
      ).score(quiz, 12).recommendations;
      expect(got.map((r) => r.merchant_product_id)).toEqual(sorted);
    }
  });
});

describe('a product in the shopper’s language', () => {
  const khamrahNames = {
    en: { name: 'Khamrah', house: 'Lattafa' },
    ar: { name: 'خمرة', house: 'لطافة' },
  };
  const shop = () =>
    new CompiledProducts(1, [
      product('ar-listing', { name: 'خمرة من لطافة 100 مل', house: 'لطافة', names: khamrahNames }),
      product('en-listing', {
        name: 'Sauvage Dior 100ml',
        house: 'Dior',
        names: { en: { name: 'Sauvage', house: 'Dior' }, ar: { name: 'سوفاج', house: null } },
      }),
      product('no-arabic', {
        name: 'Oud Wood',
        house: 'Tom Ford',
        names: { en: { name: 'Oud Wood', house: 'Tom Ford' }, ar: { name: null, house: null } },
      }),
      product('unmatched', { name: 'عطر المساء', house: 'دار' }),
      product('supplement', { name: 'ݐݑݒ', house: 'x', names: khamrahNames }),
    ]);
  const rec = (s: CompiledProducts, id: string) => {
    const p = s.products.find((x) => x.merchantProductId === id) as ScoringProduct;
    return { merchant_product_id: id, name: p.name, house: p.house } as Recommendation;
  };

  it('an Arabic listing read in English takes the catalog’s English name and house; read in Arabic it stays as written', () => {
    const s = shop();
    const r = rec(s, 'ar-listing');
    expect(s.inLocale(r, 'en')).toMatchObject({ name: 'Khamrah', house: 'Lattafa' });
    expect(s.inLocale(r, 'ar')).toBe(r);
  });

  it('an English listing read in Arabic takes the Arabic name, and keeps its house where the catalog has no Arabic one', () => {
    const s = shop();
    const r = rec(s, 'en-listing');
    expect(s.inLocale(r, 'ar')).toMatchObject({ name: 'سوفاج', house: 'Dior' });
    expect(s.inLocale(r, 'en')).toBe(r);
  });

  it('the merchant’s own name where the catalog has none in that language, or the product is not matched', () => {
    const s = shop();
    const noArabic = rec(s, 'no-arabic');
    expect(s.inLocale(noArabic, 'ar')).toBe(noArabic);
    const unmatched = rec(s, 'unmatched');
    expect(s.inLocale(unmatched, 'en')).toBe(unmatched);
  });

  it('letters of the Arabic supplement are Arabic script too', () => {
    const s = shop();
    const r = rec(s, 'supplement');
    expect(s.inLocale(r, 'ar')).toBe(r);
    expect(s.inLocale(r, 'en')).toMatchObject({ name: 'Khamrah' });
  });
});

describe('a product inspired by another perfume', () => {
  const AVENTUS = {
    id: 'creed-aventus-edp',
    en: { name: 'Aventus', house: 'Creed' },
    ar: { name: 'أفينتوس', house: 'كريد' },
  };
  const shop = () =>
    new CompiledProducts(1, [
      product('answer', {
        perfumeId: 'h-answer-edp',
        name: 'Club de Nuit Intense',
        house: 'Armaf',
        quality: 'inspired',
        inspiredBy: AVENTUS,
      }),
      product('no-arabic', {
        perfumeId: 'h-other-edp',
        quality: 'inspired',
        inspiredBy: { id: 'x-edp', en: { name: 'Original', house: 'House' }, ar: { name: null, house: null } },
      }),
      product('own', { perfumeId: 'h-own-edp', quality: 'full' }),
    ]);

  it('names the original in the answer, in English from the engine and in Arabic for an Arabic shopper', () => {
    const s = shop();
    const all = [...s.score(quiz, 24).recommendations, ...s.score(quiz, 24).also_explore];
    const by = Object.fromEntries(all.map((r) => [r.merchant_product_id, r]));
    expect(by.answer?.inspired_by).toEqual({
      sillage_perfume_id: 'creed-aventus-edp',
      name: 'Aventus',
      house: 'Creed',
    });
    expect(by.own?.inspired_by).toBeUndefined();
    const answer = by.answer as Recommendation;
    expect(s.inLocale(answer, 'en')).toBe(answer);
    expect(s.inLocale(answer, 'ar').inspired_by).toEqual({
      sillage_perfume_id: 'creed-aventus-edp',
      name: 'أفينتوس',
      house: 'كريد',
    });
    // the product's own name is left as the merchant wrote it (it has no names of ours here)
    expect(s.inLocale(answer, 'ar')).toMatchObject({ name: 'Club de Nuit Intense', house: 'Armaf' });
    // no Arabic name in the catalog: the English one
    const other = by['no-arabic'] as Recommendation;
    expect(s.inLocale(other, 'ar').inspired_by).toEqual({
      sillage_perfume_id: 'x-edp',
      name: 'Original',
      house: 'House',
    });
    const own = by.own as Recommendation;
    expect(s.inLocale(own, 'ar')).toBe(own);
  });
});

describe('alternatives to a loved perfume', () => {
  const LOVED = {
    id: 'lattafa-khamrah-edp',
    name: 'Khamrah',
    house: 'Lattafa',
    families: ['amber'],
    accords: [
      { name: 'amber', weight: 1 },
      { name: 'sweet', weight: 0.8 },
      { name: 'cinnamon', weight: 0.5 },
    ],
    notes: [],
  };
  const OTHER = {
    id: 'citrus-edt',
    name: 'Citrus',
    house: 'Elsewhere',
    families: ['citrus'],
    accords: [
      { name: 'citrus', weight: 1 },
      { name: 'aquatic', weight: 0.7 },
    ],
    notes: [],
  };
  const as = (accords: [string, number][]) => ({
    ...product('x').profile,
    families: [],
    accords: accords.map(([name, weight]) => ({ name, weight })),
  });
  const amber = as([
    ['amber', 1],
    ['sweet', 0.8],
    ['cinnamon', 0.5],
  ]);
  const itself = { perfumeId: LOVED.id, quality: 'full' as const, line: 'lattafa|khamrah', lineHouse: 'Lattafa' };
  const shelf = () =>
    new CompiledProducts(1, [
      // the loved perfume itself, listed three times: its lowest price is the shop's
      product('k1', { ...itself, price: 130, profile: amber }),
      product('k2', { ...itself, price: 145, profile: amber }),
      product('k3', { ...itself, price: null, profile: amber }),
      // a flanker of it, as like it as can be and cheapest of all: a version, never an alternative
      product('k-intense', {
        perfumeId: 'lattafa-khamrah-intense-edp',
        quality: 'full',
        price: 10,
        line: 'lattafa|khamrah intense',
        lineHouse: 'Lattafa',
        profile: amber,
      }),
      // sold as inspired by it, though its own notes differ: first all the same
      product('dupe', {
        price: 85,
        quality: 'inspired',
        profile: as([
          ['oud', 1],
          ['amber', 0.3],
        ]),
        inspiredBy: { id: LOVED.id, en: { name: 'Khamrah', house: 'Lattafa' }, ar: { name: null, house: null } },
      }),
      // as similar as can be: the cheaper first, a product without a price last
      product('sim-dear', { price: 200, profile: amber }),
      product('sim-cheap', { price: 90, profile: amber }),
      product('sim-noprice', { price: null, profile: amber }),
      product('sim-usd', { price: 95, currency: 'USD', profile: amber }),
      product('near', {
        price: 40,
        profile: as([
          ['amber', 1],
          ['sweet', 0.5],
          ['oud', 0.6],
        ]),
      }),
      product('far', { price: 10, profile: as([['citrus', 1]]) }),
    ]);
  const ask = (extra: object = {}, loved = [LOVED, OTHER]) => {
    const r = normalizeQuiz({ loved_perfumes: loved.map((l) => l.id), ...extra });
    if (!r.ok) throw new Error('quiz');
    return shelf().score(r.quiz, 6, { loved, disliked: [] }).alternatives ?? [];
  };

  it('declared ones first, then the most similar, the cheaper among equals; never the perfume itself', () => {
    const [khamrah, other] = ask();
    expect(khamrah?.to).toEqual({ sillage_perfume_id: LOVED.id, name: 'Khamrah', house: 'Lattafa' });
    expect(khamrah?.shop_price).toBe(130);
    expect(khamrah?.products.map((p) => [p.merchant_product_id, p.declared_inspired_by, p.price_difference])).toEqual([
      ['dupe', true, -45],
      ['sim-cheap', false, -40],
      // another currency than the shop's price of it: no difference to give
      ['sim-usd', false, null],
    ]);
    // the other loved perfume: what is closest to it, and no shop price
    expect(other?.shop_price).toBeNull();
    expect(other?.products.map((p) => [p.merchant_product_id, p.price_difference])).toEqual([['far', null]]);
  });

  it('among equals, a product without a price comes after those with one', () => {
    const [khamrah] = ask({ budget: undefined, disliked_perfumes: [] }, [LOVED]);
    const r = normalizeQuiz({ loved_perfumes: [LOVED.id] });
    if (!r.ok) throw new Error('quiz');
    const s = new CompiledProducts(1, [
      product('sim-noprice', { price: null, profile: amber }),
      product('sim-dear', { price: 200, profile: amber }),
    ]);
    expect(
      s
        .score(r.quiz, 6, { loved: [LOVED], disliked: [] })
        .alternatives?.[0]?.products.map((p) => p.merchant_product_id),
    ).toEqual(['sim-dear', 'sim-noprice']);
    expect(khamrah?.products).toHaveLength(3);
  });

  it('nothing the quiz rules out, and nothing below the similarity of an alternative', () => {
    const [khamrah] = ask({ budget: { max: 60 } }, [LOVED]);
    // "near" is similar enough and within the budget; "far" is within it but not similar
    expect(khamrah?.products.map((p) => p.merchant_product_id)).toEqual(['near']);
    expect(ask({ kinds: ['oil'] }, [LOVED])[0]?.products).toEqual([]);
  });

  it('never an alternative the shopper would dislike: a product scored below 50 is left out, however similar', () => {
    const disliking = ask(
      { accord_ratings: { amber: 'dislike', sweet: 'dislike', cinnamon: 'dislike' }, loved_perfumes: [LOVED.id] },
      [LOVED],
    );
    expect(disliking[0]?.products).toEqual([]);
    // the same shelf, the taste not against it: they are there
    expect(ask({}, [LOVED])[0]?.products.length).toBe(3);
  });

  it('compares prices of one currency: the shop price in its main currency, each difference in the product’s own', () => {
    const r = normalizeQuiz({ loved_perfumes: [LOVED.id] });
    if (!r.ok) throw new Error('quiz');
    const s = new CompiledProducts(1, [
      product('k-usd', { ...itself, price: 40, currency: 'USD', profile: amber }),
      product('k-sar', { ...itself, price: 145, profile: amber }),
      product('sim-sar', { price: 120, profile: amber }),
      product('sim-usd', { price: 30, currency: 'USD', profile: amber }),
      product('sim-aed', { price: 100, currency: 'AED', profile: amber }),
    ]);
    const [alt] = s.score(r.quiz, 6, { loved: [LOVED], disliked: [] }).alternatives ?? [];
    expect([alt?.shop_price, alt?.shop_currency]).toEqual([145, 'SAR']);
    expect(Object.fromEntries(alt?.products.map((p) => [p.merchant_product_id, p.price_difference]) ?? [])).toEqual({
      'sim-sar': -25,
      'sim-usd': -10,
      'sim-aed': null,
    });
  });

  it('keeps the best three whatever the shop’s order: the cheaper among equals, a worse one never displacing', () => {
    const r = normalizeQuiz({ loved_perfumes: [LOVED.id] });
    if (!r.ok) throw new Error('quiz');
    const alternatives = (products: ScoringProduct[]) =>
      new CompiledProducts(1, products).score(r.quiz, 6, { loved: [LOVED], disliked: [] }).alternatives?.[0];
    const listedOnlyInDollars = alternatives([
      product('a-dear', { price: 200, profile: amber }),
      product('b-cheap', { price: 90, profile: amber }),
      product('c-mid', { price: 150, profile: amber }),
      product('d-dearest', { price: 300, profile: amber }),
      product('k-usd', { ...itself, price: 40, currency: 'USD', profile: amber }),
    ]);
    expect(listedOnlyInDollars?.products.map((p) => p.merchant_product_id)).toEqual(['b-cheap', 'c-mid', 'a-dear']);
    // the shop lists the loved perfume in dollars only: that price, said to be in dollars, and no difference in riyals
    expect([listedOnlyInDollars?.shop_price, listedOnlyInDollars?.shop_currency]).toEqual([40, 'USD']);
    expect(listedOnlyInDollars?.products.map((p) => p.price_difference)).toEqual([null, null, null]);
    const withoutPrice = alternatives([
      product('k', { ...itself, price: 145, profile: amber }),
      product('s', { price: null, profile: amber }),
    ]);
    expect(withoutPrice?.products.map((p) => [p.merchant_product_id, p.price_difference])).toEqual([['s', null]]);
  });

  it('a product sold as the answer to a disliked perfume is never shown, as an alternative or otherwise', () => {
    const r = normalizeQuiz({
      loved_perfumes: [OTHER.id],
      disliked_perfumes: [LOVED.id],
      families: ['oud'],
      accord_ratings: { oud: 'love' },
    });
    if (!r.ok) throw new Error('quiz');
    const answer = shelf().score(r.quiz, 24, { loved: [OTHER], disliked: [LOVED] });
    const shown = [
      ...answer.recommendations,
      ...answer.also_explore,
      ...(answer.alternatives ?? []).flatMap((a) => a.products),
    ].map((p) => p.merchant_product_id);
    expect(shown).not.toContain('dupe');
    expect(shown).not.toContain('k1');
    // not disliked, it is shown
    const liked = normalizeQuiz({ families: ['oud'], accord_ratings: { oud: 'love' } });
    if (!liked.ok) throw new Error('quiz');
    const plain = shelf().score(liked.quiz, 24);
    expect([...plain.recommendations, ...plain.also_explore].map((p) => p.merchant_product_id)).toContain('dupe');
  });

  it('no loved perfume, no alternatives block', () => {
    expect(shelf().score(quiz, 6).alternatives).toBeUndefined();
  });
});

describe('notes of a profile', () => {
  it('every tier, canonical, each once; a missing tier is none', () => {
    expect(notesOf({ heart: ['Rose'] })).toEqual(['rose']);
    expect(notesOf({ base: ['Vanilla'], top: ['برغموت', 'Bergamot'] })).toEqual(['bergamot', 'vanilla']);
    expect(notesOf({})).toEqual([]);
    // asked again: the same answer
    expect(notesOf({ heart: ['Rose'] })).toEqual(['rose']);
  });
});
