import { beforeEach, describe, expect, it } from 'vitest';
import { buildSearchIndex, work } from '../catalog/search.ts';
import {
  alignment,
  listingHouse,
  type MatcherCatalog,
  type MatchResult,
  matchListing,
  PAIR_BUDGET,
  parseListing,
  saysNoHouse,
} from '../matching/matcher.ts';
import { bundledSnapshot } from './bundled-snapshot.ts';

/**
 * The matcher's rules one by one, on a small catalog made for them: each
 * answer held exactly (the perfume, the confidence, the reason an operator
 * reads, the closest candidates), so that a rule removed changes what a
 * shop or an operator sees.
 */
const houses = [
  { name: 'Dior', nameAr: 'ديور', aliases: ['Christian Dior'], abbreviations: ['CD'] },
  { name: 'Creed', aliases: [], abbreviations: [] },
  { name: 'Lattafa', nameAr: 'لطافة', aliases: [], abbreviations: [] },
  { name: 'Rasasi', nameAr: 'الرصاصي', aliases: [], abbreviations: [] },
  { name: 'Tom Ford', aliases: [], abbreviations: ['TF'] },
  { name: 'Valentino', aliases: [], abbreviations: [] },
  { name: 'Rabanne', aliases: ['Paco Rabanne'], abbreviations: [] },
  { name: 'Jo Malone', aliases: ['Jo Malone London'], abbreviations: [] },
  { name: 'Montblanc', aliases: [], abbreviations: [] },
  { name: 'Hugo Boss', aliases: ['Boss'], abbreviations: [] },
  { name: 'Chloe', aliases: [], abbreviations: [] },
  { name: 'Acqua di Parma', aliases: [], abbreviations: [] },
  { name: 'Gucci', nameAr: 'قوتشي', aliases: [], abbreviations: [] },
  { name: 'Jean Paul Gaultier', aliases: ['Gaultier'], abbreviations: ['JPG'] },
  { name: 'Chanel', nameAr: 'شانيل', aliases: [], abbreviations: [] },
  { name: 'Parfums de Marly', aliases: [], abbreviations: ['PDM'] },
  { name: 'Afnan', aliases: [], abbreviations: [] },
  { name: 'Paris Corner', aliases: [], abbreviations: [] },
];
const P = (
  id: string,
  name: string,
  house: string,
  concentration: string,
  gender: string,
  year: number,
  more: { nameAr?: string; aliases?: string[] } = {},
) => ({ id, name, house, concentration, gender, year, ...more });
const perfumes = [
  P('sauvage-edt', 'Sauvage', 'Dior', 'edt', 'men', 2015, { nameAr: 'سوفاج' }),
  P('sauvage-edp', 'Sauvage', 'Dior', 'edp', 'men', 2018, { nameAr: 'سوفاج' }),
  P('sauvage-parfum', 'Sauvage', 'Dior', 'parfum', 'men', 2019, { nameAr: 'سوفاج' }),
  P('sauvage-elixir', 'Sauvage', 'Dior', 'elixir', 'men', 2021, { nameAr: 'سوفاج' }),
  P('homme-cologne', 'Dior Homme Cologne', 'Dior', 'edc', 'men', 2013),
  P('homme-intense', 'Dior Homme Intense', 'Dior', 'edp', 'men', 2011),
  P('jadore', "J'adore", 'Dior', 'edp', 'women', 1999),
  P('aventus', 'Aventus', 'Creed', 'edp', 'men', 2010),
  P('aventus-her', 'Aventus for Her', 'Creed', 'edp', 'women', 2016),
  P('khamrah', 'Khamrah', 'Lattafa', 'edp', 'unisex', 2022, { nameAr: 'خمرة' }),
  P('khamrah-qahwa', 'Khamrah Qahwa', 'Lattafa', 'edp', 'unisex', 2023, { nameAr: 'خمرة قهوة' }),
  P('yara', 'Yara', 'Lattafa', 'edp', 'women', 2020, { nameAr: 'يارا' }),
  P('yara-moi', 'Yara Moi', 'Lattafa', 'edp', 'women', 2022),
  P('hawas', 'Hawas for Him', 'Rasasi', 'edp', 'men', 2015, { nameAr: 'هوس' }),
  P('oud-wood', 'Oud Wood', 'Tom Ford', 'edp', 'unisex', 2007),
  P('tobacco-vanille', 'Tobacco Vanille', 'Tom Ford', 'edp', 'unisex', 2007),
  P('donna', 'Donna', 'Valentino', 'edp', 'women', 2015),
  P('phantom', 'Phantom', 'Rabanne', 'edt', 'men', 2021),
  P('zahrat-layl-elixir', 'Zahrat Layl', 'Lattafa', 'elixir', 'unisex', 2023),
  P('wood-sage', 'Wood Sage & Sea Salt', 'Jo Malone', 'edc', 'unisex', 2014),
  P('explorer', 'Explorer', 'Montblanc', 'edp', 'men', 2019),
  P('bottled', 'Boss Bottled', 'Hugo Boss', 'edt', 'men', 1998),
  P('chloe', 'Chloe', 'Chloe', 'edp', 'women', 2008),
  P('colonia', 'Colonia', 'Acqua di Parma', 'edc', 'unisex', 1916),
  P('musk-oil', 'White Musk', 'Rasasi', 'oil', 'unisex', 2010),
  P('guilty', 'Guilty Pour Homme', 'Gucci', 'edt', 'men', 2011),
  P('mystery', 'Oud Mystery', 'Lattafa', 'edp', 'unisex', 2019),
  P('mastery', 'Oud Mastery', 'Lattafa', 'edp', 'unisex', 2021),
  P('one-million', 'One Million', 'Rabanne', 'edt', 'men', 2008),
  P('lhomme', "L'Homme", 'Valentino', 'edt', 'men', 2014),
  P('amira', 'Amira', 'Lattafa', 'edp', 'women', 2018, { nameAr: 'اميرة' }),
  P('amir', 'Amir', 'Lattafa', 'edp', 'men', 2018, { nameAr: 'امير' }),
  P('le-male', 'Le Male', 'Jean Paul Gaultier', 'edt', 'men', 1995),
  P('le-male-elixir', 'Le Male Elixir', 'Jean Paul Gaultier', 'parfum', 'men', 2023),
  P('le-male-le-parfum', 'Le Male Le Parfum', 'Jean Paul Gaultier', 'edp', 'men', 2020),
  P('no5-edp', 'N°5', 'Chanel', 'edp', 'women', 1986),
  P('bleu-edc', 'Bleu de Chanel', 'Chanel', 'edc', 'men', 2010),
  P('bleu-parfum', 'Bleu de Chanel', 'Chanel', 'parfum', 'men', 2018),
  P('layton', 'Layton', 'Parfums de Marly', 'edp', 'men', 2016),
  P('9pm', '9PM', 'Afnan', 'edp', 'men', 2020),
  P('9am', '9AM Dive', 'Afnan', 'edp', 'men', 2021),
  { ...P('ombre', 'Ombre Leather', 'Tom Ford', '', 'unisex', 2018), concentration: null },
  P('oud-wood-rasasi', 'Oud Wood', 'Rasasi', 'edp', 'unisex', 2012),
  P('le-oud', 'Le Oud', 'Rasasi', 'edp', 'unisex', 2013),
  P('qissa', 'Qissa', 'Paris Corner', 'edp', 'women', 2021),
];

