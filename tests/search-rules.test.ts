import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  buildSearchIndex,
  CELL_BUDGET,
  editDistance,
  extractConcentration,
  resolveHouse,
  type SearchIndex,
  search,
  searchTokens,
  withWorkBudget,
  work,
} from '../catalog/search.ts';
import { CONCENTRATIONS } from '../vocabulary/index.ts';

/**
 * Search's rules one by one, on a small catalog with Latin names only (an
 * Arabic name would let a misspelt Latin word through by its sound): the
 * order of equal results, the typo tolerance by word length, the boosts, the
 * limit, each held by the exact scores a lookup answers.
 */
const houses = [
  { name: 'Dior', aliases: ['Christian Dior'], abbreviations: ['CD'] },
  { name: 'Jean Paul Gaultier', aliases: ['Gaultier'], abbreviations: ['JPG'] },
  { name: 'Lattafa', nameAr: 'لطافة' },
  { name: 'Creed' },
  { name: 'Montblanc' },
  { name: 'Rasasi' },
  { name: 'Xerjoff' },
];
const P = (
  id: string,
  name: string,
  house: string,
  concentration: string | null,
  year: number | null,
  more: { nameAr?: string; aliases?: string[] } = {},
) => ({ id, name, house, concentration, year, ...more });
// records deliberately not in launch order
const perfumes = [
  P('sauvage-elixir', 'Sauvage', 'Dior', 'elixir', 2021),
  P('sauvage-edp', 'Sauvage', 'Dior', 'edp', 2018),
  P('sauvage-edt', 'Sauvage', 'Dior', 'edt', 2015),
  P('sauvage-parfum', 'Sauvage', 'Dior', 'parfum', 2019),
  P('eau-sauvage', 'Eau Sauvage', 'Dior', 'edt', 1966),
  P('le-male', 'Le Male', 'Jean Paul Gaultier', 'edt', 1995),
  P('le-male-le-parfum', 'Le Male Le Parfum', 'Jean Paul Gaultier', 'edp', 2020),
  P('le-male-elixir', 'Le Male Elixir', 'Jean Paul Gaultier', 'parfum', 2023),
  P('khamrah', 'Khamrah', 'Lattafa', 'edp', 2022, { nameAr: 'خمرة' }),
  P('khamrah-qahwa', 'Khamrah Qahwa', 'Lattafa', 'edp', 2023, { nameAr: 'خمرة قهوة' }),
  P('aventus', 'Aventus', 'Creed', 'edp', 2010),
  P('explorer-b', 'Explorer', 'Montblanc', 'edt', null),
  P('explorer', 'Explorer', 'Montblanc', 'edp', null),
  P('legend', 'Legend', 'Montblanc', 'edt', 2011),
  P('legend-spirit', 'Legend Spirit', 'Montblanc', 'edt', 2016),
  P('individuel', 'Individuel', 'Montblanc', 'edt', 2003),
  P('hawas', 'Hawas for Him', 'Rasasi', 'edp', 2015),
  P('raghba', 'Raghba Wood Intense', 'Lattafa', 'edp', 2012, { nameAr: 'رغبة' }),
  // a house spelt otherwise than in the houses, and a house we do not list
  P('dior-homme', 'Dior Homme', 'DIOR', 'edt', 2005),
  P('santal', 'Santal 33', 'Le Labo', 'edp', 2011),
  P('ambassadors', 'Ambassadors', 'Xerjoff', 'edp', 2001),
  P('alphabet', 'Abcdefghijklmnopqrstuvwx', 'Xerjoff', 'edp', 2002),
  P('maze', 'Maze', 'Xerjoff', 'edp', 2003),
  P('bleu', 'Bleu de Chanel', 'Chanel', 'edp', 2014),
];

