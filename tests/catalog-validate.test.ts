import { describe, expect, it } from 'vitest';
import type { Evidence, HouseRecord, PerfumeRecord } from '../catalog/schema.ts';
import { checkCatalog, checkPerfume, type Problem } from '../catalog/validate.ts';

/**
 * The catalog's own checks (`npm run catalog:check`, the catalog test), one rule at a time, each
 * message held exactly: the message is what a writer of the catalog reads to fix a record.
 */
const lattafa: HouseRecord = {
  name: 'Lattafa',
  name_ar: 'لطافة',
  aliases: [],
  abbreviations: [],
  region: 'middle-east',
  country: 'AE',
};
const houses = new Map([[lattafa.name, lattafa]]);

const shop = (owner: string, gave: string, supports: Evidence['supports']): Evidence => ({
  source: `github:${owner}/catalog/products.csv@${'c'.repeat(40)}`,
  kind: 'shop',
  owner,
  gave,
  supports,
});
const backed = [
  shop('shop-a.com', 'Lattafa Qimmah EDP 100ml for women', ['identity', 'gender']),
  shop('shop-b.com', 'Lattafa Qimmah Eau de Parfum', ['identity']),
];

const record = (more: Partial<PerfumeRecord> = {}): PerfumeRecord => ({
  id: 'lattafa-qimmah-edp',
  name: 'Qimmah',
  house: 'Lattafa',
  concentration: 'edp',
  gender: 'women',
  evidence: backed,
  ...more,
});

const profile = (): Partial<PerfumeRecord> => ({
  grade: 'unreviewed',
  families: ['floral', 'amber'],
  accords: { 'white floral': 100, musky: 60, sweet: 50, powdery: 40 },
  notes: { top: ['bergamot'], heart: ['jasmine'], base: ['musk'] },
  seasons: ['spring'],
  times: ['day'],
  occasions: ['daily'],
});

