import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  COUNTED_KINDS,
  evidenceProblems,
  isLegacyFile,
  ownerKey,
  readEvidence,
  shopListingProblem,
} from '../catalog/evidence.ts';
import { EVIDENCE_KINDS, type Evidence, type EvidenceKind, type PerfumeRecord } from '../catalog/schema.ts';
import { checkCatalog } from '../catalog/validate.ts';
import { validGtin } from '../lib/gtin.ts';

const shop = (owner: string, gave: string, supports: Evidence['supports'] = ['identity']): Evidence => ({
  source: `github:${owner}/catalog/products.csv@${'b'.repeat(40)}`,
  kind: 'shop',
  owner,
  gave,
  supports,
});
const page = (kind: EvidenceKind, owner: string, gave: string, supports: Evidence['supports']): Evidence => ({
  source: `https://${owner}/page`,
  kind,
  owner,
  gave,
  supports,
});

const identity = (evidence: Evidence[], more: Partial<PerfumeRecord> = {}): PerfumeRecord => ({
  id: 'lattafa-qimmah-edp',
  name: 'Qimmah',
  house: 'Lattafa',
  concentration: 'edp',
  gender: 'women',
  evidence,
  ...more,
});

const profile: Partial<PerfumeRecord> = {
  families: ['floral'],
  accords: { 'white floral': 100, musky: 60, sweet: 50, powdery: 40 },
  notes: { top: ['bergamot'], heart: ['jasmine'], base: ['musk'] },
  seasons: ['spring'],
  times: ['day'],
  occasions: ['daily'],
};

const genderShop = shop('shop-a.com', 'Lattafa Qimmah EDP for women', ['identity', 'gender']);

describe("what a record's sources allow", () => {
  it("takes an identity from the house's own text, or from two shops of different owners", () => {
    expect(readEvidence(identity([page('house', 'lattafa.com', 'Qimmah EDP', ['identity'])])).identity).toBe(true);
    expect(readEvidence(identity([shop('a.com', 'Qimmah EDP'), shop('b.com', 'Qimmah EDP')])).identity).toBe(true);
    expect(readEvidence(identity([shop('a.com', 'Qimmah EDP')])).identity).toBe(false);
    // two pages of one shop, however its name is written, are one shop
    const one = readEvidence(identity([shop('www.A.com/', 'Qimmah EDP'), shop('https://a.com', 'Qimmah 100ml EDP')]));
    expect(one).toMatchObject({ identity: false, shops: 1 });
    // a reference or a review naming it is not the house's text nor a shop
    expect(readEvidence(identity([page('review', 'blog.com', 'Qimmah', ['identity'])])).identity).toBe(false);
    // a source that backs another fact does not back the identity
    expect(readEvidence(identity([shop('a.com', 'x', ['gender']), shop('b.com', 'y', ['gender'])])).identity).toBe(
      false,
    );
  });

  it('takes a launch year from the house, a reference or a launch report, never from a shop or a review', () => {
    for (const kind of EVIDENCE_KINDS) {
      const r = identity([page(kind, 'x.com', 'launched in 2019', ['year'])], { year: 2019 });
      expect(readEvidence(r).year, kind).toBe(kind === 'house' || kind === 'reference' || kind === 'launch');
    }
  });

  it('takes an Arabic name only from a source whose text holds it, however its letters are written', () => {
    const r = (gave: string) => identity([shop('a.com', gave, ['name_ar'])], { name_ar: 'قمة' });
    expect(readEvidence(r('عطر لطافة قمه او دو بارفان')).nameAr).toBe(true);
    expect(readEvidence(r('عطر لطافة قمر او دو بارفان')).nameAr).toBe(false);
    expect(readEvidence(identity([shop('a.com', 'قمة', ['identity'])], { name_ar: 'قمة' })).nameAr).toBe(false);
  });

  it('names every barcode no source gives', () => {
    const r = identity([shop('a.com', 'EAN 6291108735411', ['barcode'])], {
      barcodes: ['6291108735411', '6291107456058'],
    });
    expect(readEvidence(r).unbackedBarcodes).toEqual(['6291107456058']);
  });

  it('takes "inspired by" from the house, or from two independent sources', () => {
    const says = (kind: EvidenceKind, owner: string) => page(kind, owner, 'inspired by Aventus', ['inspired_by']);
    expect(readEvidence(identity([says('house', 'house.com')])).inspiredBy).toBe(true);
    expect(readEvidence(identity([says('shop', 'a.com'), says('review', 'b.com')])).inspiredBy).toBe(true);
    expect(readEvidence(identity([says('shop', 'a.com'), says('shop', 'www.a.com')])).inspiredBy).toBe(false);
  });

  it("allows `confirmed` for the house's notes with a second publisher's, `referenced` for one counted source", () => {
    const house = page('house', 'lattafa.com', 'bergamot, jasmine, musk', ['notes']);
    const review = page('review', 'blog.com', 'bergamot, jasmine and musk', ['notes']);
    const quote = page('review', 'lattafa.com', 'bergamot, jasmine, musk', ['notes']);
    const listing = shop('a.com', 'bergamot, jasmine, musk', ['notes']);
    expect(readEvidence(identity([house, review])).allowedGrade).toBe('confirmed');
    // a second page of the house's own is not a second source
    expect(readEvidence(identity([house, quote])).allowedGrade).toBe('referenced');
    expect(readEvidence(identity([house, listing])).allowedGrade).toBe('confirmed');
    expect(readEvidence(identity([review])).allowedGrade).toBe('referenced');
    expect(readEvidence(identity([listing])).allowedGrade).toBeNull();
  });

  it("names every note of a profile no counted source's text gives, reading other names of one note as it", () => {
    const r = identity([page('review', 'blog.com', 'Mandarin, jasmine sambac; white musk', ['notes'])], {
      ...profile,
      grade: 'referenced',
      notes: { top: ['mandarin orange'], heart: ['jasmine sambac', 'tuberose'], base: ['white musk'] },
    });
    expect(readEvidence(r).unbackedNotes).toEqual(['tuberose']);
    // a shop's note list is not a counted source
    const fromShop = identity([shop('a.com', 'tuberose', ['notes'])], {
      ...profile,
      grade: 'referenced',
      notes: { heart: ['tuberose'] },
    });
    expect(readEvidence(fromShop).unbackedNotes).toEqual(['tuberose']);
  });
});

