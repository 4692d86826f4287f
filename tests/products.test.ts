import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { merchantProducts } from '../schema/index.ts';
import { syncProducts, UPSERT_BATCH } from '../services/products.ts';
import { adminHeaders, buildTestApp, closeTestApp, createMerchantWithKey, type TestApp, verify } from './helper.ts';

let app: TestApp;
beforeAll(async () => {
  app = await buildTestApp({ REDIS_URL: undefined });
});
afterAll(() => closeTestApp(app));

const admin = (method: 'GET' | 'PUT' | 'DELETE', url: string, payload?: object) =>
  app.inject({ method, url: `/api/admin${url}`, payload, headers: adminHeaders });

const feed = [
  {
    merchant_product_id: 'p1',
    name: 'Dior Sauvage EDP 100ml',
    house: 'Dior',
    price: 595,
    product_url: 'https://shop.example/p1',
  },
  { merchant_product_id: 'p2', name: 'خمرة قهوة ١٠٠ مل', house: 'لطافة', price: 155.5, currency: 'aed' },
  { merchant_product_id: 3, name: 'Musk Tahara', house: 'Local Atelier', accords: ['Musky', 'powdery', 'unicorn'] },
  { merchant_product_id: 'p4', name: 'Mystery Blend', house: 'Local Atelier' },
  { merchant_product_id: 'p5', name: 'Sauvage Deodorant Stick', house: 'Dior', price: 160 },
];