// built afresh for each test (a few milliseconds): the mutation run then knows every test uses it
let catalog: MatcherCatalog;
beforeEach(() => {
  catalog = { index: buildSearchIndex(perfumes, houses), perfumes };
});
const match = (name: string, house: string): MatchResult => matchListing(catalog, { name, house });
const c = (perfumeId: string, score: number) => ({ perfumeId, score });

describe('what is not a perfume is refused as such, before any name is compared', () => {
  it.each([
    ['Sauvage Shower Gel', 'Dior', 'bath product'],
    ['Sauvage After Shave Lotion', 'Dior', 'body care'],
    ['Sauvage Aftershave', 'Dior', 'aftershave'],
    ['Oud Wood Candle', 'Tom Ford', 'home fragrance'],
    ['Aventus Gift Case', 'Creed', 'accessory or empty bottle'],
    ['Hawas Bakhoor', 'Rasasi', 'incense product'],
    ['Khamrah Hair Mist', 'Lattafa', 'hair or body mist'],
  ])('%s by %s: %s', (name, house, what) => {
    // each names a perfume of ours exactly: only the not-a-perfume rule refuses it
    expect(match(name, house)).toEqual({ perfumeId: null, confidence: 0, reason: `not a perfume (${what})` });
  });
});

describe('gender', () => {
  it('a unisex perfume is never penalised for a gendered listing', () => {
    expect(match('Khamrah for men', 'Lattafa')).toMatchObject({ perfumeId: 'khamrah', confidence: 0.96 });
    expect(match('Oud Wood for women', 'Tom Ford')).toMatchObject({ perfumeId: 'oud-wood', confidence: 0.96 });
  });

  it('a perfume for the other gender is penalised: "Sauvage for women" is no Sauvage', () => {
    expect(match('Sauvage for women', 'Dior')).toEqual({
      perfumeId: null,
      confidence: 0.576,
      reason: 'closest is Sauvage (edt) by Dior, too far from "Sauvage for women"',
      candidates: [c('sauvage-edt', 0.576), c('sauvage-edp', 0.576), c('sauvage-parfum', 0.576)],
    });
    // the gender words of the listing name the version for that gender
    expect(match('Aventus for women', 'Creed')).toMatchObject({
      perfumeId: 'aventus-her',
      confidence: 1,
      candidates: [c('aventus-her', 1), c('aventus', 0.576)],
    });
  });
});

describe('stays unmatched when unsure, and says why', () => {
  it('two lines explain the listing equally well: ambiguous, with both named', () => {
    expect(match('Oud Mostery', 'Lattafa')).toEqual({
      perfumeId: null,
      confidence: 0.925,
      reason: 'ambiguous between Oud Mystery and Oud Mastery',
      candidates: [c('mystery', 0.925), c('mastery', 0.925)],
    });
    // the listing that names one exactly is no longer ambiguous
    expect(match('Oud Mystery', 'Lattafa')).toMatchObject({ perfumeId: 'mystery', confidence: 1 });
  });

  it('a house and a concentration alone name no perfume: the closest is too far', () => {
    expect(match('Dior EDP 100ml', 'Dior')).toMatchObject({
      perfumeId: null,
      reason: 'closest is Dior Homme Intense (edp) by Dior, too far from "Dior EDP 100ml"',
    });
    expect(match('Lattafa', 'Lattafa')).toMatchObject({
      perfumeId: null,
      confidence: 0,
      reason: 'closest is Amir (edp) by Lattafa, too far from "Lattafa"',
    });
  });

  it('a flanker the catalog lacks is too far from its original', () => {
    expect(match('Sauvage Intense', 'Dior')).toEqual({
      perfumeId: null,
      confidence: 0.5,
      reason: 'closest is Sauvage (edt) by Dior, too far from "Sauvage Intense"',
      candidates: [c('sauvage-edt', 0.5), c('sauvage-edp', 0.5), c('sauvage-parfum', 0.5)],
    });
  });

  it('a house we lack, named in the field, is refused whatever the name', () => {
    expect(match('Khamrah', 'Zara')).toEqual({
      perfumeId: null,
      confidence: 0,
      reason: 'house "Zara" is not in our catalog',
    });
    expect(match('Khamrah', 'Z'.repeat(100)).reason).toBe(`house "${'Z'.repeat(80)}" is not in our catalog`);
  });

  it('no perfume of the house is named like this', () => {
    expect(match('Aventus', 'Dior')).toEqual({
      perfumeId: null,
      confidence: 0,
      reason: 'no perfume of Dior is named like this',
    });
  });

  it('the reason quotes at most 80 characters of the listing', () => {
    const long = `Sauvage Intense ${'x'.repeat(100)}`;
    expect(match(long, 'Dior').reason).toBe(
      `closest is Dior Homme Intense (edp) by Dior, too far from "Sauvage Intense ${'x'.repeat(64)}"`,
    );
  });
});