describe('the problems a record is refused for', () => {
  const backed = [
    genderShop,
    shop('shop-b.com', 'LATTAFA QIMMAH EDP 100ML'),
    page('launch', 'trade.com', 'Qimmah, launched 2021', ['year']),
  ];

  it('passes an identity without a profile when its sources back every fact it states', () => {
    expect(evidenceProblems(identity(backed, { year: 2021 }), false)).toEqual({ problems: [], backlog: [] });
  });

  it('refuses each fact its sources do not back, and reports it as backlog for the older grouped files', () => {
    const r = identity([shop('shop-a.com', 'Qimmah')], { year: 2021, name_ar: 'قمة' });
    const found = evidenceProblems(r, false);
    expect(found.problems.map((p) => p.split(':')[0])).toEqual(['identity', 'year', 'gender', 'name_ar']);
    expect(found.problems[0]).toContain('1 shop cited');
    const legacy = evidenceProblems(r, true);
    expect(legacy.problems).toEqual([]);
    expect(legacy.backlog).toEqual(found.problems);
  });

  it('refuses an unbacked barcode or "inspired by" even in the older grouped files', () => {
    const r = identity(backed, { barcodes: ['6291108735411'], inspired_by: 'creed-aventus-edp' });
    const found = evidenceProblems(r, true);
    expect(found.problems).toEqual([
      'barcodes: 6291108735411 is given by no source',
      'inspired_by: cite the house, or 2 independent sources that say so',
    ]);
  });

  it('refuses a grade higher than the sources allow, and `unreviewed` outside the older grouped files', () => {
    const review = page('review', 'blog.com', 'bergamot, jasmine, musk', ['notes']);
    const confirmed = identity([...backed, review], { ...profile, grade: 'confirmed' });
    expect(evidenceProblems(confirmed, false).problems).toEqual([
      `grade: "confirmed" needs the house's notes and a second source's; its sources allow referenced`,
    ]);
    expect(evidenceProblems({ ...confirmed, grade: 'referenced' }, false).problems).toEqual([]);
    const unsourced = identity(backed, { ...profile, grade: 'referenced' });
    expect(evidenceProblems(unsourced, false).problems[0]).toBe(
      'grade: "referenced" needs a counted non-shop source for the notes; its sources allow no profile',
    );
    const unreviewed = identity(backed, { ...profile, grade: 'unreviewed' });
    expect(evidenceProblems(unreviewed, false).problems).toEqual([
      'grade: "unreviewed" belongs to the older grouped files only',
    ]);
    expect(evidenceProblems(unreviewed, true).problems).toEqual([]);
  });

  it('never allows a grade above what any set of sources gives (property)', () => {
    const kind = fc.constantFrom(...EVIDENCE_KINDS);
    const owner = fc.constantFrom('a.com', 'b.com', 'c.com');
    const ev = fc.record({ kind, owner, notes: fc.boolean() });
    fc.assert(
      fc.property(fc.array(ev, { maxLength: 5 }), (list) => {
        const evidence = list.map((e) => page(e.kind, e.owner, 'bergamot', e.notes ? ['notes'] : ['identity']));
        const allowed = readEvidence(identity(evidence)).allowedGrade;
        const notes = list.filter((e) => e.notes);
        const counted = notes.some((e) => COUNTED_KINDS.has(e.kind));
        const house = notes.filter((e) => e.kind === 'house').map((e) => e.owner);
        const second = house.length > 0 && notes.some((e) => !house.includes(e.owner));
        expect(allowed).toBe(second ? 'confirmed' : counted ? 'referenced' : null);
      }),
    );
  });
});