describe('one record', () => {
  it('a valid identity, and a valid profile, have nothing to fix', () => {
    expect(checkPerfume(record(), houses)).toEqual([]);
    expect(checkPerfume(record(profile()), houses)).toEqual([]);
    // without the houses, the house is not looked up
    expect(checkPerfume(record({ house: 'Nobody' }), null)).toEqual([]);
  });

  it('a record of the wrong shape: at most three of its errors, each with its path', () => {
    const problems = checkPerfume({ id: 7, name: '', house: 3, concentration: 9, gender: 1, extra: true }, houses);
    expect(problems).toHaveLength(3);
    for (const p of problems) expect(p).toMatch(/^\/\S* /);
    expect(checkPerfume({ id: 'x', name: 'X', house: 'Lattafa', concentration: 'edp' }, houses)[0]).toMatch(
      /^\/gender? /,
    );
    // nothing past the shape is checked on a record of the wrong shape
    expect(checkPerfume({ id: 'x', house: 'Nobody' }, houses).some((p) => p.startsWith('house'))).toBe(false);
  });

  it('a concentration and a gender are the vocabulary slugs, written as slugs', () => {
    expect(checkPerfume(record({ concentration: 'eau de parfum' }), houses)).toEqual([
      'concentration: write "edp", not "eau de parfum"',
    ]);
    expect(checkPerfume(record({ concentration: 'mist' }), houses)).toEqual([
      'concentration: unknown concentration "mist"',
    ]);
    expect(checkPerfume(record({ gender: 'female' }), houses)).toEqual(['gender: write "women", not "female"']);
    expect(checkPerfume(record({ gender: 'kids' }), houses)).toEqual(['gender: unknown gender "kids"']);
  });

  it('a barcode must pass its check digit; a perfume is not inspired by itself', () => {
    expect(checkPerfume(record({ barcodes: ['6291108730515', '6291108730516'] }), houses)).toEqual([
      'barcodes: 6291108730516 fails its check digit',
    ]);
    expect(checkPerfume(record({ inspired_by: 'lattafa-qimmah-edp' }), houses)).toEqual([
      'inspired_by: a perfume is not inspired by itself',
    ]);
    expect(checkPerfume(record({ inspired_by: 'creed-aventus-edp' }), houses)).toEqual([]);
  });

  it("a profile's fields come together or not at all, naming those missing", () => {
    const { occasions: _o, times: _t, ...partial } = profile();
    expect(checkPerfume(record(partial), houses)).toEqual([
      "profile: times, occasions missing; a profile's fields come together or not at all",
    ]);
    expect(checkPerfume(record({ grade: 'referenced' }), houses)[0]).toBe(
      "profile: families, accords, notes, seasons, times, occasions missing; a profile's fields come together or not at all",
    );
  });

  it("every word of a profile is the vocabulary's", () => {
    const p = profile();
    expect(
      checkPerfume(
        record({ ...p, families: ['flowery'], seasons: ['monsoon'], times: ['dusk'], occasions: ['karaoke'] }),
        houses,
      ),
    ).toEqual([
      'families: unknown family "flowery"',
      'seasons: unknown season "monsoon"',
      'times: unknown time "dusk"',
      'occasions: unknown occasion "karaoke"',
    ]);
    expect(
      checkPerfume(record({ ...p, accords: { 'white floral': 100, musky: 60, sweet: 50, glitter: 40 } }), houses),
    ).toEqual(['accords: unknown accord "glitter"']);
  });

  it('four to eight accords, strongest first, the strongest weighing 100', () => {
    const p = profile();
    expect(checkPerfume(record({ ...p, accords: { 'white floral': 100, musky: 60, sweet: 50 } }), houses)).toEqual([
      'accords: 3 accords, want 4 to 8',
    ]);
    const nine = Object.fromEntries(
      ['white floral', 'musky', 'sweet', 'powdery', 'woody', 'amber', 'citrus', 'fresh', 'vanilla'].map((a, i) => [
        a,
        100 - i * 10,
      ]),
    );
    expect(checkPerfume(record({ ...p, accords: nine }), houses)).toEqual(['accords: 9 accords, want 4 to 8']);
    const eight = Object.fromEntries(Object.entries(nine).slice(0, 8));
    expect(checkPerfume(record({ ...p, accords: eight }), houses)).toEqual([]);
    expect(
      checkPerfume(record({ ...p, accords: { 'white floral': 100, musky: 40, sweet: 50, powdery: 60 } }), houses),
    ).toEqual(['accords: list them strongest first']);
    expect(
      checkPerfume(record({ ...p, accords: { 'white floral': 90, musky: 60, sweet: 50, powdery: 40 } }), houses),
    ).toEqual(['accords: the strongest accord weighs 100']);
    // equal weights are in order
    expect(
      checkPerfume(record({ ...p, accords: { 'white floral': 100, musky: 100, sweet: 50, powdery: 50 } }), houses),
    ).toEqual([]);
  });

  it('at least one note, all lower case; no family twice', () => {
    const p = profile();
    expect(checkPerfume(record({ ...p, notes: {} }), houses)).toEqual(['notes: at least one note']);
    expect(checkPerfume(record({ ...p, notes: { base: ['musk'] } }), houses)).toEqual([]);
    expect(checkPerfume(record({ ...p, notes: { top: ['bergamot'], base: ['White Musk'] } }), houses)).toEqual([
      'notes: lower case',
    ]);
    expect(checkPerfume(record({ ...p, notes: { heart: ['Jasmine'] } }), houses)).toEqual(['notes: lower case']);
    expect(checkPerfume(record({ ...p, families: ['floral', 'floral'] }), houses)).toEqual(['families: duplicates']);
  });

  it("the house must be one of houses.json's", () => {
    expect(checkPerfume(record({ house: 'Lataffa' }), houses)).toEqual(['house: "Lataffa" is not in houses.json']);
  });
});