describe('PUT /api/admin/merchants/:id/products — sync', () => {
  it('stores and matches a feed: matched, partial (hints) and unmatched, with reasons', async () => {
    const { merchant } = await createMerchantWithKey(app, { slug: 'sync-shop' });
    const res = await admin('PUT', `/merchants/${merchant.id}/products`, { products: feed });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      received: 5,
      upserted: 5,
      removed: 0,
      matched: 2,
      partial: 1,
      unmatched: 2,
      rejected: 0,
    });

    const list = (await admin('GET', '/merchants/sync-shop/products')).json();
    expect(list.total).toBe(5);
    const by = Object.fromEntries(
      list.products.map((p: { merchant_product_id: string }) => [p.merchant_product_id, p]),
    );
    expect(by.p1).toMatchObject({
      status: 'matched',
      // the record's own profile, from the files not yet reviewed house by house
      quality: 'unreviewed',
      sillage_perfume_id: 'dior-sauvage-edp',
      currency: 'SAR',
      pinned: false,
    });
    expect(by.p1.matched_perfume).toMatchObject({ name: 'Sauvage', house: 'Dior', concentration: 'edp' });
    expect(by.p1.confidence).toBeGreaterThanOrEqual(0.8);
    expect(by.p2).toMatchObject({
      status: 'matched',
      sillage_perfume_id: 'lattafa-khamrah-qahwa-edp',
      currency: 'AED',
      price: 155.5,
    });
    expect(by['3']).toMatchObject({ status: 'partial', quality: 'partial', sillage_perfume_id: null });
    expect(by.p4).toMatchObject({ status: 'unmatched', quality: null, sillage_perfume_id: null });
    expect(by.p4.reason).toMatch(/Local Atelier/);
    expect(by.p5.reason).toMatch(/not a perfume/);
  });

  it('rejects bad rows with reasons and stores the good ones', async () => {
    const { merchant } = await createMerchantWithKey(app);
    const res = await admin('PUT', `/merchants/${merchant.slug}/products`, {
      products: [
        { merchant_product_id: 'ok', name: 'Aventus', house: 'Creed', price: 1450 },
        { merchant_product_id: 'bad-house', name: 'Aventus', house: 42 },
        { merchant_product_id: 'neg', name: 'Aventus', house: 'Creed', price: -5 },
        { merchant_product_id: 'cur', name: 'Aventus', house: 'Creed', currency: 'XYZ' },
        { merchant_product_id: 'js', name: 'Aventus', house: 'Creed', product_url: 'javascript:alert(1)' },
        { merchant_product_id: 'str-price', name: 'Aventus', house: 'Creed', price: '12' },
        { merchant_product_id: 'ok', name: 'Aventus again', house: 'Creed' },
        'not an object',
        { name: 'no id', house: 'Creed' },
      ],
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ received: 9, upserted: 1, rejected: 8, matched: 1 });
    const reasons = Object.fromEntries(
      body.rejections.map((r: { index: number; reason: string }) => [r.index, r.reason]),
    );
    expect(reasons[1]).toMatch(/house must be text of at most 200 characters/);
    expect(reasons[2]).toMatch(/price must be a number ≥ 0/);
    expect(reasons[3]).toMatch(/ISO 4217/);
    expect(reasons[4]).toMatch(/http\(s\)/);
    expect(reasons[5]).toMatch(/price/);
    expect(reasons[6]).toMatch(/appears twice/);
    expect(reasons[7]).toMatch(/object/);
    expect(reasons[8]).toMatch(/merchant_product_id is required/);
    expect(body.rejections.find((r: { index: number }) => r.index === 2).merchant_product_id).toBe('neg');
  });

  it('a product with no house, or an empty one, is read by its title, as one with a placeholder house', async () => {
    const { merchant } = await createMerchantWithKey(app);
    const res = await admin('PUT', `/merchants/${merchant.id}/products`, {
      products: [
        { merchant_product_id: 'nh1', name: 'Lattafa Khamrah Qahwa 100ml' },
        { merchant_product_id: 'nh2', name: 'خمرة قهوة ١٠٠ مل', house: '' },
        { merchant_product_id: 'nh3', name: 'Mystery Blend 100ml', house: null },
        { merchant_product_id: 'nh4', name: 'Khamrah Qahwa', house: 'N/A' },
        { merchant_product_id: 'long', name: 'Khamrah Qahwa', house: 'x'.repeat(201) },
      ],
    });
    expect(res.json()).toMatchObject({ received: 5, upserted: 4, matched: 3, unmatched: 1, rejected: 1 });
    expect(res.json().rejections).toEqual([
      {
        index: 4,
        merchant_product_id: 'long',
        reason: 'house must be text of at most 200 characters (empty or left out: read from the name)',
      },
    ]);
    const list = (await admin('GET', `/merchants/${merchant.id}/products`)).json();
    const by = Object.fromEntries(
      list.products.map((p: { merchant_product_id: string }) => [p.merchant_product_id, p]),
    );
    expect(by.nh1).toMatchObject({ house: '', status: 'matched', sillage_perfume_id: 'lattafa-khamrah-qahwa-edp' });
    expect(by.nh1.reason).toMatch(/house found in the name/);
    // no house and none in the title: the name alone, as for "N/A"
    expect(by.nh2).toMatchObject({ status: 'matched', sillage_perfume_id: 'lattafa-khamrah-qahwa-edp' });
    expect(by.nh2.reason).toMatch(/no house given: recognised by its name alone/);
    expect(by.nh4).toMatchObject({ status: 'matched', confidence: by.nh2.confidence });
    // neither a house nor a title that names a perfume of ours: unmatched, and said so
    expect(by.nh3).toMatchObject({ house: '', status: 'unmatched', sillage_perfume_id: null });
    expect(by.nh3.reason).toMatch(/^no house given; the name alone does not say which perfume \(closest: /);
  });

  it('upserts by merchant_product_id, and replace removes products absent from the feed', async () => {
    const { merchant } = await createMerchantWithKey(app);
    await admin('PUT', `/merchants/${merchant.id}/products`, { products: feed });
    const again = await admin('PUT', `/merchants/${merchant.id}/products`, {
      products: [{ merchant_product_id: 'p1', name: 'Dior Sauvage EDP 100ml', house: 'Dior', price: 610 }],
    });
    expect(again.json()).toMatchObject({ upserted: 1, removed: 0 });
    let list = (await admin('GET', `/merchants/${merchant.id}/products`)).json();
    expect(list.total).toBe(5);
    expect(list.products.find((p: { merchant_product_id: string }) => p.merchant_product_id === 'p1').price).toBe(610);
    const replaced = await admin('PUT', `/merchants/${merchant.id}/products`, {
      products: [{ merchant_product_id: 'p2', name: 'خمرة قهوة', house: 'لطافة' }],
      replace: true,
    });
    expect(replaced.json()).toMatchObject({ upserted: 1, removed: 4 });
    list = (await admin('GET', `/merchants/${merchant.id}/products`)).json();
    expect(list.products.map((p: { merchant_product_id: string }) => p.merchant_product_id)).toEqual(['p2']);
  });

  it('refuses a body that is not a feed, and an unknown merchant, without touching stored products', async () => {
    const { merchant } = await createMerchantWithKey(app);
    await admin('PUT', `/merchants/${merchant.id}/products`, { products: feed });
    for (const body of [{}, { products: 'x' }, { products: feed, replace: 'yes' }]) {
      expect((await admin('PUT', `/merchants/${merchant.id}/products`, body)).statusCode).toBe(400);
    }
    expect((await admin('PUT', '/merchants/nobody/products', { products: feed })).statusCode).toBe(404);
    expect((await admin('GET', `/merchants/${merchant.id}/products`)).json().total).toBe(5);
  });
});

