import { describe, expect, it } from 'vitest';
import { gtinKey } from '../lib/gtin.ts';
import {
  applyBarcodeKeys,
  type BarcodeKey,
  type BarcodeWitness,
  barcodeVerdicts,
  CONFIDENT_MATCH,
  catalogBarcodeKeys,
  MIN_TEACHING_SHOPS,
  reviewedVerdicts,
} from '../matching/barcodes.ts';
import {
  barcodeKeysOf,
  listingKeysOf,
  MAX_SPELLING_LENGTH,
  spellingOf,
  validateProductInput,
} from '../matching/listing.ts';
import { recogniseListings } from '../matching/recognise.ts';
import { bundledSnapshot } from './bundled-snapshot.ts';
import { withCheck } from './gtin-fixture.ts';

const B1 = withCheck('629100000001');
const B2 = withCheck('629100000002');
const B3 = withCheck('629100000003');
const w = (barcode: string, merchantId: string, perfumeId: string, teaches = true): BarcodeWitness => ({
  barcode,
  merchantId,
  perfumeId,
  teaches,
});

describe('barcodeVerdicts: what the shelves say of a barcode', () => {
  it('makes a key of a barcode two shops match to one perfume', () => {
    expect(MIN_TEACHING_SHOPS).toBe(2);
    const [v] = barcodeVerdicts([w(B1, 'a', 'x'), w(B1, 'b', 'x')]);
    expect(v).toMatchObject({ barcode: B1, status: 'key', perfumeId: 'x', shops: 2, perfumes: null });
    expect(v?.merchantIds).toEqual(['a', 'b']);
  });

  it("takes one shop's word for nothing, however many of its products carry the barcode", () => {
    expect(barcodeVerdicts([w(B1, 'a', 'x'), w(B1, 'a', 'x')])).toEqual([]);
  });

  it('counts a shop that only sells a sibling version as a witness, never as a teacher', () => {
    expect(barcodeVerdicts([w(B1, 'a', 'x'), w(B1, 'b', 'x', false)])).toEqual([]);
    expect(barcodeVerdicts([w(B1, 'a', 'x'), w(B1, 'b', 'x', false), w(B1, 'c', 'x')])[0]).toMatchObject({
      status: 'key',
      shops: 2,
      merchantIds: ['a', 'b', 'c'],
    });
  });

  it('makes a conflict of a barcode shops put on different perfumes, most shops first', () => {
    const [v] = barcodeVerdicts([w(B2, 'a', 'x'), w(B2, 'b', 'y'), w(B2, 'c', 'y'), w(B2, 'd', 'x', false)]);
    expect(v).toMatchObject({ status: 'conflict', perfumeId: null, shops: 4 });
    expect(v?.perfumes).toEqual([
      { perfume_id: 'x', shops: 2 },
      { perfume_id: 'y', shops: 2 },
    ]);
    const [u] = barcodeVerdicts([w(B2, 'a', 'x'), w(B2, 'b', 'y'), w(B2, 'c', 'y')]);
    expect(u?.perfumes).toEqual([
      { perfume_id: 'y', shops: 2 },
      { perfume_id: 'x', shops: 1 },
    ]);
    // a shop that put it on both perfumes is one shop
    const [t] = barcodeVerdicts([w(B2, 'a', 'x'), w(B2, 'a', 'y'), w(B2, 'b', 'y')]);
    expect(t).toMatchObject({ shops: 2, merchantIds: ['a', 'b'] });
  });

  it('judges each barcode on its own', () => {
    const vs = barcodeVerdicts([w(B1, 'a', 'x'), w(B2, 'a', 'y'), w(B1, 'b', 'x'), w(B3, 'b', 'z'), w(B2, 'b', 'y')]);
    expect(vs.map((v) => [v.barcode, v.status, v.perfumeId]).sort()).toEqual([
      [B1, 'key', 'x'],
      [B2, 'key', 'y'],
    ]);
  });
});

