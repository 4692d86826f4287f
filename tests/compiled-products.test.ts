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

describe('notes of a profile', () => {
  it('every tier, canonical, each once; a missing tier is none', () => {
    expect(notesOf({ heart: ['Rose'] })).toEqual(['rose']);
    expect(notesOf({ base: ['Vanilla'], top: ['برغموت', 'Bergamot'] })).toEqual(['bergamot', 'vanilla']);
    expect(notesOf({})).toEqual([]);
    // asked again: the same answer
    expect(notesOf({ heart: ['Rose'] })).toEqual(['rose']);
  });
});
