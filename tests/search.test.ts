import { beforeEach, describe, expect, it } from 'vitest';
import {
  buildSearchIndex,
  editDistance,
  extractConcentration,
  resolveHouse,
  type SearchIndex,
  search,
  searchTokens,
} from '../catalog/search.ts';

const houses = [
  { name: 'Dior', nameAr: 'ديور', aliases: ['Christian Dior'], abbreviations: ['CD'] },
  { name: 'Lattafa', nameAr: 'لطافة', aliases: [], abbreviations: [] },
  {
    name: 'Maison Francis Kurkdjian',
    nameAr: 'ميزون فرانسيس كركدجيان',
    aliases: ['Kurkdjian'],
    abbreviations: ['MFK'],
  },
  { name: 'Creed', nameAr: 'كريد', aliases: [], abbreviations: [] },
  { name: 'Yves Saint Laurent', nameAr: 'إيف سان لوران', aliases: ['Saint Laurent'], abbreviations: ['YSL'] },
  { name: 'Dolce & Gabbana', nameAr: 'دولتشي آند غابانا', aliases: ['Dolce and Gabbana'], abbreviations: ['D&G'] },
  { name: 'Tom Ford', nameAr: 'توم فورد', aliases: [], abbreviations: ['TF'] },
  { name: 'Parfums de Marly', nameAr: 'بارفيومز دي مارلي', aliases: [], abbreviations: ['PDM'] },
];
const p = (
  id: string,
  name: string,
  nameAr: string,
  house: string,
  concentration: string,
  year: number,
  aliases: string[] = [],
) => ({
  id,
  name,
  nameAr,
  house,
  concentration,
  year,
  aliases,
});
const perfumes = [
  p('dior-sauvage-edt', 'Sauvage', 'سوفاج', 'Dior', 'edt', 2015),
  p('dior-sauvage-edp', 'Sauvage', 'سوفاج', 'Dior', 'edp', 2018),
  p('dior-sauvage-parfum', 'Sauvage', 'سوفاج', 'Dior', 'parfum', 2019),
  p('dior-sauvage-elixir', 'Sauvage', 'سوفاج', 'Dior', 'elixir', 2021),
  p('lattafa-khamrah-edp', 'Khamrah', 'خمرة', 'Lattafa', 'edp', 2022),
  p('lattafa-khamrah-qahwa-edp', 'Khamrah Qahwa', 'خمرة قهوة', 'Lattafa', 'edp', 2023),
  p('mfk-br540-edp', 'Baccarat Rouge 540', 'بكارات روج 540', 'Maison Francis Kurkdjian', 'edp', 2015, ['BR540']),
  p('mfk-br540-extrait', 'Baccarat Rouge 540', 'بكارات روج 540', 'Maison Francis Kurkdjian', 'extrait', 2017, [
    'BR540',
  ]),
  p('creed-aventus-edp', 'Aventus', 'أفينتوس', 'Creed', 'edp', 2010),
  p('creed-aventus-for-her-edp', 'Aventus for Her', 'أفينتوس للنساء', 'Creed', 'edp', 2016),
  p('ysl-libre-edp', 'Libre', 'ليبر', 'Yves Saint Laurent', 'edp', 2019),
  p('dg-light-blue-edt', 'Light Blue', 'لايت بلو', 'Dolce & Gabbana', 'edt', 2001),
  p('tf-oud-wood-edp', 'Oud Wood', 'عود وود', 'Tom Ford', 'edp', 2007),
  p('pdm-layton-edp', 'Layton', 'لايتون', 'Parfums de Marly', 'edp', 2016),
  p('lattafa-oud-mood-edp', 'Oud Mood', 'عود مود', 'Lattafa', 'edp', 2019),
];
// built afresh for each test, not on loading: the mutation run then knows every test uses it
let index: SearchIndex;
beforeEach(() => {
  index = buildSearchIndex(perfumes, houses);
});
const top = (q: string, opts = {}) => search(index, q, opts)[0]?.id;
const ids = (q: string, opts = {}) => search(index, q, opts).map((h) => h.id);