describe('applyBarcodeKeys: a product matched by its barcode', () => {
  const snapshot = bundledSnapshot();
  const recognise = (rows: object[]) => recogniseListings(rows, snapshot).recognised;
  const learnt = (entries: [string, BarcodeKey][]) => new Map(entries.map(([b, k]) => [gtinKey(b), k]));

  it('matches a junk name by a learnt barcode, saying so', () => {
    const [r] = applyBarcodeKeys(
      recognise([{ merchant_product_id: '1', name: 'Item 1043', barcode: B1 }]),
      learnt([[B1, { perfumeId: 'dior-sauvage-edp', shops: 3 }]]),
      snapshot,
    );
    expect(r?.status).toBe('matched');
    expect(r?.perfume?.id).toBe('dior-sauvage-edp');
    expect(r?.match.reason).toBe(`matched by barcode ${B1}, learnt from 3 shops: Sauvage (edp) by Dior`);
    expect(r?.matchKey).toBe(gtinKey(B1));
    // the perfume itself, not a version of it, and no pin
    expect(r).toMatchObject({ pinned: false, sibling: false, quality: 'unreviewed' });
  });

  it('matches by two barcodes of one perfume, and by the one that names a perfume the catalog still has', () => {
    const keys = learnt([
      [B1, { perfumeId: 'dior-sauvage-edp', shops: 2 }],
      [B2, { perfumeId: 'dior-sauvage-edp', shops: 4 }],
      [B3, { perfumeId: 'gone-from-the-catalog', shops: 2 }],
    ]);
    const [both, gone] = applyBarcodeKeys(
      recognise([
        { merchant_product_id: '1', name: 'Item 1', barcode: B1, sizes: [{ label: '50 ml', barcode: B2 }] },
        { merchant_product_id: '2', name: 'Item 2', barcode: B3, sizes: [{ label: '50 ml', barcode: B2 }] },
      ]),
      keys,
      snapshot,
    );
    expect(both?.perfume?.id).toBe('dior-sauvage-edp');
    expect(both?.match.reason).toMatch(/learnt from 2 shops/);
    expect(gone?.perfume?.id).toBe('dior-sauvage-edp');
    expect(gone?.match.reason).toMatch(new RegExp(`barcode ${B2}, learnt from 4 shops`));
  });

  it(`lets a name matched at exactly ${CONFIDENT_MATCH} stand`, () => {
    const [r] = recognise([{ merchant_product_id: '1', name: 'Item 1', barcode: B1 }]);
    const named = {
      ...(r as NonNullable<typeof r>),
      match: { perfumeId: 'dior-sauvage-edp', confidence: CONFIDENT_MATCH, reason: 'x' },
    };
    expect(applyBarcodeKeys([named], learnt([[B1, { perfumeId: 'lattafa-khamrah-edp', shops: 2 }]]), snapshot)[0]).toBe(
      named,
    );
  });

  it("reads a size's barcode as well as the product's", () => {
    const [r] = applyBarcodeKeys(
      recognise([
        {
          merchant_product_id: '1',
          name: 'Item 7',
          sizes: [
            { label: '50 ml', price: 1 },
            { label: '100 ml', price: 2, barcode: B2 },
          ],
        },
      ]),
      learnt([[B2, { perfumeId: 'lattafa-khamrah-edp', shops: 2 }]]),
      snapshot,
    );
    expect(r?.perfume?.id).toBe('lattafa-khamrah-edp');
  });

  it('never overrides a confident name match, and does override a weak one', () => {
    const keys = learnt([[B1, { perfumeId: 'lattafa-khamrah-edp', shops: 2 }]]);
    const [named] = applyBarcodeKeys(
      recognise([{ merchant_product_id: '1', name: 'Dior Sauvage Eau de Parfum 100ml', barcode: B1 }]),
      keys,
      snapshot,
    );
    expect(named?.match.confidence).toBeGreaterThanOrEqual(CONFIDENT_MATCH);
    expect(named?.perfume?.id).toBe('dior-sauvage-edp');
    expect(named?.matchKey).toBeUndefined();
    const weak = recognise([{ merchant_product_id: '2', name: 'Item 1043', barcode: B1 }]);
    const weakened = [
      { ...(weak[0] as (typeof weak)[0]), match: { perfumeId: 'dior-sauvage-edp', confidence: 0.9, reason: 'x' } },
    ];
    expect(applyBarcodeKeys(weakened, keys, snapshot)[0]?.perfume?.id).toBe('lattafa-khamrah-edp');
  });

  it('leaves a product whose barcodes name two perfumes, or a perfume the catalog lost, as its name left it', () => {
    const rows = recognise([
      { merchant_product_id: '1', name: 'Item 1', barcode: B1, sizes: [{ label: '50 ml', barcode: B2 }] },
      { merchant_product_id: '2', name: 'Item 2', barcode: B3 },
    ]);
    const out = applyBarcodeKeys(
      rows,
      learnt([
        [B1, { perfumeId: 'dior-sauvage-edp', shops: 2 }],
        [B2, { perfumeId: 'lattafa-khamrah-edp', shops: 2 }],
        [B3, { perfumeId: 'gone-from-the-catalog', shops: 2 }],
      ]),
      snapshot,
    );
    expect(out.map((r) => r.status)).toEqual(['unmatched', 'unmatched']);
  });

  it('keeps a pin whatever the barcode says', () => {
    const [r] = recognise([{ merchant_product_id: '1', name: 'Item 1', barcode: B1 }]);
    const pinned = { ...(r as NonNullable<typeof r>), pinned: true };
    expect(applyBarcodeKeys([pinned], learnt([[B1, { perfumeId: 'dior-sauvage-edp', shops: 2 }]]), snapshot)[0]).toBe(
      pinned,
    );
  });

  it('uses the barcodes our catalog records, before any learnt one', () => {
    const base = bundledSnapshot();
    const withBarcode = {
      ...base,
      perfumes: base.perfumes.map((p) => (p.id === 'creed-aventus-edp' ? { ...p, barcodes: [B3] } : p)),
    };
    expect(catalogBarcodeKeys(withBarcode).get(gtinKey(B3))).toEqual({ perfumeId: 'creed-aventus-edp', shops: 0 });
    // built once per catalog snapshot
    expect(catalogBarcodeKeys(withBarcode)).toBe(catalogBarcodeKeys(withBarcode));
    const [r] = applyBarcodeKeys(
      recognise([{ merchant_product_id: '1', name: 'Item 9', barcode: B3 }]),
      learnt([[B3, { perfumeId: 'dior-sauvage-edp', shops: 5 }]]),
      withBarcode,
    );
    expect(r?.perfume?.id).toBe('creed-aventus-edp');
    expect(r?.match.reason).toMatch(/from our catalog/);
    // a barcode two records claim is a key for neither
    const twice = {
      ...base,
      perfumes: base.perfumes.map((p) =>
        p.id === 'creed-aventus-edp' || p.id === 'dior-sauvage-edp' ? { ...p, barcodes: [B3] } : p,
      ),
    };
    expect(catalogBarcodeKeys(twice).size).toBe(0);
  });
});

