import { describe, expect, it } from 'vitest';
import { searchTokens } from '../catalog/search.ts';
import { normalizeText } from '../lib/text.ts';
import { alignment } from '../matching/matcher.ts';
import { parseListing } from '../matching/parse.ts';

/**
 * The listing parser's word tables entry by entry (matching/parse.ts), each where it decides: a
 * concentration phrase and the concentration it states, a word shops use for any perfume, a
 * seller's word set aside, one that ends the name, one that describes, one that links. Pure and
 * quick, no catalog: an entry removed fails here first.
 */
describe('every concentration phrase is read as its concentration, its words as the phrase', () => {
  it.each([
    ['extrait de parfum', 'extrait'],
    ['extrait de parfume', 'extrait'],
    ['extrait de perfume', 'extrait'],
    ['extrait de perfum', 'extrait'],
    ['extrait', 'extrait'],
    ['extract', 'extrait'],
    ['pure parfum', 'parfum'],
    ['eau de parfum', 'edp'],
    ['eau de perfume', 'edp'],
    ['leau de parfum', 'edp'],
    ['eau de parfume', 'edp'],
    ['eau de perfum', 'edp'],
    ['eau de parfun', 'edp'],
    ['eau du parfum', 'edp'],
    ['eau de parfums', 'edp'],
    ['eau de partum', 'edp'],
    ['edp', 'edp'],
    ['eau de toilette', 'edt'],
    ['eau du toilette', 'edt'],
    ['leau de toilette', 'edt'],
    ['eau de toilete', 'edt'],
    ['eau de toillete', 'edt'],
    ['eau de toillette', 'edt'],
    ['eau de toilet', 'edt'],
    ['eau toilette', 'edt'],
    ['eau parfum', 'edp'],
    ['edt', 'edt'],
    ['eau de cologne', 'edc'],
    ['edc', 'edc'],
    ['parfum', 'parfum'],
    ['elixir', 'elixir'],
    ['elixer', 'elixir'],
    ['lelixir', 'elixir'],
    ['perfume oil', 'oil'],
    ['parfum oil', 'oil'],
    ['concentrated oil', 'oil'],
    ['attar', 'oil'],
    ['اكستريت دو بارفان', 'extrait'],
    ['اكستريت دي بارفان', 'extrait'],
    ['اكستريت دو بارفيوم', 'extrait'],
    ['اكستريت', 'extrait'],
    ['اكستريه دو بارفان', 'extrait'],
    ['اكستريه دي بارفان', 'extrait'],
    ['اكستريه', 'extrait'],
    ['او دو بارفان', 'edp'],
    ['او دي بارفان', 'edp'],
    ['او دو برفان', 'edp'],
    ['او دو بارفيوم', 'edp'],
    ['او دي بارفيوم', 'edp'],
    ['او دو برفيوم', 'edp'],
    ['ادو بارفان', 'edp'],
    ['ادو بارفيوم', 'edp'],
    ['بارفان', 'parfum'],
    ['او دو تواليت', 'edt'],
    ['او دي تواليت', 'edt'],
    ['ادو تواليت', 'edt'],
    ['او دي تي', 'edt'],
    ['او دي بي', 'edp'],
    ['تواليت', 'edt'],
    ['او دو كولون', 'edc'],
    ['او دو كولونيا', 'edc'],
    ['او دي كولونيا', 'edc'],
    ['بارفيوم', 'parfum'],
    ['بيرفيوم', 'parfum'],
    ['برفيوم', 'parfum'],
    ['الكسير', 'elixir'],
    ['اليكسير', 'elixir'],
    ['اكسير', 'elixir'],
    ['دهن عود', 'oil'],
    ['دهن عطري', 'oil'],
    ['زيت عطري', 'oil'],
    ['دهن', 'oil'],
  ] as const)('%s: %s', (phrase, slug) => {
    const p = parseListing(`Khamrah ${phrase} 100ml`);
    expect(p.words).toEqual(['khamrah']);
    expect(p.concentrations).toEqual([slug]);
    expect(p.concentrationPhrases).toEqual([searchTokens(phrase)]);
    expect(p.namePartConcentrations).toEqual([{ slug, tokens: searchTokens(phrase) }]);
  });
});

describe('words shops use for any perfume are a phrase a name may hold, never a concentration stated', () => {
  it.each(['cologne', 'perfume', 'perfumes', 'parfume', 'perfum', 'كولونيا', 'كولون'])('%s', (word) => {
    const p = parseListing(`Khamrah ${word} 100ml`);
    expect(p.words).toEqual(['khamrah']);
    expect(p.concentrations).toEqual([]);
    expect(p.concentrationPhrases).toEqual([searchTokens(word)]);
  });
});

