import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gtinKey } from '../lib/gtin.ts';
import { learntBarcodes, learntProfiles, merchants } from '../schema/index.ts';
import { learnFromMerchant, learnMerchant, MAX_VOICE_ROWS, PROFILE_BATCH } from '../services/learning.ts';
import { LEARN_BATCH } from '../services/learnt.ts';
import { syncProducts } from '../services/products.ts';
import { withCheck } from './gtin-fixture.ts';
import { adminHeaders, buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from './helper.ts';

let app: TestApp;
beforeAll(async () => {
  app = await buildTestApp({ REDIS_URL: undefined });
});
afterAll(() => closeTestApp(app));

const admin = (method: 'GET' | 'PUT' | 'PATCH', url: string, payload?: object) =>
  app.inject({ method, url: `/api/admin${url}`, payload, headers: adminHeaders });

/** Five perfumes, each with its bottle's barcode, and a barcode two shops put on different perfumes. */
const SHELF = [
  { name: 'Dior Sauvage Eau de Parfum 100ml', id: 'dior-sauvage-edp', barcode: withCheck('629110000001') },
  { name: 'Lattafa Khamrah EDP 100ml', id: 'lattafa-khamrah-edp', barcode: withCheck('629110000002') },
  { name: 'Bleu de Chanel Eau de Parfum 100 ml', id: 'chanel-bleu-de-chanel-edp', barcode: withCheck('629110000003') },
  { name: 'Creed Aventus EDP 100ml', id: 'creed-aventus-edp', barcode: withCheck('629110000004') },
  {
    name: 'Armaf Club de Nuit Intense Man EDT 105ml',
    id: 'armaf-club-de-nuit-intense-man-edt',
    barcode: withCheck('629110000005'),
  },
];
const DISPUTED = withCheck('629110000009');

/** A shop that lists the shelf its own way: each name as given, the barcode in the form `form` writes it. */
const teacher = (form: (b: string) => string | number, disputedOn: number) =>
  SHELF.map((p, i) => ({
    merchant_product_id: `t${i}`,
    name: p.name,
    price: 300,
    barcode: form(p.barcode),
    // the disputed barcode on a size of one perfume (which one depends on the shop)
    ...(i === disputedOn
      ? {
          sizes: [
            { label: '100 ml', price: 300 },
            { label: '50 ml', price: 200, barcode: DISPUTED },
          ],
        }
      : {}),
  }));

/** A shop whose products carry only barcodes and junk names. */
const junk = [
  ...SHELF.map((p, i) => ({ merchant_product_id: `j${i}`, name: `Item ${1043 + i}`, price: 100, barcode: p.barcode })),
  { merchant_product_id: 'jx', name: 'Item 2000', price: 100, barcode: DISPUTED },
  { merchant_product_id: 'bad', name: 'Item 2001', price: 100, barcode: '629110000000' },
];

const products = async (slug: string) =>
  Object.fromEntries(
    (await admin('GET', `/merchants/${slug}/products`))
      .json()
      .products.map((p: { merchant_product_id: string }) => [p.merchant_product_id, p]),
  ) as Record<
    string,
    {
      sillage_perfume_id: string | null;
      status: string;
      reason: string;
      matched_by: string | null;
      barcode: string | null;
    }
  >;

describe('barcodes learnt from shelves (docs/learning.md)', () => {
  it('two shops teach a barcode; a third shop with junk names is matched by it; a disputed barcode matches nothing', async () => {
    for (const slug of ['bc-a1', 'bc-a2', 'bc-early', 'bc-c', 'bc-no-learn'])
      await createMerchantWithKey(app, { slug });
    // a shop that synced before anything was taught is matched once it is
    expect((await admin('PUT', '/merchants/bc-early/products', { products: junk })).statusCode).toBe(200);

    const a1 = await admin('PUT', '/merchants/bc-a1/products', { products: teacher((b) => b, 0) });
    expect(a1.json()).toMatchObject({ matched: 5, barcodes_ignored: 0, barcode_issues: [] });
    await app.learning.runDue();
    // one shop's word is not enough
    expect((await admin('GET', '/learning/barcodes?status=key')).json().total).toBe(0);

    // the second shop writes its barcodes as numbers, with a UPC-style zero in front: the same bottles
    await admin('PUT', '/merchants/bc-a2/products', { products: teacher((b) => Number(`0${b}`), 1) });
    await app.learning.runDue();
    const keys = (await admin('GET', '/learning/barcodes?status=key')).json();
    expect(keys.total).toBe(5);
    expect(keys.barcodes[0]).toMatchObject({ status: 'key', shops: 2, perfumes: null });
    expect(
      keys.barcodes.map((b: { perfume: { sillage_perfume_id: string } }) => b.perfume.sillage_perfume_id).sort(),
    ).toEqual(SHELF.map((p) => p.id).sort());
    const conflicts = (await admin('GET', '/learning/barcodes')).json();
    expect(conflicts.total).toBe(1);
    expect(conflicts.barcodes[0]).toMatchObject({
      barcode: gtinKey(DISPUTED),
      status: 'conflict',
      perfume: null,
      shops: 2,
      perfumes: expect.arrayContaining([
        expect.objectContaining({ sillage_perfume_id: 'dior-sauvage-edp', name: 'Sauvage', shops: 1 }),
        expect.objectContaining({ sillage_perfume_id: 'lattafa-khamrah-edp', shops: 1 }),
      ]),
    });
    // shops are counted, never named
    expect(JSON.stringify(conflicts)).not.toMatch(/bc-a1|bc-a2|merchant/);

    // a shop syncing now: matched by barcode at once, the reason saying so
    const c = await admin('PUT', '/merchants/bc-c/products', { products: junk });
    expect(c.json()).toMatchObject({ matched: 5, barcodes_ignored: 1 });
    expect(c.json().barcode_issues).toEqual([
      { merchant_product_id: 'bad', reason: 'barcode "629110000000" fails its check digit: ignored' },
    ]);
    const got = await products('bc-c');
    SHELF.forEach((p, i) => {
      expect(got[`j${i}`]).toMatchObject({
        status: 'matched',
        sillage_perfume_id: p.id,
        matched_by: 'barcode',
        barcode: p.barcode,
      });
      expect(got[`j${i}`]?.reason).toMatch(new RegExp(`^matched by barcode ${p.barcode}, learnt from 2 shops`));
    });
    expect(got.jx).toMatchObject({ status: 'unmatched', sillage_perfume_id: null, matched_by: null });
    expect(got.bad).toMatchObject({ status: 'unmatched', barcode: null });

    // the early shop's products were matched again when the barcodes were learnt
    const early = await products('bc-early');
    expect(SHELF.map((_, i) => early[`j${i}`]?.sillage_perfume_id)).toEqual(SHELF.map((p) => p.id));

    // a shop that does not learn is never matched by what others taught
    expect((await admin('PATCH', '/merchants/bc-no-learn', { learns: false })).json()).toMatchObject({
      learns: false,
      teaches: true,
    });
    expect((await admin('PUT', '/merchants/bc-no-learn/products', { products: junk })).json().matched).toBe(0);

    // products matched by a barcode teach nothing: with only a1 left teaching, the keys go
    await admin('PATCH', '/merchants/bc-a2', { teaches: false });
    await app.learning.runDue();
    expect((await admin('GET', '/learning/barcodes?status=key')).json().total).toBe(0);
    expect((await admin('GET', '/learning/barcodes')).json().total).toBe(0);
    // and the products matched by them are matched by their names again (junk: nothing)
    expect(Object.values(await products('bc-c')).filter((p) => p.sillage_perfume_id)).toEqual([]);

    // teaching again, the keys come back
    await admin('PATCH', '/merchants/bc-a2', { teaches: true });
    await app.learning.runDue();
    expect((await admin('GET', '/learning/barcodes?status=key')).json().total).toBe(5);
    expect((await products('bc-c')).j0?.sillage_perfume_id).toBe('dior-sauvage-edp');

    // a merchant erased: what it taught goes at the next learning, and what it taught is no longer used
    const [gone] = await app.db.select().from(merchants).where(eq(merchants.slug, 'bc-a1'));
    await app.db.delete(merchants).where(eq(merchants.id, gone?.id as string));
    await app.learning.runDue();
    expect(await app.db.select().from(learntBarcodes)).toEqual([]);
    expect((await products('bc-c')).j0).toMatchObject({ status: 'unmatched', matched_by: null });
  });

  it('an inline catalog is matched by a learnt barcode too', async () => {
    const one = await createMerchantWithKey(app, { slug: 'bc-inline-1' });
    const two = await createMerchantWithKey(app, { slug: 'bc-inline-2' });
    const bottle = withCheck('629120000001');
    for (const m of [one, two])
      await syncProducts(app.db, app.catalog.current(), m.merchant.id, [
        { merchant_product_id: 'k', name: 'Lattafa Khamrah EDP 100ml', barcode: bottle },
      ]);
    await app.learning.runDue();
    const { key } = await createMerchantWithKey(app, { slug: 'bc-inline-3' });
    const res = await app.inject({
      method: 'POST',
      url: '/api/widget/score',
      payload: {
        api_key: key,
        quiz: { families: ['gourmand'] },
        catalog_mode: 'inline',
        inline_catalog: [
          { merchant_product_id: 'x1', name: 'Item 77', price: 150, barcode: bottle },
          { merchant_product_id: 'x2', name: 'Item 78', price: 150 },
        ],
      },
    });
    expect(res.statusCode).toBe(200);
    const shown = [...res.json().recommendations, ...res.json().also_explore];
    expect(shown.map((r: { merchant_product_id: string }) => r.merchant_product_id)).toEqual(['x1']);
  });

  it("bounds a learning run by the merchant's own shelf, whatever the rest of the service holds", async () => {
    const small = await createMerchantWithKey(app, { slug: 'bc-cost-small' });
    const big = await createMerchantWithKey(app, { slug: 'bc-cost-big' });
    const shelf = (prefix: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        merchant_product_id: `p${i}`,
        name: SHELF[i % SHELF.length]?.name as string,
        barcode: withCheck(`${prefix}${String(i).padStart(6, '0')}`),
      }));
    await syncProducts(app.db, app.catalog.current(), small.merchant.id, shelf('629130', 40));
    const alone = await learnFromMerchant(app.db, app.catalog.current(), small.merchant.id);
    /**
     * statements at most: finding its keys, its descriptions and its perfumes; per LEARN_BATCH keys
     * (its barcodes and its listings' spellings) a read, the spellings' review and writes; per
     * PROFILE_BATCH perfumes five reads and writes
     */
    const cap = (keys: number, perfumes: number, described: number) =>
      4 +
      5 * Math.ceil(keys / LEARN_BATCH) +
      Math.ceil(described / LEARN_BATCH) +
      9 * Math.ceil(perfumes / PROFILE_BATCH);
    // its 40 barcodes; not its listings' spellings, which only a pin teaches
    expect(alone.checked).toBe(40);
    expect(alone.perfumesChecked).toBe(SHELF.length);
    expect(alone.statements).toBeLessThanOrEqual(cap(alone.checked, SHELF.length, 0));
    expect(alone.witnesses).toBe(40);
    // another merchant's 1,200 other bottles of the same perfumes change nothing of its keys' cost,
    // and its perfumes' descriptions are read at most MAX_VOICE_ROWS a perfume
    await syncProducts(app.db, app.catalog.current(), big.merchant.id, shelf('629140', 1200));
    const after = await learnFromMerchant(app.db, app.catalog.current(), small.merchant.id);
    expect([after.checked, after.witnesses, after.statements]).toEqual([
      alone.checked,
      alone.witnesses,
      alone.statements,
    ]);
    expect(after.voices).toBeLessThanOrEqual(SHELF.length * MAX_VOICE_ROWS);
    // a description is read once, and again only when it changes
    const describedShelf = shelf('629130', 40).map((p, i) => ({
      ...p,
      description: `Top notes: bergamot. Base notes: oud, amber ${i}.`,
    }));
    await syncProducts(app.db, app.catalog.current(), small.merchant.id, describedShelf);
    const first = await learnFromMerchant(app.db, app.catalog.current(), small.merchant.id);
    expect(first.descriptionsRead).toBe(40);
    expect(first.statements).toBeLessThanOrEqual(cap(first.checked, SHELF.length, 40));
    expect((await learnFromMerchant(app.db, app.catalog.current(), small.merchant.id)).descriptionsRead).toBe(0);
    describedShelf[3] = { ...(describedShelf[3] as (typeof describedShelf)[0]), description: 'Top notes: lemon.' };
    await syncProducts(app.db, app.catalog.current(), small.merchant.id, describedShelf);
    expect((await learnFromMerchant(app.db, app.catalog.current(), small.merchant.id)).descriptionsRead).toBe(1);
    // the big shelf's own run: its barcodes in batches of LEARN_BATCH
    const own = await learnMerchant(app.db, app.catalog.current(), big.merchant.id);
    expect(own.checked).toBe(1200);
    expect(own.witnesses).toBe(1200);
    expect(own.statements).toBeLessThanOrEqual(3 + cap(own.checked, SHELF.length, 0) + 4);
  });
});

