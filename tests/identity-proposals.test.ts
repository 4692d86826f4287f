import { describe, expect, it } from 'vitest';
import { readEvidence } from '../catalog/evidence.ts';
import { identityProposalOf, lineName, MAX_IDENTITY_EVIDENCE, pageOwner } from '../matching/identities.ts';
import { spellingOf } from '../matching/listing.ts';
import { identityRecord } from '../services/identities.ts';
import { bundledSnapshot } from './bundled-snapshot.ts';

/** a line of a house we know that the catalog does not hold */
const TITLE = 'Lattafa Qamar Al Zaman Eau de Parfum 100ml';
const KEY = spellingOf({ name: TITLE, house: '' }) as string;
const witness = (merchantId: string, url: string, name = TITLE, house = '') => ({ merchantId, url, name, house });

describe('what the listings of one spelling propose (matching/identities.ts)', () => {
  const index = () => bundledSnapshot().index;

  it('two shops on different hosts naming one house of ours and a line it lacks: a proposal, with its listings as evidence', () => {
    expect(KEY).toBe('s:lattafa qamar al zaman|edp');
    const p = identityProposalOf(
      KEY,
      [
        witness('m1', 'https://www.shop-one.example/p/qamar'),
        witness('m2', 'https://shop-two.example/products/1', 'لطافة قمر الزمان او دو بارفيوم', 'لطافه'),
      ],
      index(),
    );
    expect(p).toMatchObject({
      key: KEY,
      house: 'Lattafa',
      name: 'Qamar Al Zaman',
      concentration: 'edp',
      gender: null,
      shops: 2,
      merchantIds: ['m1', 'm2'],
    });
    expect(p?.evidence.map((e) => e.owner)).toEqual(['shop one example', 'shop two example']);
  });

  it('counts a shop once by its host, and only its bottles: never a sample, a miniature, a set or an answer to another', () => {
    const one = (url: string, name = TITLE) => witness('m', url, name);
    const alone = [one('https://a.example/1'), one('https://a.example/2'), one('https://www.a.example/3')];
    expect(identityProposalOf(KEY, alone, index())).toBeNull();
    for (const other of [
      'Lattafa Qamar Al Zaman EDP sample 2ml',
      'Lattafa Qamar Al Zaman EDP mini 10ml',
      'Lattafa Qamar Al Zaman gift set',
      'Lattafa Qamar Al Zaman EDP inspired by Aventus',
    ]) {
      expect(
        identityProposalOf(KEY, [one('https://a.example/1'), one('https://b.example/1', other)], index()),
      ).toBeNull();
    }
    // the evidence in the order of the shops' hosts, whatever order the listings came in
    const sorted = identityProposalOf(KEY, [one('https://z.example/1'), one('http://b.example/1')], index());
    expect(sorted?.evidence.map((e) => e.url)).toEqual(['http://b.example/1', 'https://z.example/1']);
    expect(pageOwner(`https://b.example/${'x'.repeat(600 - 'https://b.example/'.length)}`)).toBe('b example');
    // a page the catalog cannot cite is no evidence
    for (const url of [
      'ftp://b.example/1',
      'not a url',
      'https://b.example/a b',
      `https://b.example/${'x'.repeat(600)}`,
    ]) {
      expect(pageOwner(url)).toBeNull();
      expect(identityProposalOf(KEY, [one('https://a.example/1'), one(url)], index())).toBeNull();
    }
  });

  it('no house of ours, or shops naming different houses for one spelling: nothing proposed', () => {
    const k = spellingOf({ name: 'Zorblax Qamar Al Zaman EDP', house: '' }) as string;
    expect(
      identityProposalOf(
        k,
        [
          witness('m1', 'https://a.example/1', 'Zorblax Qamar Al Zaman EDP'),
          witness('m2', 'https://b.example/1', 'Zorblax Qamar Al Zaman EDP'),
        ],
        index(),
      ),
    ).toBeNull();
    expect(
      identityProposalOf(
        KEY,
        [witness('m1', 'https://a.example/1', TITLE, 'Lattafa'), witness('m2', 'https://b.example/1', TITLE, 'Rasasi')],
        index(),
      ),
    ).toBeNull();
  });

  it('states the gender only when every listing says the same, and keeps at most MAX_IDENTITY_EVIDENCE listings', () => {
    const men = 'Lattafa Qamar Al Zaman EDP for men 100ml';
    const k = spellingOf({ name: men, house: '' }) as string;
    const both = [witness('m1', 'https://a.example/1', men), witness('m2', 'https://b.example/1', men)];
    expect(identityProposalOf(k, both, index())).toMatchObject({ gender: 'men', name: 'Qamar Al Zaman' });
    const women = 'Lattafa Qamar Al Zaman EDP for women 100ml';
    const mixed = [witness('m1', 'https://a.example/1', men), witness('m2', 'https://b.example/1', women)];
    expect(identityProposalOf(k, mixed, index())).toMatchObject({ gender: null });
    // a spelling of the house alone names no line
    const houseOnly = 'Lattafa Eau de Parfum 100ml';
    const h = spellingOf({ name: houseOnly, house: '' }) as string;
    expect(
      identityProposalOf(
        h,
        [witness('m1', 'https://a.example/1', houseOnly), witness('m2', 'https://b.example/1', houseOnly)],
        index(),
      ),
    ).toBeNull();
    // merchants in a stable order; a title kept at 200 characters
    const long = `${TITLE} ${'x'.repeat(300)}`;
    const ordered = identityProposalOf(
      KEY,
      [witness('m2', 'https://a.example/1', long), witness('m1', 'https://b.example/1')],
      index(),
    );
    expect(ordered?.merchantIds).toEqual(['m1', 'm2']);
    expect(ordered?.evidence[0]?.title).toHaveLength(200);
    const many = Array.from({ length: 9 }, (_, i) => witness(`m${i}`, `https://s${i}.example/p`));
    const p = identityProposalOf(KEY, many, index());
    expect(p?.shops).toBe(9);
    expect(p?.evidence).toHaveLength(MAX_IDENTITY_EVIDENCE);
    expect(lineName('s:lattafa|edp', 'Lattafa', index(), [])).toBe('');
    // who it is for is not the line's; a line of such words alone is no line; digits and Arabic stay as written
    expect(lineName('s:lattafa asad for men|edp', 'Lattafa', index(), [])).toBe('Asad');
    expect(lineName('s:lattafa pour homme|edp', 'Lattafa', index(), [])).toBe('');
    expect(lineName('s:lattafa 9am قمر|', 'Lattafa', index(), [])).toBe('9am قمر');
    // the house's words in its own field are the house's, whatever the catalog calls it
    expect(lineName('s:lattafa perfumes qamar|edp', 'Lattafa', index(), ['Lattafa Perfumes'])).toBe('Qamar');
  });

  it('an approved record cites the listings for its identity, and its gender only when they state the one given', () => {
    const row = {
      id: 'x',
      spelling: KEY,
      house: 'Lattafa',
      name: 'Qamar Al Zaman',
      concentration: 'edp',
      gender: null,
      shops: 2,
      merchantIds: [],
      evidence: [
        { url: 'https://a.example/1', owner: 'a example', title: TITLE },
        { url: 'https://b.example/1', owner: 'b example', title: TITLE },
      ],
      status: 'waiting' as const,
      perfumeId: null,
      why: null,
      reviewedAt: null,
      createdAt: new Date(),
      updatedAt: new Date(),
    };
    expect(() => identityRecord(row, { decision: 'approve', why: 'ok' })).toThrow(/state no gender/);
    const r = identityRecord(row, { decision: 'approve', why: 'ok', gender: 'unisex' });
    expect(r).toMatchObject({
      id: 'lattafa-qamar-al-zaman-edp',
      house: 'Lattafa',
      concentration: 'edp',
      gender: 'unisex',
    });
    expect(r.evidence?.every((e) => e.supports.join() === 'identity')).toBe(true);
    expect(readEvidence(r)).toMatchObject({ identity: true, shops: 2, gender: false });
    const stated = identityRecord({ ...row, gender: 'men' }, { decision: 'approve', why: 'ok' });
    expect(readEvidence(stated)).toMatchObject({ identity: true, gender: true });
    expect(() =>
      identityRecord({ ...row, concentration: null }, { decision: 'approve', why: 'ok', gender: 'men' }),
    ).toThrow(/no concentration/);
    expect(() => identityRecord(row, { decision: 'approve', why: 'ok', gender: 'men', name: 'قمر الزمان' })).toThrow(
      /Latin letters/,
    );
  });
});