describe('concentrations: the one named, a sibling, or a refusal', () => {
  it('no concentration named: the line original, said so', () => {
    expect(match('Sauvage', 'Dior')).toEqual({
      perfumeId: 'sauvage-edt',
      confidence: 1,
      sibling: false,
      reason: 'Sauvage edt by Dior, no concentration listed: the line original',
      candidates: [c('sauvage-edt', 1), c('sauvage-edp', 1), c('sauvage-parfum', 1)],
    });
  });

  it('the concentration named, when the line has it', () => {
    expect(match('Sauvage EDP', 'Dior')).toMatchObject({
      perfumeId: 'sauvage-edp',
      confidence: 1,
      sibling: false,
      reason: 'Sauvage edp by Dior',
    });
    expect(match('Sauvage Elixir', 'Dior')).toMatchObject({
      perfumeId: 'sauvage-elixir',
      reason: 'Sauvage elixir by Dior',
    });
  });

  it('a concentration the line lacks: the nearest by strength, as a sibling, with 0.9 of the confidence', () => {
    expect(match('Phantom Parfum', 'Rabanne')).toEqual({
      perfumeId: 'phantom',
      confidence: 0.9,
      sibling: true,
      reason: 'Phantom edt by Rabanne; listed as parfum, which the catalog lacks: recommended as a sibling of the edt',
      candidates: [c('phantom', 1)],
    });
  });

  it('an elixir the line lacks is a composition of its own: refused, with the versions held', () => {
    expect(match('Phantom Elixir', 'Rabanne')).toEqual({
      perfumeId: null,
      confidence: 0,
      reason: 'Phantom by Rabanne exists as edt, not elixir',
      candidates: [c('phantom', 1)],
    });
    expect(match('Yara Elixir', 'Lattafa')).toMatchObject({
      perfumeId: null,
      reason: 'Yara by Lattafa exists as edp, not elixir',
    });
  });

  it('a line held only as an elixir lacks the perfume a listing naming no elixir is', () => {
    expect(match('Zahrat Layl 100ml', 'Lattafa')).toEqual({
      perfumeId: null,
      confidence: 0,
      reason: 'Zahrat Layl by Lattafa is held as an elixir only; the listing names no elixir',
      candidates: [c('zahrat-layl-elixir', 1)],
    });
    expect(match('Zahrat Layl Elixir 100ml', 'Lattafa')).toMatchObject({
      perfumeId: 'zahrat-layl-elixir',
      confidence: 1,
    });
    // a line that has more than its elixir gives a listing naming none its original
    expect(match('Sauvage 100ml', 'Dior')).toMatchObject({ perfumeId: 'sauvage-edt' });
  });

  it('a spray of a line held only as an oil is another product', () => {
    expect(match('White Musk Spray', 'Rasasi')).toEqual({
      perfumeId: null,
      confidence: 0,
      reason: 'White Musk by Rasasi is held as an oil; the listing is a spray',
      candidates: [c('musk-oil', 1)],
    });
    expect(match('White Musk', 'Rasasi')).toMatchObject({ perfumeId: 'musk-oil', confidence: 1 });
  });

  it('a name holding the concentration words takes them back and is the more specific reading', () => {
    expect(match('Dior Homme Cologne', 'Dior')).toMatchObject({
      perfumeId: 'homme-cologne',
      confidence: 1,
      candidates: [c('homme-cologne', 1.05), c('homme-intense', 0.667)],
    });
    expect(match('Dior Homme Cologne Eau de Cologne', 'Dior')).toMatchObject({
      perfumeId: 'homme-cologne',
      reason: 'Dior Homme Cologne edc by Dior',
    });
  });

  it('the nearest strength is taken: EDC 1, EDT 2, EDP 3, Parfum 4, Extrait 5', () => {
    // Bleu de Chanel is held as an EDC and a Parfum
    expect(match('Bleu de Chanel EDT', 'Chanel')).toMatchObject({ perfumeId: 'bleu-edc', sibling: true });
    expect(match('Bleu de Chanel Extrait', 'Chanel')).toMatchObject({ perfumeId: 'bleu-parfum', sibling: true });
    expect(match('Bleu de Chanel EDP', 'Chanel')).toMatchObject({
      perfumeId: 'bleu-parfum',
      sibling: true,
      reason:
        'Bleu de Chanel parfum by Chanel; listed as edp, which the catalog lacks: recommended as a sibling of the parfum',
    });
    expect(match('Bleu de Chanel', 'Chanel')).toMatchObject({ perfumeId: 'bleu-edc', sibling: false });
  });

  it('a concentration word the name holds is the name’s: "Le Male Elixir" is a Parfum named Elixir', () => {
    expect(match('Le Male Elixir', 'Jean Paul Gaultier')).toMatchObject({
      perfumeId: 'le-male-elixir',
      confidence: 1,
      reason: 'Le Male Elixir parfum by Jean Paul Gaultier, no concentration listed: the line original',
    });
    expect(match('Le Male Parfum', 'JPG')).toMatchObject({ perfumeId: 'le-male-le-parfum', confidence: 1 });
  });

  it('the words of its own concentration in the seller’s description explain themselves', () => {
    expect(match('Sauvage EDT Spray Eau de', 'Dior')).toMatchObject({ perfumeId: 'sauvage-edt', confidence: 1 });
  });

  it('a concentration word alone after the house is the name: "Acqua di Parma Colonia", كولونيا', () => {
    expect(match('Colonia', 'Acqua di Parma')).toMatchObject({ perfumeId: 'colonia', confidence: 1 });
    expect(match('كولونيا', 'Acqua di Parma')).toMatchObject({ perfumeId: 'colonia', confidence: 0.8 });
  });

  it('a perfume of no known concentration is named without one', () => {
    expect(match('Ombre Leather', 'Tom Ford').reason).toBe(
      'Ombre Leather by Tom Ford, no concentration listed: the line original',
    );
    expect(match('Ombre Leather Intense', 'Tom Ford').reason).toBe(
      'closest is Ombre Leather (?) by Tom Ford, too far from "Ombre Leather Intense"',
    );
  });

  it('"Cologne Intense" is how Jo Malone names its colognes, no flanker', () => {
    expect(match('Wood Sage Sea Salt Cologne Intense', 'Jo Malone')).toMatchObject({
      perfumeId: 'wood-sage',
      confidence: 0.98,
    });
    // "Eau de Cologne … Intense" and "Intense" alone are not that name: "intense" counts against
    expect(match('Wood Sage Sea Salt Eau de Cologne Intense', 'Jo Malone')).toMatchObject({ confidence: 0.8 });
    expect(match('Wood Sage Sea Salt Intense', 'Jo Malone')).toMatchObject({ confidence: 0.8 });
  });
});