describe("a listing's barcodes, as the sync reads them", () => {
  it("keeps a valid barcode and its sizes', and reports a malformed one without refusing the product", () => {
    const v = validateProductInput({
      merchant_product_id: 'p',
      name: 'Item 1',
      barcode: '3348901250147',
      sizes: [
        { label: '50 ml', barcode: B1 },
        { label: '100 ml', barcode: 'n/a' },
      ],
    });
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    expect(v.product.barcode).toBeNull();
    expect(v.product.sizes?.[0]?.barcode).toBe(B1);
    expect(v.product.sizes?.[1]).not.toHaveProperty('barcode');
    expect(v.product.barcodeIssues).toEqual([
      'barcode "3348901250147" fails its check digit: ignored',
      'sizes/1/barcode "n/a" has characters other than digits: ignored',
    ]);
    expect(barcodeKeysOf(v.product)).toEqual([gtinKey(B1)]);
    const w2 = validateProductInput({ merchant_product_id: 'q', name: 'Item 2', barcode: { a: 1 } });
    expect(w2.ok && w2.product.barcodeIssues).toEqual(['barcode must be text or a whole number: ignored']);
  });

  it("counts a bottle once when its size repeats the product's barcode", () => {
    const v = validateProductInput({
      merchant_product_id: 'p',
      name: 'x',
      barcode: B1,
      sizes: [{ label: '1', barcode: B1 }],
    });
    expect(v.ok && barcodeKeysOf(v.product)).toEqual([gtinKey(B1)]);
  });
});