describe('listing and manual matches', () => {
  it('filters by status and pages', async () => {
    const { merchant } = await createMerchantWithKey(app);
    await admin('PUT', `/merchants/${merchant.id}/products`, { products: feed });
    const unmatched = (await admin('GET', `/merchants/${merchant.id}/products?status=unmatched`)).json();
    expect(unmatched.total).toBe(2);
    expect(
      unmatched.products.every((p: { status: string; reason: string }) => p.status === 'unmatched' && p.reason),
    ).toBe(true);
    const page = (await admin('GET', `/merchants/${merchant.id}/products?limit=2&offset=2`)).json();
    expect(page.products).toHaveLength(2);
    expect(page.total).toBe(5);
    for (const q of ['status=wrong', 'limit=0', 'limit=abc', 'offset=-1']) {
      expect((await admin('GET', `/merchants/${merchant.id}/products?${q}`)).statusCode, q).toBe(400);
    }
  });

  it('a pin survives re-syncs; removing it lets the matcher decide again', async () => {
    const { merchant } = await createMerchantWithKey(app);
    await admin('PUT', `/merchants/${merchant.id}/products`, { products: feed });
    const pinned = await admin('PUT', `/merchants/${merchant.id}/products/p4/match`, {
      sillage_perfume_id: 'amouage-interlude-man-edp',
    });
    expect(pinned.statusCode).toBe(200);
    expect(pinned.json()).toMatchObject({
      status: 'matched',
      pinned: true,
      sillage_perfume_id: 'amouage-interlude-man-edp',
      confidence: 1,
    });
    await admin('PUT', `/merchants/${merchant.id}/products`, { products: feed });
    const after = (await admin('GET', `/merchants/${merchant.id}/products?status=matched`)).json();
    expect(after.products.find((p: { merchant_product_id: string }) => p.merchant_product_id === 'p4')).toMatchObject({
      pinned: true,
      sillage_perfume_id: 'amouage-interlude-man-edp',
    });
    const unpinned = await admin('DELETE', `/merchants/${merchant.id}/products/p4/match`);
    expect(unpinned.json()).toMatchObject({ status: 'unmatched', pinned: false, sillage_perfume_id: null });
  });

  it('404 for an unknown perfume or product', async () => {
    const { merchant } = await createMerchantWithKey(app);
    await admin('PUT', `/merchants/${merchant.id}/products`, { products: feed });
    const perfume = await admin('PUT', `/merchants/${merchant.id}/products/p4/match`, { sillage_perfume_id: 'nope' });
    expect(perfume.statusCode).toBe(404);
    expect(perfume.json().code).toBe('perfume_not_found');
    const product = await admin('PUT', `/merchants/${merchant.id}/products/nope/match`, {
      sillage_perfume_id: 'creed-aventus-edp',
    });
    expect(product.statusCode).toBe(404);
    expect(product.json().code).toBe('product_not_found');
  });
});