describe('houses: the field, the title, placeholders and shops', () => {
  it('a house found only in the title costs 3% and is said so', () => {
    expect(match('Lattafa Khamrah EDP', 'Perfume Palace')).toEqual({
      perfumeId: 'khamrah',
      confidence: 0.97,
      sibling: false,
      reason: 'Khamrah edp by Lattafa (house found in the name)',
      candidates: [c('khamrah', 1), c('khamrah-qahwa', 0.5)],
    });
  });

  it('no house at all: a distinctive name alone, at 0.9 of the confidence, said so', () => {
    expect(match('Khamrah Qahwa', 'Unbranded')).toEqual({
      perfumeId: 'khamrah-qahwa',
      confidence: 0.9,
      sibling: false,
      reason:
        'Khamrah Qahwa edp by Lattafa (no house given: recognised by its name alone), no concentration listed: the line original',
      candidates: [c('khamrah-qahwa', 1), c('khamrah', 0.5)],
    });
    for (const field of ['AS SHOWN', '', 'Scent Hub Riyadh', 'متجر ريحان']) {
      expect(match('Khamrah', field), field).toMatchObject({ perfumeId: 'khamrah', confidence: 0.9 });
    }
    // a sibling without a house: both factors
    expect(match('Khamrah Qahwa EDT', 'AS SHOWN')).toMatchObject({
      perfumeId: 'khamrah-qahwa',
      confidence: 0.81,
      sibling: true,
    });
  });

  it('no house, and the name could be several perfumes or is too short: refused, with the closest named', () => {
    expect(match('Oud Mostery', '')).toEqual({
      perfumeId: null,
      confidence: 0,
      reason: 'no house given; the name alone does not say which perfume (closest: Oud Mystery by Lattafa)',
      candidates: [c('mystery', 0.925), c('mastery', 0.925), c('oud-wood', 0.5)],
    });
    expect(match('Oud', '').reason).toBe(
      'no house given; the name alone does not say which perfume (closest: Le Oud by Rasasi)',
    );
    // two houses have an Oud Wood: the name alone cannot say whose
    expect(match('Oud Wood', '')).toMatchObject({
      perfumeId: null,
      reason: 'no house given; the name alone does not say which perfume (closest: Oud Wood by Tom Ford)',
      candidates: [c('oud-wood', 1), c('oud-wood-rasasi', 1), c('le-oud', 0.5)],
    });
    expect(match('Oud Wood', 'Tom Ford')).toMatchObject({ perfumeId: 'oud-wood', confidence: 1 });
    // the name itself must be distinctive: "Le Oud" is three letters once "Le" is set aside
    expect(match('Le Oud', '')).toMatchObject({
      perfumeId: null,
      candidates: [c('le-oud', 1), c('le-male', 0.5), c('oud-wood', 0.5)],
    });
    expect(match('Le Oud', 'Rasasi')).toMatchObject({ perfumeId: 'le-oud', confidence: 1 });
    // explained less than 95%, though nothing else comes near: with no house, refused
    expect(match('Khamrah Qahwx', 'Unbranded')).toMatchObject({
      perfumeId: null,
      reason:
        'house "Unbranded" is not in our catalog; the name alone does not say which perfume (closest: Khamrah Qahwa by Lattafa)',
    });
    expect(match('Khamrah Qahwx', 'Lattafa')).toMatchObject({ perfumeId: 'khamrah-qahwa', confidence: 0.925 });
    expect(match('Oud Mystery', 'AS SHOWN')).toMatchObject({ perfumeId: 'mystery', confidence: 0.9 });
    // four letters are enough to be distinctive
    expect(match('Amir', '')).toMatchObject({ perfumeId: 'amir', confidence: 0.9 });
  });

  it('a listing that names no perfume at all', () => {
    expect(match('Tester', 'Dior')).toEqual({
      perfumeId: null,
      confidence: 0,
      reason: 'the listing names no perfume, only a house',
    });
    expect(match('Tester', 'Unbranded')).toEqual({
      perfumeId: null,
      confidence: 0,
      reason: 'house "Unbranded" is not in our catalog',
    });
    expect(match('Dior', 'Dior').reason).toBe('closest is Dior Homme Intense (edp) by Dior, too far from "Dior"');
    expect(match('Xyzzy Plugh', '')).toEqual({
      perfumeId: null,
      confidence: 0,
      reason: 'no house given, and no perfume of ours is named like this',
    });
    expect(match('Xyzzy Plugh', 'Unbranded').reason).toBe(
      'house "Unbranded" is not in our catalog, and no perfume of ours is named like this',
    );
    expect(match('Tester', '')).toEqual({
      perfumeId: null,
      confidence: 0,
      reason: 'no house given, and the listing names no perfume',
    });
  });

  it('a house field with a shop’s words around the house is that house', () => {
    for (const field of [
      'Lattafa Perfumes Official',
      'لطافة للعطور',
      'عطور لطافة',
      'Lattafa Store',
      'Lattafa Shop',
      'Lattafa Fragrances KSA',
      'Lattafa Fragrance',
      'Lattafa Perfume',
      'Lattafa Parfums',
      'Lattafa Parfum',
      'Lattafa UAE',
      'Lattafa Paris',
      'Lattafa London',
    ]) {
      expect(match('Khamrah', field), field).toMatchObject({ perfumeId: 'khamrah', confidence: 1 });
    }
  });

  it('house words are optional in the listing, typos of them included: "Hogo Boss", "MONT BLANC"', () => {
    expect(match('Boss Bottled', 'Hogo Boss')).toMatchObject({ perfumeId: 'bottled', confidence: 1 });
    expect(match('Hogo Boss Bottled', 'Hugo Boss')).toMatchObject({ perfumeId: 'bottled', confidence: 1 });
    expect(match('Mont Blanc Explorer', 'Montblanc')).toMatchObject({ perfumeId: 'explorer', confidence: 1 });
    expect(match('Explorer', 'MONT BLANC')).toMatchObject({ perfumeId: 'explorer', confidence: 1 });
    // two house words written as one
    expect(match('Parfums deMarly Layton', 'Parfums de Marly')).toMatchObject({ perfumeId: 'layton', confidence: 1 });
  });

  it('"by" written onto a house of ours is read apart', () => {
    expect(match('Sauvage ByDIOR', '')).toMatchObject({ perfumeId: 'sauvage-edt', confidence: 0.97 });
    expect(match('Aventus ByDior', '').reason).toBe('no perfume of Dior is named like this');
    // a house key of two letters is too short to be read so: "Bycd" is no "by CD"
    expect(match('Sauvage Bycd', '').perfumeId).toBeNull();
  });

  it('a perfume named after its house, listed by the house name and a gender', () => {
    expect(match('Chloe EDP', 'Chloe')).toMatchObject({ perfumeId: 'chloe', confidence: 1 });
    expect(match('Valentino Donna', 'Valentino')).toMatchObject({ perfumeId: 'donna', confidence: 1 });
  });

  it('listingHouse: the field first, then the title', () => {
    const parsed = parseListing('Lattafa Khamrah');
    expect(listingHouse(catalog.index, 'Dior', parsed)).toEqual({ house: 'Dior', from: 'house' });
    expect(listingHouse(catalog.index, 'Rasasi Perfumes', parsed)).toEqual({ house: 'Rasasi', from: 'house' });
    expect(listingHouse(catalog.index, 'AS SHOWN', parsed)).toEqual({ house: 'Lattafa', from: 'name' });
    expect(listingHouse(catalog.index, 'AS SHOWN', parseListing('Khamrah'))).toEqual({ house: null, from: null });
    // the longest house named in the title
    expect(listingHouse(catalog.index, '', parseListing('Jo Malone London Wood Sage'))).toEqual({
      house: 'Jo Malone',
      from: 'name',
    });
    // a one- or two-letter house key ("CD", "TF") is too easy to meet by chance in a title
    expect(listingHouse(catalog.index, '', parseListing('CD Sauvage'))).toEqual({ house: null, from: null });
    expect(listingHouse(catalog.index, '', parseListing('TF Oud Wood'))).toEqual({ house: null, from: null });
  });
});