describe('a spelling shops pinned (docs/learning.md)', () => {
  const snapshot = bundledSnapshot();
  const recognise = (rows: object[]) => recogniseListings(rows, snapshot).recognised;

  it('is one key for a listing however its house is given, without its size; none for a name of no words', () => {
    const a = spellingOf({ name: 'Royal Blend Reserve No 7 EDP 100ml', house: 'Lattafa' });
    expect(a).toBe('s:lattafa royal blend reserve no 7|edp');
    expect(spellingOf({ name: 'Lattafa Royal Blend Reserve No 7 Eau de Parfum 50 ml', house: '' })).toBe(a);
    expect(spellingOf({ name: '100ml', house: 'Lattafa' })).toBeNull();
    // no concentration named: none in the key
    expect(spellingOf({ name: 'Royal Blend', house: 'Lattafa' })).toBe('s:lattafa royal blend|');
    expect(spellingOf({ name: 'x'.repeat(500), house: 'y' })?.length).toBe(MAX_SPELLING_LENGTH);
    expect(listingKeysOf({ name: 'Royal Blend Reserve No 7 EDP', house: 'Lattafa', barcode: B1, sizes: null })).toEqual(
      [gtinKey(B1), a],
    );
  });

  it('matches a listing its name does not match, saying it was pinned; a barcode of another perfume leaves it as it was', () => {
    const [row] = recognise([{ merchant_product_id: '1', name: 'Royal Blend Reserve No 7 EDP', house: 'Lattafa' }]);
    const key = spellingOf({ name: 'Royal Blend Reserve No 7 EDP', house: 'Lattafa' }) as string;
    const [r] = applyBarcodeKeys(
      [row as NonNullable<typeof row>],
      new Map([[key, { perfumeId: 'dior-sauvage-edp', shops: 2 }]]),
      snapshot,
    );
    expect(r).toMatchObject({ status: 'matched', matchKey: key, pinned: false });
    expect(r?.match.reason).toBe('matched by its spelling, pinned by 2 shops: Sauvage (edp) by Dior');
    const [approved] = applyBarcodeKeys(
      [row as NonNullable<typeof row>],
      new Map([[key, { perfumeId: 'dior-sauvage-edp', shops: 1 }]]),
      snapshot,
    );
    expect(approved?.match.reason).toBe('matched by its spelling, pinned by a shop, approved: Sauvage (edp) by Dior');
    // our catalog's barcodes never key a spelling
    const [withCode] = recognise([
      { merchant_product_id: '2', name: 'Royal Blend Reserve No 7 EDP', house: 'Lattafa', barcode: B1 },
    ]);
    const split = applyBarcodeKeys(
      [withCode as NonNullable<typeof withCode>],
      new Map([
        [key, { perfumeId: 'dior-sauvage-edp', shops: 2 }],
        [gtinKey(B1), { perfumeId: 'lattafa-khamrah-edp', shops: 2 }],
      ]),
      snapshot,
    );
    expect(split[0]).toBe(withCode);
  });

  it("the operator's review: a rejected key is none, an approved one-shop spelling is a key unless shops pinned it elsewhere too", () => {
    const S = 's:x y|edp';
    const T = 's:z|';
    const w = (barcode: string, merchantId: string, perfumeId: string): BarcodeWitness => ({
      barcode,
      merchantId,
      perfumeId,
      teaches: true,
    });
    const witnesses = [w(S, 'a', 'p'), w(S, 'b', 'p'), w(T, 'a', 'p'), w(B1, 'c', 'q')];
    const verdicts = barcodeVerdicts(witnesses);
    expect(verdicts.map((v) => v.barcode)).toEqual([S]);
    const none = { approved: new Map<string, string>(), rejected: new Map<string, Set<string>>() };
    expect(reviewedVerdicts(verdicts, witnesses, none)).toEqual(verdicts);
    expect(reviewedVerdicts(verdicts, witnesses, { ...none, rejected: new Map([[S, new Set(['p'])]]) })).toEqual([]);
    // rejected for another perfume: still a key for this one
    expect(reviewedVerdicts(verdicts, witnesses, { ...none, rejected: new Map([[S, new Set(['other'])]]) })).toEqual(
      verdicts,
    );
    const approved = reviewedVerdicts(verdicts, witnesses, { ...none, approved: new Map([[T, 'p']]) });
    expect(approved).toContainEqual({
      barcode: T,
      status: 'key',
      perfumeId: 'p',
      shops: 1,
      perfumes: null,
      merchantIds: ['a'],
    });
    // approved for a perfume no shop pinned it to, or while a shop pinned it elsewhere: no key
    expect(reviewedVerdicts(verdicts, witnesses, { ...none, approved: new Map([[T, 'other']]) })).toEqual(verdicts);
    const disputed = [...witnesses, w(T, 'b', 'elsewhere')];
    expect(
      reviewedVerdicts(barcodeVerdicts(disputed), disputed, { ...none, approved: new Map([[T, 'p']]) }).find(
        (v) => v.barcode === T,
      ),
    ).toMatchObject({
      status: 'conflict',
    });
    // nothing pinned: nothing to approve
    expect(reviewedVerdicts([], [], { ...none, approved: new Map([[T, 'p']]) })).toEqual([]);
    // approving a key shops already taught changes nothing; a shop pinning it twice is one shop
    expect(reviewedVerdicts(verdicts, witnesses, { ...none, approved: new Map([[S, 'p']]) })).toEqual(verdicts);
    const twice = [w(T, 'b', 'p'), w(T, 'a', 'p'), w(T, 'b', 'p')];
    expect(reviewedVerdicts([], twice, { ...none, approved: new Map([[T, 'p']]) })).toEqual([
      { barcode: T, status: 'key', perfumeId: 'p', shops: 2, perfumes: null, merchantIds: ['a', 'b'] },
    ]);
    // a rejection never turns a conflict into anything
    const conflict = barcodeVerdicts(disputed).filter((v) => v.barcode === T);
    expect(reviewedVerdicts(conflict, disputed, { ...none, rejected: new Map([[T, new Set(['p'])]]) })).toEqual(
      conflict,
    );
  });
});