describe('catalog readiness through verify', () => {
  it('reports total, matched, partial, unmatched, the last sync time and ready', async () => {
    const { merchant, key } = await createMerchantWithKey(app);
    expect((await verify(app, { api_key: key })).json().catalog).toMatchObject({
      total: 0,
      ready: false,
      last_synced_at: null,
    });
    await admin('PUT', `/merchants/${merchant.id}/products`, { products: feed.slice(3) });
    let catalog = (await verify(app, { api_key: key })).json().catalog;
    expect(catalog).toMatchObject({ total: 2, matched: 0, partial: 0, unmatched: 2, ready: false });
    expect(Date.parse(catalog.last_synced_at)).toBeGreaterThan(Date.now() - 60_000);
    await admin('PUT', `/merchants/${merchant.id}/products`, { products: feed });
    catalog = (await verify(app, { api_key: key })).json().catalog;
    expect(catalog).toMatchObject({ total: 5, matched: 2, partial: 1, unmatched: 2, pending: 0, ready: true });
  });
});

describe('matching again after our catalog grows', () => {
  it('a product of a house we lacked is matched once the catalog has it; pins are kept', async () => {
    const { merchant } = await createMerchantWithKey(app);
    await admin('PUT', `/merchants/${merchant.id}/products`, {
      products: [
        { merchant_product_id: 'new-1', name: 'Citrus Day EDT 100ml', house: 'Test House' },
        { merchant_product_id: 'pin-1', name: 'Mystery', house: 'Test House' },
      ],
    });
    await admin('PUT', `/merchants/${merchant.id}/products/pin-1/match`, { sillage_perfume_id: 'creed-aventus-edp' });
    const { importCatalog, readRows } = await import('../services/catalog-import.ts');
    await importCatalog(app.db, readRows(new URL('./fixtures/catalog-import.csv', import.meta.url).pathname));
    const res = await app.inject({
      method: 'POST',
      url: `/api/admin/merchants/${merchant.id}/products/rematch`,
      headers: adminHeaders,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ checked: 1, changed: 1, matched: 1 });
    const list = (await admin('GET', `/merchants/${merchant.id}/products`)).json().products;
    const by = Object.fromEntries(list.map((p: { merchant_product_id: string }) => [p.merchant_product_id, p]));
    expect(by['new-1']).toMatchObject({ status: 'matched', sillage_perfume_id: 'test-house-citrus-day-edt' });
    expect(by['pin-1']).toMatchObject({ pinned: true, sillage_perfume_id: 'creed-aventus-edp' });
    const again = await app.inject({
      method: 'POST',
      url: `/api/admin/merchants/${merchant.id}/products/rematch`,
      headers: adminHeaders,
    });
    expect(again.json()).toMatchObject({ checked: 1, changed: 0 });
  });
});