describe('saysNoHouse: placeholders and shops are no house', () => {
  it.each([
    'AS SHOWN',
    'As Show',
    'as showed',
    'As Seen',
    'As Pictured',
    'As Picture',
    'As Picture Shown',
    'As Photo',
    'As Pic',
    'As Image',
    'See Photo',
    'See Pics',
    'Unbranded',
    'No Brand',
    'Nonbranded',
    'Non Branded',
    'Generic',
    'Unknown',
    'None',
    'N/A',
    'Various',
    'Assorted',
    'Multiple Brands',
    'Mixed',
    'Other',
    'Others',
    'Brand',
    'Designer',
    'Designer Brand',
    'Cologne',
    'Perfumes',
    'Fragrance',
    'Unisex',
    'Mens',
    "Women's",
    'غير محدد',
    'متنوع',
    'بدون ماركة',
    'عطور',
    'عطر',
    '',
    'متجر ريحان',
    'Scent Store',
    'Oud Shop',
    'Boutique Noor',
    'Perfume Outlet',
    'Riyadh Mall',
    'Scent Hub',
    'Perfumes KSA',
    'Best Riyadh',
    'Jeddah Scents',
    'Dubai Duty Free',
  ])('"%s" is no house', (field) => {
    expect(saysNoHouse(field)).toBe(true);
  });

  it.each([
    'Dior',
    'As',
    'Asshown Parfums',
    'Generic Scents Co',
    'Brands Unlimited',
    'Jacques Bogart',
    'Histoires de Parfums',
    'Shopper',
    'Hubert',
    'Storey',
  ])('"%s" may be a house', (field) => {
    expect(saysNoHouse(field)).toBe(false);
  });
});

