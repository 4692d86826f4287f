import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { profileFromNotes } from '../matching/note-profile.ts';
import {
  agreedNotes,
  COPY_SIMILARITY,
  MAX_SHOP_NOTES,
  MIN_AGREED_NOTES,
  MIN_SHOPS,
  PRINT_SIZE,
  printSimilarity,
  type ShopNotes,
  type ShopVoice,
  shopNotesOf,
  shopsProfile,
  textPrint,
} from '../matching/shop-notes.ts';

const notes = (n: Partial<ShopNotes>): ShopNotes => ({ top: [], heart: [], base: [], flat: [], ...n });
const voice = (merchantId: string, n: Partial<ShopNotes>, text: string | null = null): ShopVoice => ({
  merchantId,
  notes: notes(n),
  print: textPrint(text),
});

describe('shopNotesOf: the notes one shop gives of its product', () => {
  it('reads the tiers of a description and the listed notes, by their canonical names, each once', () => {
    expect(
      shopNotesOf({
        description: 'Top notes: Bergamot, Pink Pepper. Heart notes: Taif Rose, Jasmine. Base notes: Oud, Amber, Musk.',
        notes: { base: ['oud', 'Sandalwood'] },
      }),
    ).toEqual({
      top: ['bergamot', 'pink pepper'],
      heart: ['taif rose', 'jasmine'],
      base: ['oud', 'sandalwood', 'amber', 'musk'],
      flat: [],
    });
  });

  it('keeps at most MAX_SHOP_NOTES notes a tier', () => {
    const many = [
      'oud',
      'rose',
      'amber',
      'musk',
      'saffron',
      'bergamot',
      'vanilla',
      'jasmine',
      'patchouli',
      'vetiver',
      'cedar',
      'sandalwood',
      'lemon',
      'lavender',
      'iris',
      'violet',
      'tonka bean',
      'benzoin',
      'incense',
      'leather',
      'tobacco',
      'coffee',
      'cinnamon',
      'cardamom',
      'pink pepper',
      'ginger',
      'mint',
      'neroli',
      'orange blossom',
      'tuberose',
      'ylang ylang',
      'peony',
      'lily of the valley',
    ];
    const n = shopNotesOf({ description: null, notes: { base: many } });
    expect(many.length).toBeGreaterThan(MAX_SHOP_NOTES);
    expect(n?.base).toHaveLength(MAX_SHOP_NOTES);
    expect(n?.base).toEqual(many.slice(0, MAX_SHOP_NOTES));
  });

  it('reads an Arabic description as an English one', () => {
    const n = shopNotesOf({
      description: 'المقدمة: برغموت، فلفل وردي. القلب: ورد طائفي. القاعدة: عود، عنبر',
      notes: null,
    });
    expect(n?.top).toEqual(expect.arrayContaining(['bergamot']));
    expect(n?.base).toEqual(expect.arrayContaining(['oud']));
  });

  it('gives nothing for a product that names no note', () => {
    expect(shopNotesOf({ description: 'Long lasting. Free shipping on orders over 200 SAR.', notes: null })).toBeNull();
    expect(shopNotesOf({ description: null, notes: null })).toBeNull();
    expect(shopNotesOf({ description: null, notes: { top: ['not a note at all'] } })).toBeNull();
  });
});

describe('textPrint: copies of one text are told from texts of their own', () => {
  const press =
    'Top notes: ruby red grapefruit, bergamot, mandarin blossom. Heart notes: boysenberry flower, orchid, melati blossom. Base notes: white lily, golden magnolia, mimosa.';
  it('finds a pasted text a copy, even with the shop’s own words around it', () => {
    const a = textPrint(press) as number[];
    expect(printSimilarity(a, textPrint(press) as number[])).toBe(1);
    expect(printSimilarity(a, textPrint(`${press} Order now from Oud House.`) as number[])).toBeGreaterThanOrEqual(
      COPY_SIMILARITY,
    );
  });

  it('finds two shops’ own descriptions of the same notes independent', () => {
    const own =
      'A happy citrus for every day: it opens on grapefruit and bergamot, flowers of orchid at its heart, and dries down to magnolia and mimosa. 100 ml, for her.';
    expect(printSimilarity(textPrint(press) as number[], textPrint(own) as number[])).toBeLessThan(COPY_SIMILARITY);
  });

  it('prints nothing of a text too short to tell', () => {
    expect(textPrint('Oud rose')).toBeNull();
    expect(textPrint('… , !')).toBeNull();
    expect(textPrint(null)).toBeNull();
    expect(textPrint('Oud rose amber')).toHaveLength(PRINT_SIZE);
  });

  it('prints the first 4,000 characters only: what follows changes nothing', () => {
    const long = `${'oud rose amber musk saffron '.repeat(200)}`.slice(0, 4000);
    expect(textPrint(`${long} vanilla tonka coffee leather tobacco`)).toEqual(textPrint(long));
  });
});