describe('profiles as shops describe them (docs/learning.md)', () => {
  /** perfumes of our catalog with no profile of their own: recognised, never recommended until shops describe them */
  const PERFUMES = [
    { id: 'acqua-di-parma-oud-spice-edp', name: 'Acqua di Parma Oud & Spice Eau de Parfum 100ml' },
    { id: 'acqua-di-parma-quercia-edp', name: 'Acqua di Parma Quercia Eau de Parfum 100ml' },
  ];
  const described = (texts: string[]) =>
    PERFUMES.map((p, i) => ({ merchant_product_id: `d${i}`, name: p.name, price: 900, description: texts[i] }));
  const A1 = [
    'Top notes: Black Pepper, Cardamom, Ginger. Heart notes: Oud, Leather. Base notes: Sandalwood, Vanilla, Amber.',
    'Top notes: Bergamot, Mandarin. Heart notes: Oakmoss, Lavender. Base notes: Oak, Patchouli, Vetiver.',
  ];
  // the second shop in its own words, in Arabic for one of them, and with a note the first does not give
  const A2 = [
    'عطر شرقي دافئ. المقدمة: فلفل أسود، هيل. القلب: عود، جلد. القاعدة: صندل، فانيليا.',
    'A woody chypre that opens on bergamot and mandarin, with lavender at its heart and a base of oak, patchouli and musk.',
  ];
  const view = async (slug: string) =>
    (await admin('GET', `/merchants/${slug}/products`)).json().products as {
      merchant_product_id: string;
      quality: string | null;
      described_by_shops: number | null;
      profile: { basis: string[]; accords: { name: string }[] } | null;
    }[];

  it("gives a shop's undescribed products the notes two other shops' descriptions agree on, and takes them away with those shops", async () => {
    for (const slug of ['sp-b', 'sp-a1', 'sp-a2', 'sp-copy']) await createMerchantWithKey(app, { slug });
    const { key } = await createMerchantWithKey(app, { slug: 'sp-b-key' });
    // B lists the perfumes by name alone: recognised, with no profile
    await admin('PUT', '/merchants/sp-b/products', {
      products: PERFUMES.map((p, i) => ({ merchant_product_id: `b${i}`, name: p.name, price: 800 })),
    });
    // (the first names oud: a profile guessed from its name alone)
    expect((await view('sp-b')).map((p) => p.quality)).toEqual(['guessed', null]);

    // one shop describing them is not enough
    await admin('PUT', '/merchants/sp-a1/products', { products: described(A1) });
    // a shop pasting the first one's descriptions is the same voice
    await admin('PUT', '/merchants/sp-copy/products', { products: described(A1) });
    await app.learning.runDue();
    expect((await view('sp-b')).map((p) => p.quality)).toEqual(['guessed', null]);

    await admin('PUT', '/merchants/sp-a2/products', { products: described(A2) });
    await app.learning.runDue();
    const b = await view('sp-b');
    for (const p of b) {
      expect(p).toMatchObject({ quality: 'shops', described_by_shops: 2 });
      expect(p.profile?.basis).toEqual(['shops']);
    }
    expect(b[0]?.profile?.accords.map((a) => a.name)).toEqual(expect.arrayContaining(['oud']));
    // the notes kept are those both give: no musk (the second only), no ginger (the first only)
    const [learnt] = await app.db
      .select()
      .from(learntProfiles)
      .where(eq(learntProfiles.perfumeId, PERFUMES[1]?.id as string));
    expect(learnt?.notes).toEqual({
      top: ['bergamot', 'mandarin orange'],
      heart: ['lavender'],
      base: ['oak', 'patchouli'],
      flat: [],
    });
    expect(learnt?.shops).toBe(2);

    // a shopper of B is recommended them, labelled as shops describe them
    const bId = (await admin('GET', '/merchants/sp-b')).json().id as string;
    await syncProducts(app.db, app.catalog.current(), (await admin('GET', '/merchants/sp-b-key')).json().id, []);
    const score = await app.inject({
      method: 'POST',
      url: '/api/widget/score',
      payload: {
        api_key: key,
        quiz: { families: ['woody'] },
        catalog_mode: 'inline',
        inline_catalog: [{ merchant_product_id: 'i1', name: PERFUMES[0]?.name, price: 700 }],
      },
    });
    const shown = [...score.json().recommendations, ...score.json().also_explore];
    expect(shown).toEqual([
      expect.objectContaining({ merchant_product_id: 'i1', quality: 'shops', described_by_shops: 2 }),
    ]);
    expect(bId).toBeTruthy();

    // a shop that syncs now takes them at once
    await createMerchantWithKey(app, { slug: 'sp-late' });
    const late = await admin('PUT', '/merchants/sp-late/products', {
      products: [{ merchant_product_id: 'l', name: PERFUMES[0]?.name }],
    });
    expect(late.json()).toMatchObject({ matched: 1, without_profile: 0 });

    // a shop that does not learn keeps its products unprofiled
    await admin('PATCH', '/merchants/sp-late', { learns: false });
    await app.learning.runDue();
    expect((await view('sp-late'))[0]?.quality).toBe('guessed');

    // the second shop stops teaching: with one voice left, the profiles go, and B's products with them
    await admin('PATCH', '/merchants/sp-a2', { teaches: false });
    await app.learning.runDue();
    expect((await view('sp-b')).map((p) => p.quality)).toEqual(['guessed', null]);
    expect(await app.db.select().from(learntProfiles)).toEqual([]);
  });
});