describe('the catalog check with evidence', () => {
  const backed = [genderShop, shop('shop-b.com', 'LATTAFA QIMMAH EDP 100ML')];
  const houses = [
    { name: 'Lattafa', name_ar: 'لطافة', aliases: [], abbreviations: [], region: 'middle-east', country: 'AE' },
  ];

  it('accepts an identity without a profile, and refuses a profile with fields missing', () => {
    const ok = checkCatalog([identity(backed)], houses as never, { legacy: new Set(), backlog: [] });
    expect(ok).toEqual([]);
    const half = checkCatalog([identity(backed, { grade: 'referenced', families: ['floral'] })], houses as never);
    expect(half.map((p) => p.message)).toEqual([
      "profile: accords, notes, seasons, times, occasions missing; a profile's fields come together or not at all",
    ]);
  });

  it('refuses an "inspired by" that points nowhere, at itself, or at a perfume itself inspired by another', () => {
    const a = identity(backed, { id: 'a', name: 'A', inspired_by: 'b' });
    const b = identity(backed, { id: 'b', name: 'B', inspired_by: 'c' });
    const c = identity(backed, { id: 'c', name: 'C' });
    const self = identity(backed, { id: 'd', name: 'D', inspired_by: 'd' });
    const missing = identity(backed, { id: 'e', name: 'E', inspired_by: 'nowhere' });
    const messages = checkCatalog([a, b, c, self, missing], houses as never).map((p) => `${p.id}: ${p.message}`);
    expect(messages).toEqual([
      'd: inspired_by: a perfume is not inspired by itself',
      'a: inspired_by: b is itself inspired by another',
      'e: inspired_by: no record nowhere',
    ]);
  });

  it('refuses a barcode whose check digit fails, and reports backlog apart from problems', () => {
    const bad = identity(backed, { barcodes: ['6291108735412'] });
    expect(checkCatalog([bad], houses as never).map((p) => p.message)).toEqual([
      'barcodes: 6291108735412 fails its check digit',
    ]);
    const backlog: { index: number; id?: string; message: string }[] = [];
    const lone = identity([shop('a.com', 'Qimmah')]);
    expect(checkCatalog([lone], houses as never, { legacy: new Set(['lattafa-qimmah-edp']), backlog })).toEqual([]);
    expect(backlog.map((b) => b.message.split(':')[0])).toEqual(['identity', 'gender']);
  });
});