describe('agreedNotes: what independent shops agree a perfume smells of', () => {
  const a1 = { top: ['bergamot', 'pink pepper'], heart: ['rose'], base: ['oud', 'amber'] };
  const a2 = { top: ['bergamot'], heart: ['rose', 'jasmine'], base: ['oud', 'amber', 'musk'] };

  it('keeps the notes two shops give, and leaves out a note only one gives', () => {
    expect(MIN_SHOPS).toBe(2);
    const agreed = agreedNotes([voice('a1', a1), voice('a2', a2)]);
    expect(agreed).toEqual({
      notes: { top: ['bergamot'], heart: ['rose'], base: ['amber', 'oud'], flat: [] },
      shops: 2,
    });
  });

  it("takes one shop's word for nothing, however many of its products describe the perfume", () => {
    expect(agreedNotes([voice('a1', a1), voice('a1', a2), voice('a1', a1)])).toBeNull();
  });

  it('counts a description pasted by two shops once', () => {
    const text = 'Top notes: bergamot, pink pepper. Heart: rose. Base: oud, amber. A royal oriental for evenings.';
    expect(agreedNotes([voice('a1', a1, text), voice('a2', a1, text)])).toBeNull();
    // a third shop's own words make two voices
    expect(
      agreedNotes([
        voice('a1', a1, text),
        voice('a2', a1, text),
        voice('a3', a2, 'Notes of oud, amber, rose and bergamot with musk.'),
      ]),
    ).toMatchObject({ shops: 2 });
  });

  it('needs MIN_AGREED_NOTES notes in common', () => {
    expect(MIN_AGREED_NOTES).toBe(2);
    expect(agreedNotes([voice('a1', { base: ['oud', 'amber'] }), voice('a2', { base: ['oud', 'musk'] })])).toBeNull();
    expect(
      agreedNotes([voice('a1', { base: ['oud', 'amber'] }), voice('a2', { base: ['oud', 'amber', 'musk'] })]),
    ).toEqual({
      notes: { top: [], heart: [], base: ['amber', 'oud'], flat: [] },
      shops: 2,
    });
  });

  it('puts a note in the tier most shops give it, a tier before none', () => {
    const agreed = agreedNotes([
      voice('a', { top: ['saffron'], flat: ['oud', 'rose'] }),
      voice('b', { heart: ['saffron'], base: ['oud'], flat: ['rose'] }),
      voice('c', { heart: ['saffron'], flat: ['oud', 'rose'] }),
    ]);
    expect(agreed?.notes).toEqual({ top: [], heart: ['saffron'], base: ['oud'], flat: ['rose'] });
    expect(agreed?.shops).toBe(3);
  });

  it("takes a merchant's richest description of the perfume as its one voice", () => {
    const agreed = agreedNotes([voice('a1', { base: ['oud'] }), voice('a1', a1), voice('a2', a2)]);
    expect(agreed?.notes.base).toEqual(['amber', 'oud']);
    // the richer one wins whichever comes first and however it sorts
    const rich = voice('a1', { base: ['amber', 'musk', 'oud'] });
    const poor = voice('a1', { top: ['zzz'], base: ['oud'] });
    for (const order of [
      [rich, poor],
      [poor, rich],
    ])
      expect(agreedNotes([...order, voice('a2', { base: ['amber', 'musk'] })])?.notes.base).toEqual(['amber', 'musk']);
  });

  const NOTES = ['oud', 'rose', 'amber', 'musk', 'saffron', 'bergamot', 'vanilla', 'jasmine'];
  const arbVoice = fc.record({
    merchantId: fc.constantFrom('a', 'b', 'c', 'd'),
    notes: fc.record({
      top: fc.subarray(NOTES),
      heart: fc.subarray(NOTES),
      base: fc.subarray(NOTES),
      flat: fc.subarray(NOTES),
    }),
    print: fc.constant(null),
  });
  it('holds for all voices: every note kept is given by two merchants, and the order of voices changes nothing', () => {
    fc.assert(
      fc.property(fc.array(arbVoice, { maxLength: 8 }), (voices) => {
        const agreed = agreedNotes(voices);
        if (!agreed) return;
        const all = [...agreed.notes.top, ...agreed.notes.heart, ...agreed.notes.base, ...agreed.notes.flat];
        expect(new Set(all).size).toBe(all.length);
        for (const n of all) {
          const givers = new Set(
            voices.filter((v) => Object.values(v.notes).some((l) => l.includes(n))).map((v) => v.merchantId),
          );
          expect(givers.size).toBeGreaterThanOrEqual(2);
        }
        expect(agreedNotes([...voices].reverse())).toEqual(agreed);
      }),
    );
  });
});

describe('shopsProfile', () => {
  it('scores the agreed notes as shops describe them, saying so', () => {
    const p = shopsProfile({
      notes: { top: ['bergamot'], heart: ['rose'], base: ['oud', 'amber'], flat: [] },
      shops: 2,
    });
    expect(p.source).toBe('shops');
    expect(p.notes).toEqual({ top: ['bergamot'], heart: ['rose'], base: ['oud', 'amber'] });
    expect(p.accords.map((a) => a.name)).toEqual(expect.arrayContaining(['oud', 'amber']));
    expect(p.families.length).toBeGreaterThan(0);
  });
});

describe('a profile from shops with the accords merchants’ answers agree on', () => {
  const agreed = { notes: { top: ['bergamot'], heart: [], base: ['oud'], flat: ['saffron'] }, shops: 2 };
  it('weighs the accords in, keeps the notes where descriptions placed them, and is the shops’ profile', () => {
    const p = shopsProfile(agreed, ['amber']);
    expect(p.source).toBe('shops');
    expect(p.accords[0]?.name).toBe('amber');
    expect(p.accords.map((a) => a.name)).toEqual(expect.arrayContaining(['oud']));
    expect(p.notes).toEqual({ top: ['bergamot'], heart: [], base: ['oud'] });
  });
  it('without accords, is the notes’ profile alone', () => {
    expect(shopsProfile(agreed, [])).toEqual(shopsProfile(agreed));
    // the notes weighed by their tiers, as a perfume's pyramid is
    expect(shopsProfile(agreed, []).accords).toEqual(profileFromNotes(agreed.notes).accords);
    expect(shopsProfile(agreed).accords[0]?.name).not.toBe('amber');
  });
});