describe('word by word', () => {
  it('numbers written as words are the numbers: "One Million" is "1 Million"', () => {
    expect(match('1 Million', 'Rabanne')).toMatchObject({ perfumeId: 'one-million', confidence: 1 });
    const words = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
    words.forEach((w, i) => {
      expect(alignment([String(i + 1), 'million'], [w, 'million']), w).toBe(1);
      expect(alignment([w, 'million'], [String(i + 1), 'million']), w).toBe(1);
    });
    expect(alignment(['2', 'million'], ['one', 'million'])).toBe(0.5);
  });

  it('the sign before a number names nothing: N°5, No. 5, Number 5, Nr 5, رقم 5, نمبر 5', () => {
    for (const name of ['No 5', 'No. 5 EDP', 'Number 5', 'Nr 5', 'N 5', 'شانيل رقم 5', 'شانيل نمبر 5'])
      expect(match(name, 'Chanel'), name).toMatchObject({ perfumeId: 'no5-edp', confidence: 1 });
  });

  it('a code with digits that the name holds explains as much as any word: "9PM"', () => {
    expect(match('9PM', 'Afnan')).toMatchObject({
      perfumeId: '9pm',
      confidence: 1,
      candidates: [c('9pm', 1.001)],
    });
    expect(match('Afnan 9PM EDP', 'Afnan')).toMatchObject({ perfumeId: '9pm', reason: '9PM edp by Afnan' });
  });

  it('numbers are never read as typos of each other; a word with digits is', () => {
    expect(alignment(['1000'], ['1001'])).toBe(0);
    expect(alignment(['1000'], ['100x'])).toBe(0);
    expect(alignment(['100x'], ['1000'])).toBe(0);
    expect(alignment(['x1000'], ['x1001'])).toBe(0.85);
    expect(alignment(['1000x'], ['1001x'])).toBe(0.85);
  });

  it('a stock code of two or three letters and digits says nothing; a longer one does', () => {
    expect(match('Khamrah 7D', 'Lattafa')).toMatchObject({ perfumeId: 'khamrah', confidence: 1 });
    expect(match('Khamrah Y1', 'Lattafa')).toMatchObject({ perfumeId: 'khamrah', confidence: 1 });
    expect(match('Khamrah ab12', 'Lattafa')).toMatchObject({ perfumeId: null, confidence: 0.5 });
  });

  it.each([
    ...['intense', 'intensely', 'extreme', 'absolu', 'absolute', 'elixir', 'noir', 'black', 'night', 'nuit'],
    ...['sport', 'fraiche', 'leau', 'blue', 'bleu', 'red', 'rouge', 'white', 'blanc', 'gold', 'silver'],
    ...['platinum', 'rose', 'oud', 'leather', 'cuir', 'tobacco', 'vanilla', 'amber', 'summer', 'winter'],
    ...['spring', 'aqua', 'acqua', 'cool', 'ice', 'wild', 'prive', 'private', 'exclusive', 'reserve'],
    ...['collector', 'forte', 'flame', 'code', 'profumo', 'profondo', 'legend', 'royal', 'essence', 'vip'],
    ...['nyc', 'party', 'dream', 'love', 'secret', 'glam', 'tonic', 'blossom', 'bloom', 'delight', 'supreme'],
    'pink',
  ])('"%s" after the concentration names a flanker: "Khamrah EDP %s" is no Khamrah', (word) => {
    expect(match(`Khamrah EDP ${word}`, 'Lattafa').perfumeId).toBeNull();
    // any other word of the seller's there says nothing
    expect(match('Khamrah EDP Sparkly', 'Lattafa').perfumeId).toBe('khamrah');
  });

  it('Arabic linking words meet their Latin ones: بور هوم is Pour Homme', () => {
    expect(match('قوتشي قلتي بور هوم', 'قوتشي')).toMatchObject({ perfumeId: 'guilty', confidence: 0.8 });
    expect(alignment(['sauvage', 'بور'], ['sauvage', 'pour'])).toBe(1);
    expect(alignment(['بور', 'sauvage'], ['pour', 'sauvage'], new Set(), () => 1)).toBe(1);
  });

  it('a final ta marbuta makes another Arabic word: اميرة (princess) is not امير (prince)', () => {
    expect(match('امير', 'لطافة')).toMatchObject({ perfumeId: 'amir', candidates: [c('amir', 1), c('amira', 0)] });
    expect(match('اميره', 'لطافة')).toMatchObject({ perfumeId: 'amira', candidates: [c('amira', 1), c('amir', 0)] });
  });

  it('a typo costs once: one edit 0.85 of a word of four letters or more, two edits 0.7 of eight or more', () => {
    expect(alignment(['khamrah'], ['khamrah'])).toBe(1);
    expect(alignment(['kamrah'], ['khamrah'])).toBe(0.85);
    expect(alignment(['khamra', 'qahwa'], ['khamrah', 'qahwa'])).toBe(0.925);
    expect(alignment(['botlde'], ['bottled'])).toBe(0);
    expect(alignment(['explorar'], ['explorer'])).toBe(0.85);
    expect(alignment(['exploarr'], ['explorer'])).toBe(0.7);
    expect(alignment(['explaaar'], ['explorer'])).toBe(0);
    expect(alignment(['yra'], ['yara'])).toBe(0);
    expect(alignment(['yarx'], ['yara'])).toBe(0.85);
    // an article elided onto the word is another name
    expect(alignment(['lhomme'], ['homme'])).toBe(0);
    expect(alignment(['dorient'], ['orient'])).toBe(0);
  });

  it('a word of more than 24 letters is compared exactly only', () => {
    expect(alignment(['abcdefghijklmnopqrstuvwx'], ['abcdefghijklmnopqrstuvwy'])).toBe(0.85);
    expect(alignment(['abcdefghijklmnopqrstuvwxy'], ['abcdefghijklmnopqrstuvwxz'])).toBe(0);
    expect(alignment(['abcdefghijklmnopqrstuvwxz'], ['abcdefghijklmnopqrstuvwxy'])).toBe(0);
    expect(alignment(['abcdefghijklmnopqrstuvwxy'], ['abcdefghijklmnopqrstuvwxy'])).toBe(1);
  });

  it('a soft word the other side lacks explains nothing: it only costs 2%', () => {
    expect(alignment(['kamrah', 'for'], ['khamrah'])).toBe(0.85 * 0.98);
  });

  it('one match compares at most PAIR_BUDGET word pairs beyond exact equality, then words exactly only', () => {
    // 30 perfumes of one house, each with two words of its own: 24 listing words meet 25 candidates
    const own = Array.from({ length: 30 }, (_, i) =>
      P(`p${i}`, `Amber Kol${i}x Vam${i}z`, 'Ajmal', 'edp', 'men', 2000 + i),
    );
    const big = { index: buildSearchIndex(own, [{ name: 'Ajmal' }]), perfumes: own };
    const listing = `Amber ${Array.from({ length: 23 }, (_, i) => `zor${String.fromCharCode(97 + i)}ek`).join(' ')}`;
    const before = work.pairs;
    matchListing(big, { name: listing, house: 'Ajmal' });
    expect(work.pairs - before).toBe(PAIR_BUDGET);
    expect(PAIR_BUDGET).toBe(2000);
    // the next match has a budget of its own: a typo still found
    expect(matchListing(big, { name: 'Amber Kol3x Vam3', house: 'Ajmal' }).perfumeId).toBe('p3');
  });

  it('a missing soft word costs 2%; a listing of house words only names nothing', () => {
    expect(alignment(['guilty'], ['guilty', 'pour', 'homme'])).toBe(0.98 ** 2);
    expect(alignment(['guilty', 'pour', 'homme'], ['guilty'])).toBe(0.98 ** 2);
    expect(alignment(['dior'], ['sauvage'], new Set(['dior']))).toBe(0);
    expect(alignment(['dior', 'homme'], ['dior', 'homme'], new Set(['dior']))).toBe(1);
  });
});