describe('small rules', () => {
  it('validates GTIN check digits (EAN-13, UPC-A, GTIN-8, GTIN-14)', () => {
    for (const good of ['6291108735411', '036000291452', '96385074', '10614141000415'])
      expect(validGtin(good)).toBe(true);
    for (const bad of ['6291108735412', '036000291453', '96385075', '1234567', '12345678901', 'abcdefghijklm']) {
      expect(validGtin(bad), bad).toBe(false);
    }
  });

  it('reads one owner however its domain is written', () => {
    expect(ownerKey('https://www.Golden-Scent.com/')).toBe(ownerKey('golden-scent.com'));
    expect(ownerKey('a.com')).not.toBe(ownerKey('b.com'));
  });

  it('knows the older grouped files by name', () => {
    for (const f of ['designers-1.json', 'niche-3.json', 'me-lattafa-group.json']) expect(isLegacyFile(f)).toBe(true);
    for (const f of ['lattafa-identities.json', 'azzaro.json', 'designers.json', 'me-x.json.bak']) {
      expect(isLegacyFile(f), f).toBe(false);
    }
  });
});

describe('the rules at their edges', () => {
  it('reads an owner with its scheme, www, case, spaces and trailing slashes as the same owner', () => {
    for (const same of ['HTTPS://Shop.com', 'http://www.shop.com//', ' shop.com ', 'www.shop.com/']) {
      expect(ownerKey(same), same).toBe('shop com');
    }
    expect(ownerKey('myshop.com')).not.toBe(ownerKey('shop.com'));
  });

  it('counts only shops among the sources of an identity: a review and one shop are one shop', () => {
    const r = identity([page('review', 'blog.com', 'Qimmah EDP', ['identity']), shop('a.com', 'Qimmah EDP')]);
    expect(readEvidence(r)).toMatchObject({ identity: false, shops: 1 });
  });

  it('never reads a name or a barcode across the end of one source and the start of another', () => {
    const r = identity(
      [shop('a.com', 'EAN 6291108', ['barcode', 'name_ar']), shop('b.com', '735411 قم', ['barcode', 'name_ar'])],
      { barcodes: ['6291108735411'], name_ar: 'قمة' },
    );
    expect(readEvidence(r).unbackedBarcodes).toEqual(['6291108735411']);
    expect(
      readEvidence(
        identity([shop('a.com', 'لطافة ق', ['name_ar']), shop('b.com', 'مة', ['name_ar'])], { name_ar: 'قمة' }),
      ).nameAr,
    ).toBe(false);
  });

  it('reads a note by another name of up to four words, and a note no knowledge base knows as written', () => {
    const r = (heart: string[], gave: string) =>
      identity([page('review', 'blog.com', gave, ['notes'])], { ...profile, grade: 'referenced', notes: { heart } });
    expect(readEvidence(r(['muguet'], 'Heart: lily of the valley.')).unbackedNotes).toEqual([]);
    expect(readEvidence(r(['orcanox'], 'its base of Orcanox and woods')).unbackedNotes).toEqual([]);
    expect(readEvidence(r(['orcanox'], 'its base of woods')).unbackedNotes).toEqual(['orcanox']);
    // a record without notes or evidence owes none
    expect(
      readEvidence({ id: 'x', name: 'X', house: 'Lattafa', concentration: 'edp', gender: 'men' }).unbackedNotes,
    ).toEqual([]);
  });

  it('grades `referenced` on a reference, a launch report or a review alone', () => {
    for (const kind of ['house', 'reference', 'launch', 'review'] as const) {
      expect(readEvidence(identity([page(kind, 'x.com', 'bergamot', ['notes'])])).allowedGrade, kind).not.toBeNull();
    }
  });

  it('says how many shops an identity has, and names each unbacked note', () => {
    expect(evidenceProblems(identity([]), false).problems[0]).toBe(
      "identity: cite the house's text, or listings of 2 independent shops (0 shops cited)",
    );
    const r = identity(
      [...[genderShop, shop('b.com', 'Qimmah EDP')], page('review', 'blog.com', 'bergamot', ['notes'])],
      {
        ...profile,
        grade: 'referenced',
        notes: { top: ['bergamot', 'tuberose'] },
      },
    );
    expect(evidenceProblems(r, false).problems).toEqual([`notes: "tuberose" is given by no counted source's text`]);
  });

  it('refuses a barcode of the wrong length even when its digits would check', () => {
    expect(validGtin('096385074')).toBe(false); // nine digits: a GTIN-8 with a leading zero is not one
    expect(validGtin('x96385074')).toBe(false);
    expect(validGtin('963850741')).toBe(false);
  });

  it('knows an older grouped file only by its whole name', () => {
    expect(isLegacyFile('old-designers-1.json')).toBe(false);
  });
});