describe("a seller's word is set aside, never a word of the name", () => {
  // "perfume" and "perfumes" are read first as words shops use for any perfume (above)
  it.each([
    'fragrance',
    'fragrances',
    'scent',
    'spray',
    'sprays',
    'boxes',
    'bottles',
    'vaporisateur',
    'vaporizer',
    'vapo',
    'natural',
    'brand',
    'nib',
    'nwob',
    'nwt',
    'box',
    'boxed',
    'unboxed',
    'sealed',
    'seald',
    'seal',
    'authentic',
    'genuine',
    'free',
    'shipping',
    'ship',
    'fast',
    'usa',
    'us',
    'tester',
    'testers',
    'sample',
    'samples',
    'vial',
    'vials',
    'decant',
    'travel',
    'size',
    'mini',
    'miniature',
    'by',
    'from',
    'de',
    'ml',
    'oz',
    'fl',
    'floz',
    'unisex',
    'refillable',
    'refill',
    'splash',
    'dabber',
    'carded',
    'without',
    'cap',
    'gift',
    'set',
    'sale',
    'hot',
    'long',
    'lasting',
    'عطر',
    'عطور',
    'بخاخ',
    'اصلي',
    'اصليه',
    'تستر',
    'تيستر',
    'جديد',
    'جديده',
    'من',
    'مل',
    'ملي',
    'اونصه',
    'حجم',
    'للجنسين',
    'ماء',
    'عينه',
    'تقسيم',
    'بدون',
    'كرتون',
    'شحن',
    'مجاني',
    'عرض',
    'خاص',
    'الاصلي',
    'الاصدار',
    'اصدار',
    'طقم',
    'هديه',
    'ميني',
    'ريفيل',
    'ريفل',
    'رقم',
    'عبوه',
    'اعاده',
    'تعبيه',
  ])('%s', (word) => {
    const p = parseListing(`Khamrah ${word}`);
    expect(p.words).toEqual(['khamrah']);
    expect(p.noise).toEqual([normalizeText(word)]);
  });

  it('so is a run of five digits or more (a barcode, a stock number), not a code with letters', () => {
    expect(parseListing('Khamrah 6291108734056').noise).toEqual(['6291108734056']);
    expect(parseListing('Khamrah A123456 123456B 1234').words).toEqual(['khamrah', 'a123456', '123456b', '1234']);
  });
});

describe("a seller's word after the name ends it: what follows is the description", () => {
  it.each([
    'spray',
    'vaporisateur',
    'vaporizer',
    'sealed',
    'seald',
    'box',
    'nib',
    'tester',
    'sample',
    'vial',
    'brand',
    'by',
  ])('%s', (word) => {
    const p = parseListing(`Khamrah ${word} Qahwa`);
    expect([...p.tail]).toEqual(['qahwa']);
  });

  it('a word of no such kind does not', () => {
    expect([...parseListing('Khamrah Fresh Qahwa').tail]).toEqual([]);
  });
});

describe('a word that describes or links does not start the name part', () => {
  it.each([
    'sporty',
    'energizing',
    'energising',
    'invigorating',
    'vibrant',
    'luxury',
    'luxurious',
    'classic',
    'timeless',
    'seductive',
    'sensual',
    'elegant',
    'captivating',
    'irresistible',
    'refreshing',
    'aquatic',
    'woody',
    'spicy',
    'floral',
    'fruity',
    'official',
    'distributor',
    'authorized',
    'sole',
    'scent',
    'scents',
    'cologne',
    'colognes',
    'limited',
    'edition',
    'اديشن',
    'ايديشن',
    'ليمتد',
    'in',
    'with',
    'no',
    'new',
    'original',
    'collection',
    'men',
    'women',
    'unisex',
    'premium',
    'best',
    'seller',
    'popular',
    'rare',
    'discontinued',
    'vintage',
    'formula',
    'version',
    'bottle',
    'full',
    'size',
    'for',
    'pour',
    'the',
    'le',
    'la',
    'l',
    'and',
    'di',
    'du',
    'ال',
    'بور',
    'فور',
    'لو',
    'لي',
    'دي',
    'دو',
  ])('%s', (word) => {
    // said before a size, it leaves the name to come: "Khamrah" is no description
    expect([...parseListing(`${word} 100ml Khamrah`).tail]).toEqual([]);
  });

  it('a word that names does', () => {
    expect([...parseListing('Qahwa 100ml Khamrah').tail]).toEqual(['khamrah']);
  });

  // ("men" and "women" left out: words of whom a perfume is for, whose absence costs a little)
  it.each([
    'sporty',
    'energizing',
    'energising',
    'invigorating',
    'vibrant',
    'luxury',
    'luxurious',
    'classic',
    'timeless',
    'seductive',
    'sensual',
    'elegant',
    'captivating',
    'irresistible',
    'refreshing',
    'aquatic',
    'woody',
    'spicy',
    'floral',
    'fruity',
    'official',
    'distributor',
    'authorized',
    'sole',
    'scent',
    'scents',
    'cologne',
    'colognes',
    'limited',
    'edition',
    'اديشن',
    'ايديشن',
    'ليمتد',
    'in',
    'with',
    'no',
    'new',
    'original',
    'collection',
    'unisex',
    'premium',
    'best',
    'seller',
    'popular',
    'rare',
    'discontinued',
    'vintage',
    'formula',
    'version',
    'bottle',
    'full',
    'size',
  ])('%s says nothing against a name that lacks it', (word) => {
    expect(alignment(['khamrah', normalizeText(word)], ['khamrah'])).toBe(1);
  });
});