describe('shop spellings a person reads at once', () => {
  it('an elided article that lost its apostrophe, or has a space after it, is the name: "L Homme" is L\'Homme', () => {
    for (const name of ['Valentino L Homme EDT', "Valentino L' Homme EDT", "Valentino L'Homme EDT"]) {
      expect(match(name, 'Valentino'), name).toEqual({
        perfumeId: 'lhomme',
        confidence: 1,
        sibling: false,
        reason: "L'Homme edt by Valentino",
        candidates: [c('lhomme', 1)],
      });
    }
    // "L Elixir", "L'Elixir": the elixir, its article elided onto it
    for (const name of ['Sauvage L Elixir 60ml', "Sauvage L'Elixir 60ml"]) {
      expect(match(name, 'Dior'), name).toMatchObject({ perfumeId: 'sauvage-elixir', confidence: 1 });
    }
    // "Pour Homme" is still not L'Homme
    expect(match('Valentino Pour Homme', 'Valentino').perfumeId).toBeNull();
  });

  it.each([
    ...['house', 'of', 'the', 'by', 'perfume', 'perfumes', 'parfum', 'parfums', 'fragrance', 'fragrances'],
    ...['perfumery', 'official', 'store', 'shop', 'online', 'LLC', 'FZE', 'FZCO', 'Co', 'Company', 'Group'],
    ...['Trading', 'Industries', 'International', 'دار', 'للعطور', 'عطور', 'العطور', 'الرسمي', 'متجر', 'شركة'],
    ...['Dubai', 'Abu', 'Dhabi', 'Sharjah', 'Ajman', 'UAE', 'Emirates', 'KSA', 'Saudi', 'Arabia', 'Riyadh'],
    ...['Jeddah', 'Dammam', 'Kuwait', 'Qatar', 'Doha', 'Bahrain', 'Oman', 'Muscat', 'Paris', 'France', 'London'],
    ...['UK', 'Milano', 'Italy', 'USA', 'دبي', 'الإمارات', 'السعودية', 'الرياض', 'جدة', 'الكويت', 'قطر'],
    ...['البحرين', 'عمان', 'باريس', 'لندن'],
  ])('"%s" beside the house in its field says nothing of the house', (extra) => {
    expect(listingHouse(catalog.index, `Lattafa ${extra}`, parseListing('Khamrah'))).toEqual({
      house: 'Lattafa',
      from: 'house',
    });
  });

  it('a house field is read for a house amid extras run by run, longest first, at most 12 words', () => {
    const runs = (field: string) => {
      const before = work.houseRuns;
      const found = listingHouse(catalog.index, field, parseListing('Khamrah')).house;
      return [found, work.houseRuns - before];
    };
    // every run of the field that holds "Lattafa", the longest first, the earliest first of a length
    expect(runs('House of Lattafa')).toEqual(['Lattafa', 3]);
    expect(runs('Lattafa Dubai UAE')).toEqual(['Lattafa', 3]);
    expect(runs('Dubai Lattafa UAE')).toEqual(['Lattafa', 4]);
    // the run holds every word that is no extra, and a house named with an extra is found at its own length:
    // 6 words, 5 (2 runs), 4 (3), then "of Jo Malone" and "Jo Malone London" (an alias of Jo Malone)
    expect(runs('Jo Malone Dubai')).toEqual(['Jo Malone', 2]);
    expect(runs('House of Jo Malone London Dubai')).toEqual(['Jo Malone', 8]);
    // one word amid 11 a field says around a house, no house anywhere: every run holding it, 6·7
    const amid = 'House of Perfumes Dubai UAE Nowhere Paris London Official Store Shop Group';
    expect(runs(amid)).toEqual([null, 42]);
    // twelve words none of which is an extra: the whole field only; one word more, or nothing but extras: none
    expect(runs(Array.from({ length: 12 }, (_, i) => `word${i}`).join(' '))).toEqual([null, 1]);
    expect(runs(`${amid} More`)).toEqual([null, 0]);
    expect(runs('House of Perfumes Dubai')).toEqual([null, 0]);
    // a house named in full is found before any run is read
    expect(runs('Lattafa')).toEqual(['Lattafa', 0]);
  });

  it('a house field with "House of", a company\'s words or a city around the house is that house', () => {
    for (const field of [
      'House of Lattafa',
      'Lattafa Perfumes Dubai',
      'Lattafa Dubai',
      'Ajman Lattafa',
      'Lattafa Perfumes Industries LLC',
      'Lattafa - Dubai, UAE',
      'The House of Lattafa, Sharjah',
      'لطافة للعطور دبي',
      'دار لطافة',
      'لطافة الامارات',
      // spelt otherwise: the house once the words around it are set aside
      'Latafa Perfumes Dubai',
    ]) {
      expect(match('Khamrah', field), field).toEqual({
        perfumeId: 'khamrah',
        confidence: 1,
        sibling: false,
        reason: 'Khamrah edp by Lattafa, no concentration listed: the line original',
        candidates: [c('khamrah', 1), c('khamrah-qahwa', 0.5)],
      });
    }
    expect(match('Hawas for Him EDP', 'Rasasi Dubai')).toMatchObject({ perfumeId: 'hawas', confidence: 1 });
    // a house named with a city's word is that house, whatever is said around it
    for (const field of ['Paris Corner', 'Paris Corner Perfumes UAE', 'Paris Corner Dubai', 'Paris Corner Paris']) {
      expect(match('Qissa EDP', field), field).toMatchObject({ perfumeId: 'qissa', confidence: 1 });
    }
    expect(match('Wood Sage & Sea Salt', 'Jo Malone London Dubai')).toMatchObject({ perfumeId: 'wood-sage' });
    // the words around a house say nothing of their own: a city alone, or a house we lack with one, is no house of ours
    expect(match('Khamrah', 'Dubai')).toMatchObject({ perfumeId: 'khamrah', confidence: 0.9 });
    expect(match('Khamrah', 'Paris Hilton').reason).toBe('house "Paris Hilton" is not in our catalog');
    expect(match('Khamrah', 'Lattafa Pride').reason).toBe('house "Lattafa Pride" is not in our catalog');
    // two houses in one field name neither
    expect(match('Khamrah', 'Lattafa Rasasi Perfumes').reason).toBe(
      'house "Lattafa Rasasi Perfumes" is not in our catalog',
    );
  });

  it('a concentration word spelt as shops spell it is that concentration: "Elixer", "Eau de Toilet", "Parfume"', () => {
    for (const [name, perfumeId] of [
      ['Sauvage Elixer 60ml', 'sauvage-elixir'],
      ['Sauvage Eau de Toilet', 'sauvage-edt'],
      ['Sauvage Eau de Toillette', 'sauvage-edt'],
      ['Sauvage Eau de Parfums', 'sauvage-edp'],
      ['Sauvage Eau de Partum', 'sauvage-edp'],
    ] as const) {
      expect(match(name, 'Dior'), name).toEqual({
        perfumeId,
        confidence: 1,
        sibling: false,
        reason: `Sauvage ${perfumeId.slice('sauvage-'.length)} by Dior`,
        candidates: [c('sauvage-edt', 1), c('sauvage-edp', 1), c('sauvage-parfum', 1)],
      });
    }
    // "Parfume", "Perfum": a word for any perfume, as "Perfume" is, never a word of the name
    for (const name of ['Khamrah Parfume 100ml', 'Khamrah Perfum 100ml']) {
      expect(match(name, 'Lattafa'), name).toMatchObject({ perfumeId: 'khamrah', confidence: 1 });
    }
    for (const name of ['Aventus Extrait de Parfume', 'Aventus Extrait de Perfume', 'Aventus Extrait de Perfum']) {
      expect(match(name, 'Creed'), name).toMatchObject({ perfumeId: 'aventus', confidence: 0.9, sibling: true });
    }
  });

  it('"Intenso", "Intensa", "Intensément" after the concentration make a flanker, as "Intense" does', () => {
    for (const word of ['Intense', 'Intenso', 'Intensa', 'Intensément']) {
      expect(match(`Khamrah EDP ${word}`, 'Lattafa'), word).toEqual({
        perfumeId: null,
        confidence: 0.5,
        reason: `closest is Khamrah (edp) by Lattafa, too far from "Khamrah EDP ${word}"`,
        candidates: [c('khamrah', 0.5), c('khamrah-qahwa', 0.5)],
      });
    }
  });
});