describe('the whole catalog', () => {
  const messages = (problems: readonly Problem[]) => problems.map((p) => `${p.index} ${p.id ?? '-'}: ${p.message}`);

  it("a houses.json entry of the wrong shape, and a house written twice, each with the entry's place", () => {
    const bad = { ...lattafa, name: 'Bad', country: 'Arabia' };
    expect(messages(checkCatalog([record()], [lattafa, bad, { ...lattafa }]))).toEqual([
      '1 -: houses.json entry 1 is invalid',
      '2 -: houses.json: duplicate house Lattafa',
    ]);
  });

  it('each record is checked, with its place and id', () => {
    expect(
      messages(checkCatalog([record(), record({ id: 'lattafa-x-edp', name: 'X', gender: 'girls' })], [lattafa])),
    ).toEqual(['1 lattafa-x-edp: gender: unknown gender "girls"']);
  });

  it('an id twice, and one house, name and concentration twice however the name is written', () => {
    const twin = record({ name: 'QIMMAH' });
    expect(messages(checkCatalog([record(), twin], [lattafa]))).toEqual([
      '1 lattafa-qimmah-edp: duplicate id',
      '1 lattafa-qimmah-edp: duplicate name/house/concentration',
    ]);
    // another concentration of the line is another perfume
    expect(checkCatalog([record(), record({ id: 'lattafa-qimmah-edt', concentration: 'edt' })], [lattafa])).toEqual([]);
  });

  it('a record of the wrong shape is reported, and the others still checked', () => {
    expect(messages(checkCatalog([null, 'x', record({ id: 'y', house: 'Nobody' })], [lattafa]))).toEqual([
      expect.stringMatching(/^0 -: \//),
      expect.stringMatching(/^1 -: \//),
      '2 y: house: "Nobody" is not in houses.json',
    ]);
  });

  it("with evidence: a record's unbacked facts are problems; an older grouped record's, backlog", () => {
    const lone = record({ evidence: [backed[0] as Evidence] });
    const backlog: Problem[] = [];
    expect(messages(checkCatalog([lone], [lattafa], { legacy: new Set(), backlog }))).toEqual([
      "0 lattafa-qimmah-edp: identity: cite the house's text, or listings of 2 independent shops (1 shop cited)",
    ]);
    expect(backlog).toEqual([]);
    expect(checkCatalog([lone], [lattafa], { legacy: new Set(['lattafa-qimmah-edp']), backlog })).toEqual([]);
    expect(messages(backlog)).toEqual([
      "0 lattafa-qimmah-edp: identity: cite the house's text, or listings of 2 independent shops (1 shop cited)",
    ]);
    // without evidence asked for, no fact is checked against sources
    expect(checkCatalog([lone], [lattafa])).toEqual([]);
    // a record of the wrong shape is not read for its evidence
    const wrong = { ...lone, gender: 5 };
    const none: Problem[] = [];
    expect(
      checkCatalog([wrong], [lattafa], { legacy: new Set(), backlog: none }).some((p) =>
        p.message.startsWith('identity'),
      ),
    ).toBe(false);
  });

  it('"inspired by" names a record of the catalog, itself inspired by none', () => {
    const original = record({ id: 'o', name: 'Original' });
    const answer = record({ id: 'a', name: 'Answer', inspired_by: 'o' });
    const chain = record({ id: 'c', name: 'Chain', inspired_by: 'a' });
    const lost = record({ id: 'l', name: 'Lost', inspired_by: 'nowhere' });
    expect(messages(checkCatalog([original, answer, chain, lost], [lattafa]))).toEqual([
      '2 c: inspired_by: a is itself inspired by another',
      '3 l: inspired_by: no record nowhere',
    ]);
    // the record inspired by itself is told so once, by its own check
    expect(messages(checkCatalog([record({ inspired_by: 'lattafa-qimmah-edp' })], [lattafa]))).toEqual([
      '0 lattafa-qimmah-edp: inspired_by: a perfume is not inspired by itself',
    ]);
  });
});