describe("a shop's listing backs an identity only as the perfume's bottle", () => {
  it('a sample, a decant, a miniature, a set or an answer to another perfume is not the bottle', () => {
    expect(shopListingProblem('عينة ديور سوفاج بارفيوم')).toBe('a sample or decant');
    expect(shopListingProblem('Dior Sauvage EDP decant 10ml')).toBe('a sample or decant');
    expect(shopListingProblem('MINI LATTAFA ASAD BOURBON 30ML EDP')).toBe('a miniature');
    expect(shopListingProblem('Shakira Dream EDT 8 ml')).toBe('a miniature');
    expect(shopListingProblem('Angel Nova Eau de Parfum Travel Spray')).toBe('a miniature');
    expect(shopListingProblem('عطر جورجيو أرماني سي أو دو بارفيوم طقم محدود 50 مل + 10 مل')).toBe('a gift set');
    expect(shopListingProblem('خمرة من لطافة 100 مل بديل عطر كيليان أنجيلز شير أو دو برفيوم')).toBe(
      'sold as the answer to another perfume',
    );
    expect(shopListingProblem('Club de Nuit Intense Man EDT, inspired by Aventus')).toBe(
      'sold as the answer to another perfume',
    );
  });

  it('a full bottle, a tester and a refill are the perfume; a word holding "ميني" is no miniature', () => {
    expect(shopListingProblem('Dior Sauvage EDP 100 ml')).toBeNull();
    expect(shopListingProblem('تستر ديور سوفاج او دو بارفيوم 100 مل')).toBeNull();
    expect(shopListingProblem('Chanel Coco EDP refill 100 ml')).toBeNull();
    expect(shopListingProblem('توم فورد عود مينيرالي أو دو برفيوم 100 مل')).toBeNull();
    expect(shopListingProblem('لطافة عود مود ريمينيسينس أو دو برفيوم 100 مل')).toBeNull();
  });

  it('two shops, one of them selling a sample: one shop backs the identity, which is not enough', () => {
    const record = identity([
      shop('shop-a.com', 'Lattafa Qimmah EDP 100ml'),
      shop('shop-b.com', 'عينة لطافة قمة او دو بارفيوم 2مل'),
    ]);
    expect(readEvidence(record).shops).toBe(1);
    expect(readEvidence(record).identity).toBe(false);
    const both = identity([
      shop('shop-a.com', 'Lattafa Qimmah EDP 100ml'),
      shop('shop-b.com', 'لطافة قمة او دو بارفيوم'),
    ]);
    expect(readEvidence(both).identity).toBe(true);
    // the house's own text, and a reference's, are not listings: a miniature named there takes nothing away
    const house = identity([page('house', 'lattafa.com', 'Qimmah EDP, also as a 10 ml travel spray', ['identity'])]);
    expect(readEvidence(house).identity).toBe(true);
    // the sample still gives what it says of the perfume: its gender
    const gendered = identity([shop('shop-a.com', 'Lattafa Qimmah EDP 2ml sample for women', ['gender'])]);
    expect(readEvidence(gendered).gender).toBe(true);
  });
});