let index: SearchIndex;
beforeEach(() => {
  index = buildSearchIndex(perfumes, houses);
});
const ids = (q: string, opts = {}) => search(index, q, opts).map((h) => h.id);
const hits = (q: string, opts = {}) =>
  search(index, q, opts).map((h) => [h.id, Number(h.score.toFixed(4)), Number(h.nameCoverage.toFixed(3))]);

/** a score as search reports it: the share of the query explained plus the boosts, scaled by 1.15 */
const score = (explained: number, boosts = 0.1) => Number(((explained + boosts) / 1.15).toFixed(4));

describe('search: the order of results', () => {
  it('equal scores: the earlier launch first, whatever the order of the records', () => {
    expect(hits('sauvage')).toEqual([
      ['sauvage-edt', score(1), 1],
      ['sauvage-edp', score(1), 1],
      ['sauvage-parfum', score(1), 1],
      ['sauvage-elixir', score(1), 1],
      // the whole query, but not the whole name
      ['eau-sauvage', score(1, 0.05), 1],
    ]);
  });

  it('equal scores and the same launch year: by id', () => {
    const same = ['c', 'a', 'e', 'b', 'd'].map((id) => P(id, 'Tie', 'Dior', 'edp', 2010));
    const tied = buildSearchIndex(same, houses);
    expect(search(tied, 'tie').map((h) => h.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(search(tied, '', { house: 'Dior' }).map((h) => h.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('equal scores and no launch year: by id, after every dated one', () => {
    expect(ids('explorer')).toEqual(['explorer', 'explorer-b']);
    expect(ids('', { house: 'Montblanc' })).toEqual([
      'individuel',
      'legend',
      'legend-spirit',
      'explorer',
      'explorer-b',
    ]);
  });

  it('a query that is the whole name beats a longer name holding it; gender words are not part of a name', () => {
    expect(hits('legend')).toEqual([
      ['legend', score(1), 1],
      ['legend-spirit', score(1, 0.05), 1],
    ]);
    expect(hits('hawas')).toEqual([['hawas', score(1), 1]]);
    // Arabic names are counted in Arabic words
    expect(hits('خمره')).toEqual([
      ['khamrah', score(1), 1],
      ['khamrah-qahwa', score(1, 0.05), 1],
    ]);
  });

  it('the concentration named: +0.05 for the perfume of it, −0.05 for the others', () => {
    expect(search(index, 'sauvage edp').map((h) => [h.id, Number(h.score.toFixed(4)), h.concentrationMatch])).toEqual([
      ['sauvage-edp', score(1, 0.15), true],
      ['sauvage-edt', score(1, 0.05), false],
      ['sauvage-parfum', score(1, 0.05), false],
      ['sauvage-elixir', score(1, 0.05), false],
      ['eau-sauvage', score(1, 0), false],
    ]);
    expect(search(index, 'sauvage')[0]?.concentrationMatch).toBeNull();
  });

  it('words taken as a concentration that a name holds whole count for it: "Le Male Le Parfum"', () => {
    expect(hits('le male le parfum').slice(0, 3)).toEqual([
      ['le-male-le-parfum', 1, 1],
      ['le-male-elixir', 1, 1],
      ['le-male', score(1, 0.05), 1],
    ]);
    // only a name holding every word of the phrase gains
    expect(ids('le male parfum').slice(0, 2)).toEqual(['le-male-le-parfum', 'le-male-elixir']);
    // a name holding only some words of the phrase gains nothing: Eau Sauvage holds "eau" of "eau de parfum"
    expect(hits('eau sauvage eau de parfum')[0]).toEqual(['eau-sauvage', score(1, 0.05), 1]);
    // the gain, half the rarest phrase word's weight, seen below the ceiling
    const found = search(index, 'le male le parfum xyzzy');
    expect(found.slice(0, 3).map((h) => h.id)).toEqual(['le-male-le-parfum', 'le-male-elixir', 'le-male']);
    expect(found[0]?.score).toBeCloseTo(0.763, 2);
    expect(found[1]?.score).toBeCloseTo(0.699, 2);
    expect(found[2]?.score).toBeCloseTo(0.612, 2);
  });

  it('house words count less than name words', () => {
    // each word weighs its rarity (Creed and Aventus: one perfume each); a house word counts 0.45
    expect(hits('creed aventus')).toEqual([['aventus', score((0.45 + 1) / 2), 0.5]]);
    const n = perfumes.length;
    const [house, name] = [Math.log(1 + n / 5), Math.log(1 + n / 2)];
    const legend = search(index, 'montblanc legend')[0];
    expect(legend?.id).toBe('legend');
    expect(legend?.score).toBeCloseTo(((0.45 * house + name) / (house + name) + 0.1) / 1.15, 4);
    // only the name's words make a whole name: one of Legend Spirit's two
    const spirit = search(index, 'montblanc legend')[1];
    expect(spirit?.id).toBe('legend-spirit');
    expect(spirit?.score).toBeCloseTo(((0.45 * house + name) / (house + name) + 0.05) / 1.15, 4);
  });
});

describe('search: what each word brings', () => {
  it('a perfume’s name is counted in the script of the query', () => {
    expect(hits('رغبه')).toEqual([['raghba', score(1), 1]]);
    expect(hits('raghba')).toEqual([['raghba', score(1, 0.1 / 3), 1]]);
    // a query with any Arabic word counts the Arabic name
    expect(hits('raghba رغبه')).toEqual([['raghba', score(1), 1]]);
  });

  it('a word found in a perfume’s name and its house counts as a name word', () => {
    expect(hits('dior homme')[0]).toEqual(['dior-homme', score(1), 1]);
  });

  it('a house spelt otherwise is the house; a house we do not list is read from the perfume', () => {
    expect(ids('dior homme', { house: 'Dior' })[0]).toBe('dior-homme');
    expect(ids('', { house: 'Dior' })).toContain('dior-homme');
    expect(ids('le labo santal')[0]).toBe('santal');
  });

  it('a word the catalog does not know counts against every result', () => {
    const n = perfumes.length;
    const sauvage = Math.log(1 + n / 5);
    const unknown = Math.log(1 + n);
    const [first] = search(index, 'sauvage xyzzy');
    expect(first?.id).toBe('sauvage-edt');
    expect(first?.score).toBeCloseTo((sauvage / (sauvage + unknown) + 0.1) / 1.15, 4);
    expect(first?.nameCoverage).toBe(0.5);
    expect(search(index, 'xyzzy sauvage')[0]?.score).toBeCloseTo(first?.score as number, 6);
  });

  it('reads at most 24 words of a query', () => {
    const junk = (k: number) => Array.from({ length: k }, (_, i) => `qq${i}zz`).join(' ');
    expect(ids(`${junk(23)} sauvage`)[0]).toBe('sauvage-edt');
    expect(ids(`${junk(24)} sauvage`)).toEqual([]);
  });

  it('a prefix stands for at most 64 words, the first in order', () => {
    const many = Array.from({ length: 70 }, (_, i) =>
      P(`z${i}`, `Zq${String(i).padStart(3, '0')}`, 'Dior', 'edp', 2000),
    );
    const big = buildSearchIndex(many, houses);
    const found = search(big, 'zq', { limit: 100 }).map((h) => h.id);
    expect(found).toHaveLength(64);
    expect(found).toContain('z63');
    expect(found).not.toContain('z64');
  });

  it('counts its work', () => {
    const before = { ...work };
    search(index, 'indivdiuel legend');
    expect(work.variants).toBeGreaterThan(before.variants);
    expect(work.postings).toBeGreaterThan(before.postings);
    expect(work.cells).toBeGreaterThan(before.cells);
  });
});

describe('search: typos by word length', () => {
  it('one edit in a word of four letters or more, at 0.8', () => {
    expect(hits('legnd')).toEqual([
      ['legend', score(0.8), 0.8],
      ['legend-spirit', score(0.8, 0.05), 0.8],
    ]);
    expect(hits('saufage')[0]).toEqual(['sauvage-edt', score(0.8), 0.8]);
    // a transposition is one edit
    expect(hits('indivdiuel')).toEqual([['individuel', score(0.8), 0.8]]);
    expect(hits('aventuss')).toEqual([['aventus', score(0.8), 0.8]]);
  });

  it('two edits only in a word of eight letters or more, at 0.6', () => {
    expect(hits('aventusss')).toEqual([['aventus', score(0.6), 0.6]]);
    expect(hits('legenddd')).toEqual([
      ['legend', score(0.6), 0.6],
      ['legend-spirit', score(0.6, 0.05), 0.6],
    ]);
    expect(hits('inddividuell')).toEqual([['individuel', score(0.6), 0.6]]);
    // seven letters: two edits are too many
    expect(ids('aventxx')).toEqual([]);
    expect(ids('sauvaxx')).toEqual([]);
    // six letters two edits from "spirit" and "legend", though a letter off each leaves the same five
    expect(ids('xspiri')).toEqual([]);
    expect(ids('egendl')).toEqual([]);
  });

  it('words of up to 24 letters are read with typos, longer ones exactly', () => {
    expect(hits('abcdefghijklmnopqrstuvwy')).toEqual([['alphabet', score(0.8), 0.8]]);
    expect(ids('abcdefghijklmnopqrstuvwxy')).toEqual([]);
  });

  it('a word both the start of a longer one and a typo of it takes the better reading', () => {
    const [hit] = search(index, 'ambassador');
    expect(hit?.id).toBe('ambassadors');
    expect(hit?.score).toBeCloseTo((0.85 * Math.sqrt(10 / 11) + 0.1) / 1.15, 4);
  });

  it('no typo in a word of three letters or fewer', () => {
    expect(ids('qahwx')).toEqual(['khamrah-qahwa']);
    expect(ids('mle')).toEqual([]);
    // every word one edit away, however many share a spelling variant (maze and male: "mae")
    expect(ids('maxe')).toEqual(['maze', 'le-male', 'le-male-elixir', 'le-male-le-parfum']);
  });

  it('the last word is read as the start of a word; others from three letters', () => {
    expect(hits('leg')).toEqual([
      ['legend', score(0.85 * Math.sqrt(3 / 6)), 0.601],
      ['legend-spirit', score(0.85 * Math.sqrt(3 / 6), 0.05), 0.601],
    ]);
    expect(ids('l')).toEqual([]);
    expect(ids('le').slice(3, 5)).toEqual(['legend', 'legend-spirit']);
    // a one-letter last word is read as a start only after other words
    expect(ids('legend s')[0]).toBe('legend-spirit');
    expect(ids('le m').slice(0, 3)).toEqual(['le-male', 'le-male-elixir', 'le-male-le-parfum']);
    expect(ids('leg spirit')).toEqual(['legend-spirit', 'legend']);
    expect(ids('le spirit').slice(0, 4)).toEqual(['legend-spirit', 'le-male', 'le-male-elixir', 'le-male-le-parfum']);
    expect(ids('le spirit')).not.toContain('legend');
  });
});

describe('search: the limit', () => {
  const many = Array.from({ length: 14 }, (_, i) => P(`n${i}`, `Nuit ${i}`, 'Dior', 'edp', 2000 + i));
  it('ten results unless asked, never fewer than one', () => {
    const big = buildSearchIndex(many, houses);
    expect(search(big, 'nuit').map((h) => h.id)).toEqual(many.slice(0, 10).map((p) => p.id));
    expect(search(big, 'nuit', { limit: 3 }).map((h) => h.id)).toEqual(['n0', 'n1', 'n2']);
    expect(search(big, 'nuit', { limit: 0 }).map((h) => h.id)).toEqual(['n0']);
    expect(search(big, 'nuit', { limit: -2 }).map((h) => h.id)).toEqual(['n0']);
    expect(search(big, 'nuit', { limit: 14 })).toHaveLength(14);
    expect(search(big, '', { house: 'Dior', limit: 2 }).map((h) => h.id)).toEqual(['n0', 'n1']);
    expect(search(big, '', { house: 'Dior' })).toHaveLength(10);
  });

  it('the first k results are the first k of all results, for any query and k', () => {
    const words = [
      'sauvage',
      'le',
      'male',
      'legend',
      'leg',
      'spirit',
      'edp',
      'parfum',
      'saufage',
      'x',
      'khamrah',
      'eau',
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 4 }), fc.nat(12), (q, k) => {
        const query = q.join(' ');
        const all = search(index, query, { limit: 100 });
        expect(search(index, query, { limit: k })).toEqual(all.slice(0, Math.max(1, k)));
        for (let i = 1; i < all.length; i++) {
          const [a, b] = [all[i - 1], all[i]] as [(typeof all)[number], (typeof all)[number]];
          expect(a.score).toBeGreaterThanOrEqual(b.score);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('search: houses', () => {
  it('a house-only query lists that house, originals first, the concentration named if any', () => {
    expect(
      search(index, 'edt', { house: 'Montblanc' }).map((h) => [h.id, h.score, h.nameCoverage, h.concentrationMatch]),
    ).toEqual([
      ['individuel', 1, 0, true],
      ['legend', 1, 0, true],
      ['legend-spirit', 1, 0, true],
      ['explorer-b', 1, 0, true],
    ]);
    expect(search(index, '', { house: 'JPG' }).map((h) => [h.id, h.concentrationMatch])).toEqual([
      ['le-male', null],
      ['le-male-le-parfum', null],
      ['le-male-elixir', null],
    ]);
    expect(ids('')).toEqual([]);
    expect(ids('edp')).toEqual([]);
  });

  it('a house filter keeps to that house, by any of its names; a house we lack answers nothing', () => {
    expect(ids('sauvage', { house: 'Christian Dior' })).toHaveLength(5);
    expect(ids('explorer', { house: 'CD' })).toEqual([]);
    expect(ids('sauvage', { house: 'Nobody' })).toEqual([]);
  });

  it('resolveHouse: exact keys, then one typo from five letters, two from eight', () => {
    expect(resolveHouse(index, 'jpg')).toBe('Jean Paul Gaultier');
    expect(resolveHouse(index, 'Gaultier')).toBe('Jean Paul Gaultier');
    expect(resolveHouse(index, 'Diorr')).toBe('Dior');
    expect(resolveHouse(index, 'Dio')).toBeNull();
    expect(resolveHouse(index, 'Creeed')).toBe('Creed');
    expect(resolveHouse(index, 'Crd')).toBeNull();
    expect(resolveHouse(index, 'Montblonk')).toBe('Montblanc');
    expect(resolveHouse(index, 'Muntblonk')).toBeNull();
    expect(resolveHouse(index, 'Latafa')).toBe('Lattafa');
    expect(resolveHouse(index, '')).toBeNull();
    expect(resolveHouse(index, '  ')).toBeNull();
    // of two within reach, the nearer; of two as near, the first
    const two = buildSearchIndex([], [{ name: 'Rasasi' }, { name: 'Rasasia' }]);
    expect(resolveHouse(two, 'Rasasiaa')).toBe('Rasasia');
    expect(resolveHouse(two, 'Rassasi')).toBe('Rasasi');
    expect(resolveHouse(buildSearchIndex([], [{ name: 'Rasasi' }, { name: 'Rasasa' }]), 'Rasass')).toBe('Rasasi');
    expect(resolveHouse(buildSearchIndex([], [{ name: 'Rasasa' }, { name: 'Rasasi' }]), 'Rasass')).toBe('Rasasa');
  });
});

describe('search helpers', () => {
  it('extractConcentration: the last phrase, longest first, in Arabic too', () => {
    expect(extractConcentration(['khamrah', 'eau', 'de', 'toilette'])).toEqual({
      tokens: ['khamrah'],
      concentration: 'edt',
      removed: ['eau', 'de', 'toilette'],
    });
    expect(extractConcentration(searchTokens('خمرة او دي تواليت'))).toEqual({
      tokens: ['خمره'],
      concentration: 'edt',
      removed: ['او', 'دي', 'تواليت'],
    });
    expect(extractConcentration(searchTokens('خمرة ادو بارفان')).concentration).toBe('edp');
    expect(extractConcentration(searchTokens('خمرة او دو برفان')).concentration).toBe('edp');
    expect(extractConcentration(['a', 'edt', 'b', 'edp', 'c'])).toEqual({
      tokens: ['a', 'edt', 'b', 'c'],
      concentration: 'edp',
      removed: ['edp'],
    });
    expect(extractConcentration(['khamrah'])).toEqual({ tokens: ['khamrah'], concentration: null, removed: [] });
  });

  it('extractConcentration: every name the vocabulary gives a concentration, and the spellings shops use', () => {
    for (const c of CONCENTRATIONS)
      for (const phrase of [c.slug, c.en, c.ar, ...c.aliases])
        expect(extractConcentration(searchTokens(`khamrah ${phrase}`)), phrase).toMatchObject({
          tokens: ['khamrah'],
          concentration: c.slug,
        });
    for (const [phrase, slug] of [
      ['او دي بارفان', 'edp'],
      ['او دو برفان', 'edp'],
      ['ادو بارفان', 'edp'],
      ['او دي تواليت', 'edt'],
      ['ادو تواليت', 'edt'],
    ])
      expect(extractConcentration(searchTokens(`khamrah ${phrase}`)), phrase).toEqual({
        tokens: ['khamrah'],
        concentration: slug,
        removed: searchTokens(phrase as string),
      });
  });

  it('words that say whom a perfume is for are no part of its name’s length', () => {
    const gender = ['for', 'him', 'her', 'pour', 'homme', 'femme', 'men', 'women', 'man', 'woman', 'lui', 'elle'];
    const arabic = ['للرجال', 'للنساء', 'رجالي', 'نسائي'];
    const named = [...gender, ...arabic].map((w, i) => P(`g${i}`, `Qz${i}x ${w}`, 'Rasasi', 'edp', 2000));
    const gendered = buildSearchIndex(named, houses);
    named.forEach((p, i) => {
      // the whole name, gender word aside: the full whole-name boost
      const [hit] = search(gendered, `qz${i}x`);
      expect(hit?.id, p.name).toBe(p.id);
      expect(hit?.score, p.name).toBeCloseTo(score(1), 4);
    });
  });

  it('searchTokens: letter & letter is one word; the rest folded', () => {
    expect(searchTokens('D & G Light Blue')).toEqual(['dg', 'light', 'blue']);
    expect(searchTokens('Dolce & Gabbana')).toEqual(['dolce', 'and', 'gabbana']);
    expect(searchTokens('  ')).toEqual([]);
  });

  it('searchTokens: an article elided onto a word is one word, with its apostrophe lost or spaced', () => {
    for (const [text, tokens] of [
      ["L'Interdit", ['linterdit']],
      ['L Interdit', ['linterdit']],
      ["L' Interdit", ['linterdit']],
      ['Terre d Hermes', ['terre', 'dhermes']],
      ["Terre d' Hermès", ['terre', 'dhermes']],
      ['L Eau d Issey', ['leau', 'dissey']],
      ['D Orsay', ['dorsay']],
      ['L Or', ['lor']],
      ['Bal D Afrique', ['bal', 'dafrique']],
      ['L Ombre dans l Eau', ['lombre', 'dans', 'leau']],
    ] as const) {
      expect(searchTokens(text), text).toEqual(tokens);
    }
    // French elides before a vowel or h only: a lone letter before anything else is a word of its own
    for (const [text, tokens] of [
      ['D by Diesel', ['d', 'by', 'diesel']],
      ['L Lamb', ['l', 'lamb']],
      ['L.12.12 Blanc', ['l', '12', '12', 'blanc']],
      ['L.A.M.B.', ['l', 'a', 'm', 'b']],
      ['L', ['l']],
      ['D & G', ['dg']],
      ['B Eau', ['b', 'eau']],
      ['L عود', ['l', 'عود']],
    ] as const) {
      expect(searchTokens(text), text).toEqual(tokens);
    }
    // …nor onto an English word of its own
    for (const w of ['and', 'an', 'as', 'at', 'in', 'is', 'it', 'of', 'on']) {
      expect(searchTokens(`D ${w} G`), w).toEqual(['d', w, 'g']);
      expect(searchTokens(`L ${w}`), w).toEqual(['l', w]);
    }
  });

  it('a lookup finds a name whose elided article lost its apostrophe, and the other way round', () => {
    const elided = buildSearchIndex(
      [P('interdit', "L'Interdit", 'Givenchy', 'edp', 2018), P('terre', "Terre d'Hermès", 'Hermes', 'edt', 2006)],
      [{ name: 'Givenchy' }, { name: 'Hermes' }, { name: "D'Orsay" }],
    );
    const top = (q: string) => search(elided, q).map((h) => [h.id, Number(h.score.toFixed(4))]);
    expect(top('L Interdit')).toEqual([['interdit', score(1)]]);
    expect(top("L' Interdit")).toEqual([['interdit', score(1)]]);
    expect(top('terre d hermes')).toEqual([['terre', score(1)]]);
    expect(resolveHouse(elided, 'D Orsay')).toBe("D'Orsay");
  });
});

/** optimal string alignment distance, plainly */
function osa(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      row[j] = Math.min(
        (up[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (up[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  return (d[a.length] as number[])[b.length] as number;
}

describe('editDistance', () => {
  it('is the optimal string alignment distance up to max, and above max beyond it', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd'), maxLength: 9 });
    fc.assert(
      fc.property(word, word, fc.integer({ min: 0, max: 4 }), (a, b, max) => {
        const d = osa(a, b);
        if (d <= max) expect(editDistance(a, b, max)).toBe(d);
        else expect(editDistance(a, b, max)).toBeGreaterThan(max);
      }),
      { numRuns: 500 },
    );
    expect(editDistance('ab', 'ba', 1)).toBe(1);
    expect(editDistance('abcd', 'acbd', 2)).toBe(1);
    expect(editDistance('sauvage', 'sauvage', 0)).toBe(0);
  });

  it('counts its cells, and past the budget of one search answers "too far"', () => {
    const before = work.cells;
    editDistance('abcd', 'abdc', 2);
    expect(work.cells - before).toBe(16);
    editDistance('abcdefgh', 'ab', 2);
    expect(work.cells - before).toBe(16);
    const long = 'a'.repeat(400);
    withWorkBudget(() => {
      // 400 × 400 cells, once: the budget holds 200,000
      expect(editDistance(long, long, 2)).toBe(0);
      expect(editDistance(long, `${long.slice(1)}b`, 2)).toBe(3);
      expect(editDistance('abcd', 'abdc', 2)).toBe(1);
      // inside, a second budget is the same one
      withWorkBudget(() => expect(editDistance(long, long, 2)).toBe(3));
    });
    // spent to the last cell: 400 × 400 and 200 × 200 fit exactly, then nothing more
    withWorkBudget(() => {
      editDistance(long, long, 2);
      expect(editDistance('a'.repeat(200), 'a'.repeat(200), 2)).toBe(0);
      expect(editDistance('ab', 'ba', 2)).toBe(3);
    });
    expect(CELL_BUDGET).toBe(200_000);
    // a new budget for the next search
    withWorkBudget(() => expect(editDistance(long, long, 2)).toBe(0));
    expect(editDistance(long, long, 2)).toBe(0);
  });
});