describe('catalog search', () => {
  it('finds by exact name, with the line original first when no concentration is named', () => {
    expect(top('sauvage')).toBe('dior-sauvage-edt');
    expect(top('Dior Sauvage')).toBe('dior-sauvage-edt');
    expect(ids('sauvage').slice(0, 4).sort()).toEqual([
      'dior-sauvage-edp',
      'dior-sauvage-edt',
      'dior-sauvage-elixir',
      'dior-sauvage-parfum',
    ]);
  });

  it('prefers the concentration the query names, in any language', () => {
    expect(top('sauvage edp')).toBe('dior-sauvage-edp');
    expect(top('Sauvage Eau de Parfum')).toBe('dior-sauvage-edp');
    expect(top('سوفاج او دو بارفان')).toBe('dior-sauvage-edp');
    expect(top('sauvage elixir')).toBe('dior-sauvage-elixir');
    expect(top('baccarat rouge 540 extrait de parfum')).toBe('mfk-br540-extrait');
  });

  it('tolerates typos', () => {
    expect(top('suavage')).toBe('dior-sauvage-edt');
    expect(top('khamra')).toBe('lattafa-khamrah-edp');
    expect(top('baccarat ruoge')).toBe('mfk-br540-edp');
    expect(top('aventis')).toBe('creed-aventus-edp');
  });

  it('finds Arabic names, whatever the spelling variant', () => {
    expect(top('خمرة')).toBe('lattafa-khamrah-edp');
    expect(top('خمره')).toBe('lattafa-khamrah-edp');
    expect(top('خمرة قهوة')).toBe('lattafa-khamrah-qahwa-edp');
    expect(top('بكارات روج ٥٤٠')).toBe('mfk-br540-edp');
  });

  it('crosses scripts: Arabic transliterations find Latin names and back', () => {
    const latinOnly = buildSearchIndex(
      perfumes.map((x) => ({ ...x, nameAr: null })),
      houses,
    );
    expect(search(latinOnly, 'سوفاج')[0]?.id).toBe('dior-sauvage-edt');
    expect(search(latinOnly, 'لايتون')[0]?.id).toBe('pdm-layton-edp');
    const arabicOnly = buildSearchIndex(
      perfumes.map((x) => ({ ...x, name: x.nameAr })),
      houses,
    );
    expect(search(arabicOnly, 'khamrah')[0]?.id).toBe('lattafa-khamrah-edp');
  });

  it('understands house abbreviations and names inside the query', () => {
    expect(top('YSL Libre')).toBe('ysl-libre-edp');
    expect(top('D&G light blue')).toBe('dg-light-blue-edt');
    expect(top('TF oud wood')).toBe('tf-oud-wood-edp');
    expect(top('PDM Layton')).toBe('pdm-layton-edp');
    expect(top('MFK BR540')).toBe('mfk-br540-edp');
    expect(top('oud lattafa')).toBe('lattafa-oud-mood-edp');
  });

  it('keeps flankers apart', () => {
    expect(top('aventus')).toBe('creed-aventus-edp');
    expect(top('aventus for her')).toBe('creed-aventus-for-her-edp');
    expect(top('khamrah')).toBe('lattafa-khamrah-edp');
    expect(top('khamrah qahwa')).toBe('lattafa-khamrah-qahwa-edp');
  });

  it('finds partial names as the user types', () => {
    expect(top('bacca')).toBe('mfk-br540-edp');
    expect(top('aven')).toBe('creed-aventus-edp');
  });

  it('filters by house, by any of its names', () => {
    expect(ids('oud', { house: 'Lattafa' })).toEqual(['lattafa-oud-mood-edp']);
    expect(ids('oud', { house: 'TF' })).toEqual(['tf-oud-wood-edp']);
    expect(ids('', { house: 'لطافة' })).toEqual([
      'lattafa-oud-mood-edp',
      'lattafa-khamrah-edp',
      'lattafa-khamrah-qahwa-edp',
    ]);
    expect(ids('sauvage', { house: 'Nobody Such' })).toEqual([]);
  });

  it('answers nothing for words it does not know', () => {
    expect(ids('xyzzy plugh')).toEqual([]);
  });

  it('scores stay within 0–1 and fall as the query gets less exact', () => {
    const exact = search(index, 'khamrah qahwa')[0]?.score ?? 0;
    const typo = search(index, 'khamra qahwa')[0]?.score ?? 0;
    expect(exact).toBeLessThanOrEqual(1);
    expect(typo).toBeGreaterThan(0);
    expect(typo).toBeLessThan(exact);
  });

  it('respects the limit', () => {
    expect(search(index, 'sauvage', { limit: 2 })).toHaveLength(2);
  });
});

describe('search helpers', () => {
  it('joins letter&letter abbreviations into one word', () => {
    expect(searchTokens('D&G The One')).toEqual(['dg', 'the', 'one']);
    expect(searchTokens('V & R')).toEqual(['vr']);
  });
  it('takes concentration words out of a query', () => {
    expect(extractConcentration(searchTokens('Sauvage Eau de Parfum 100ml'))).toEqual({
      tokens: ['sauvage', '100ml'],
      concentration: 'edp',
      removed: ['eau', 'de', 'parfum'],
    });
    expect(extractConcentration(searchTokens('خمرة او دو بارفان')).concentration).toBe('edp');
    // the last one is meant; an earlier one stays a word of the name
    expect(extractConcentration(searchTokens('Le Beau Le Parfum EDP'))).toEqual({
      tokens: ['le', 'beau', 'le', 'parfum'],
      concentration: 'edp',
      removed: ['edp'],
    });
  });
  it('resolves houses by abbreviation, Arabic name and typo', () => {
    expect(resolveHouse(index, 'MFK')).toBe('Maison Francis Kurkdjian');
    expect(resolveHouse(index, 'إيف سان لوران')).toBe('Yves Saint Laurent');
    expect(resolveHouse(index, 'Latafa')).toBe('Lattafa');
    expect(resolveHouse(index, 'Zara')).toBeNull();
  });
  it('edit distance counts transpositions as one', () => {
    expect(editDistance('suavage', 'sauvage', 2)).toBe(1);
    expect(editDistance('kitten', 'sitting', 3)).toBe(3);
    expect(editDistance('abc', 'xyz', 1)).toBe(2);
  });
});