describe('versions of a line we lack, and why each product is read as it is', () => {
  it('a listing of a concentration the catalog lacks is matched as a sibling: said in the admin list and in recommendations', async () => {
    const { merchant, key } = await createMerchantWithKey(app);
    const products = [
      { merchant_product_id: 'hawas-edt', name: 'Rasasi Hawas for Him EDT 100ml', house: 'Rasasi' },
      { merchant_product_id: 'hawas-edp', name: 'Hawas for Him Eau de Parfum', house: 'Rasasi' },
      { merchant_product_id: 'y-elixir', name: 'Y Elixir 60ml', house: 'YSL' },
    ];
    const sync = await admin('PUT', `/merchants/${merchant.id}/products`, { products });
    expect(sync.json()).toMatchObject({ matched: 2, unmatched: 1 });

    const list = (await admin('GET', `/merchants/${merchant.id}/products`)).json();
    const by = Object.fromEntries(
      list.products.map((p: { merchant_product_id: string }) => [p.merchant_product_id, p]),
    );
    expect(by['hawas-edt']).toMatchObject({
      status: 'matched',
      quality: 'sibling',
      sillage_perfume_id: 'rasasi-hawas-for-him-edp',
      explanation: {
        parsed: { concentration: 'edt', size: { value: 100, unit: 'ml' }, form: 'full' },
        house: { name: 'Rasasi', from: 'house' },
        matcher: { perfume_id: 'rasasi-hawas-for-him-edp', sibling: true },
      },
    });
    expect(by['hawas-edt'].reason).toMatch(/listed as edt, which the catalog lacks/);
    expect(by['hawas-edp']).toMatchObject({ quality: 'unreviewed', explanation: { matcher: { sibling: false } } });
    // a refusal names what it refused and the closest candidates, for an operator to pin
    expect(by['y-elixir']).toMatchObject({
      status: 'unmatched',
      quality: null,
      explanation: { parsed: { concentration: 'elixir' }, matcher: { perfume_id: null } },
    });
    expect(by['y-elixir'].explanation.candidates[0]).toMatchObject({ name: 'Y' });

    const scored = await app.inject({
      method: 'POST',
      url: '/api/widget/score',
      payload: { api_key: key, quiz: { families: ['aromatic', 'fresh'] }, limit: 24 },
    });
    const shown = [...scored.json().recommendations, ...scored.json().also_explore];
    expect(
      Object.fromEntries(
        shown.map((r: { merchant_product_id: string; quality: string }) => [r.merchant_product_id, r.quality]),
      ),
    ).toEqual({ 'hawas-edp': 'unreviewed', 'hawas-edt': 'sibling' });
  });

  it('a pinned product is the product: never a sibling', async () => {
    const { merchant } = await createMerchantWithKey(app);
    await admin('PUT', `/merchants/${merchant.id}/products`, {
      products: [{ merchant_product_id: 'h', name: 'Hawas EDT', house: 'Rasasi' }],
    });
    const pinned = await admin('PUT', `/merchants/${merchant.id}/products/h/match`, {
      sillage_perfume_id: 'rasasi-hawas-for-him-edp',
    });
    expect(pinned.json()).toMatchObject({ quality: 'unreviewed', pinned: true });
  });
});

describe('products outside the catalog, profiled from what the merchant says of them', () => {
  it('a description gives the notes, the name its note words; the admin list says which made the profile', async () => {
    const { merchant } = await createMerchantWithKey(app, { slug: 'described-shop' });
    const res = await admin('PUT', `/merchants/${merchant.id}/products`, {
      products: [
        {
          merchant_product_id: 'd1',
          name: 'Layali Al Sharq',
          house: 'Local Atelier',
          description:
            'عطر شرقي فاخر. النفحات العليا: الزعفران والهيل. القلب: الورد الطائفي. القاعدة: العود الكمبودي والعنبر.',
        },
        { merchant_product_id: 'd2', name: 'White Musk Body Lotion', house: 'Local Atelier' },
        { merchant_product_id: 'd3', name: 'Amber Oud', house: 'Local Atelier' },
        {
          merchant_product_id: 'd4',
          name: 'Blend No. 7',
          house: 'Local Atelier',
          description: 'Long lasting. Free gift wrap!',
        },
        { merchant_product_id: 'd5', name: 'x', house: 'Local Atelier', description: 'd'.repeat(4001) },
      ],
    });
    expect(res.json()).toMatchObject({ upserted: 4, partial: 2, unmatched: 2, rejected: 1 });
    expect(res.json().rejections[0]).toMatchObject({
      merchant_product_id: 'd5',
      reason: expect.stringMatching(/description/),
    });
    const list = (await admin('GET', '/merchants/described-shop/products')).json();
    const by = Object.fromEntries(
      list.products.map((p: { merchant_product_id: string }) => [p.merchant_product_id, p]),
    );
    expect(by.d1).toMatchObject({ status: 'partial', quality: 'partial', profile: { basis: ['description'] } });
    const accords = by.d1.profile.accords.map((a: { name: string }) => a.name);
    expect(accords.slice(0, 3)).toContain('oud');
    expect(accords).toEqual(expect.arrayContaining(['saffron', 'rose', 'amber']));
    expect(by.d1.profile.families).toContain('oud');
    expect(by.d1.description).toMatch(/النفحات العليا/);
    // a body lotion carries note words but is never recommended as a perfume
    expect(by.d2).toMatchObject({ status: 'unmatched', profile: null });
    expect(by.d3).toMatchObject({ status: 'partial', profile: { basis: ['name'] } });
    // nothing a perfumer could read: not recommended rather than recommended at random
    expect(by.d4).toMatchObject({ status: 'unmatched', profile: null });
  });

  it("a matched product says its profile is the catalog's", async () => {
    const list = (await admin('GET', '/merchants/sync-shop/products')).json();
    const p1 = list.products.find((p: { merchant_product_id: string }) => p.merchant_product_id === 'p1');
    expect(p1.profile.basis).toEqual(['catalog']);
  });
});