describe('a concentration word a name holds, taken back', () => {
  it('only for a name whose other words the listing says: "… Eau de Parfum" is not "Uomo Parfum" unless "Uomo" is said', () => {
    const rc = [
      P('uomo-parfum', 'Uomo', 'Valentino', 'parfum', 'men', 2019, {
        aliases: ['Uomo Parfum', 'Valentino Uomo Parfum'],
      }),
      P('donna-edp', 'Donna', 'Valentino', 'edp', 'women', 2015),
      P('valentino-edp', 'Valentino', 'Valentino', 'edp', 'women', 2012),
    ];
    const own = () => ({ index: buildSearchIndex(rc, houses), perfumes: rc });
    expect(matchListing(own(), { name: 'Valentino Valentino Eau de Parfum 100ml', house: '' }).perfumeId).toBe(
      'valentino-edp',
    );
    expect(matchListing(own(), { name: 'Valentino Uomo Parfum 100ml', house: '' }).perfumeId).toBe('uomo-parfum');
  });
});

describe('a name saying a word twice', () => {
  // "Noir" older than "Noir de Noir": of two names explaining a listing equally, the older is taken
  const tf = [
    P('noir', 'Noir', 'Tom Ford', 'edp', 'men', 2000),
    P('noir-de-noir', 'Noir de Noir', 'Tom Ford', 'edp', 'unisex', 2010),
  ];
  const own = () => ({ index: buildSearchIndex(tf, houses), perfumes: tf });

  it('explains a listing saying the word once less well: "Tom Ford Noir EDP" is Noir', () => {
    expect(matchListing(own(), { name: 'Tom Ford Noir EDP 50 ml', house: '' }).perfumeId).toBe('noir');
    // the name's repeat, unsaid, counts as a word of the name left unexplained: 2 of 3
    expect(
      alignment(['noir'], ['noir', 'de', 'noir'], new Set(), () => 1, ['noir', 'de', 'noir'], new Set()),
    ).toBeCloseTo(2 / 3, 6);
    expect(
      alignment(['noir'], ['noir', 'de', 'noir'], new Set(), () => 1, ['noir', 'de', 'noir'], new Set(['noir'])),
    ).toBe(1);
    // a name that says its words once is not touched; nor is a name when the listing's repeats are not asked for
    expect(alignment(['noir'], ['noir'], new Set(), () => 1, ['noir'], new Set())).toBe(1);
    expect(alignment(['noir'], ['noir', 'de', 'noir'])).toBe(1);
    // a word said three times, twice unsaid: 3 of 5
    expect(alignment(['la', 'la'], ['la', 'la', 'la'], new Set(), () => 1, ['la'], new Set())).toBeCloseTo(3 / 5, 6);
  });

  it('counts a house word the seller says twice as said by a name holding it: "Hugo Boss Hugo Man" is Hugo Man', () => {
    // in the shipped catalog, Boss Orange Man explains "Hugo Boss … Man" as well, and is taken on a tie
    const shipped = bundledSnapshot();
    expect(matchListing(shipped, { name: 'Hugo Boss Hugo Man Eau de Toilette 100ml', house: '' }).perfumeId).toBe(
      'hugo-boss-hugo-man-edt',
    );
    expect(matchListing(shipped, { name: 'Hugo Boss Boss Orange Man EDT', house: '' }).perfumeId).toBe(
      'hugo-boss-boss-orange-man-edt',
    );
  });

  it('is the closer reading of a listing repeating it: "Tom Ford Noir de Noir" is Noir de Noir, not the older Noir', () => {
    expect(matchListing(own(), { name: 'Tom Ford Noir de Noir EDP 100ml', house: '' }).perfumeId).toBe('noir-de-noir');
    expect(matchListing(own(), { name: 'Noir de Noir', house: 'Tom Ford' }).perfumeId).toBe('noir-de-noir');
  });
});