describe('a sync writes its rows as sent', () => {
  it(`every field, in statements of ${UPSERT_BATCH} rows; text a feed carried with an unpaired surrogate as U+FFFD`, async () => {
    const { merchant } = await createMerchantWithKey(app);
    const full = {
      merchant_product_id: 'full',
      name: 'Khamrah EDP 100ml \ud800',
      house: 'Lattafa',
      price: 155.5,
      sale_price: 120.25,
      currency: 'aed',
      image_url: 'https://shop.example/k.jpg',
      product_url: 'https://shop.example/k',
      accords: ['amber', 'spicy'],
      notes: { top: ['cinnamon'], base: ['praline', 'tonka'] },
      description: 'Dates, praline and "quotes" \\ backslashes',
      available: false,
      sizes: [
        { label: '50 ml', ml: 50, price: 99, available: false },
        { label: '100 ml', ml: 100, price: 155.5, sale_price: 120.25 },
      ],
    };
    const rest = Array.from({ length: UPSERT_BATCH * 2 + 1 }, (_, i) => ({
      merchant_product_id: `n${i}`,
      name: `Mystery Blend ${i}`,
      house: 'Local Atelier',
    }));
    const summary = await syncProducts(app.db, app.catalog.current(), merchant.id, [full, ...rest]);
    expect(summary.upserted).toBe(UPSERT_BATCH * 2 + 2);
    const rows = await app.db.select().from(merchantProducts).where(eq(merchantProducts.merchantId, merchant.id));
    expect(rows).toHaveLength(UPSERT_BATCH * 2 + 2);
    const row = rows.find((r) => r.merchantProductId === 'full');
    expect(row).toMatchObject({
      name: 'Khamrah EDP 100ml \ufffd',
      house: 'Lattafa',
      price: 155.5,
      salePrice: 120.25,
      currency: 'AED',
      imageUrl: 'https://shop.example/k.jpg',
      productUrl: 'https://shop.example/k',
      accords: ['amber', 'spicy'],
      notes: { top: ['cinnamon'], base: ['praline', 'tonka'] },
      description: 'Dates, praline and "quotes" \\ backslashes',
      available: false,
      sizes: [
        { label: '50 ml', ml: 50, price: 99, sale_price: null, available: false },
        { label: '100 ml', ml: 100, price: 155.5, sale_price: 120.25, available: true },
      ],
      feedSourceId: null,
      matchStatus: 'matched',
      sillagePerfumeId: 'lattafa-khamrah-edp',
      matchPinned: false,
      matchSibling: false,
    });
    expect(row?.matchConfidence).toBeGreaterThan(0.5);
    expect(row?.matchReason).toEqual(expect.any(String));
    expect(row?.profile?.accords.length).toBeGreaterThan(0);
    expect(row?.syncId).toMatch(/^[0-9a-f-]{36}$/);
  });
});
