import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateProductInput } from '../matching/listing.ts';
import { syncProducts } from '../services/products.ts';
import { buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from './helper.ts';

/** What a feed says of stock and price reaches the shopper: sold out is never recommended, a sale is shown. */
let app: TestApp;
const ORIGIN = 'https://shop.example';
beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(() => closeTestApp(app));

const FEED = [
  { merchant_product_id: 'IN', name: 'Khamrah EDP 100ml', house: 'Lattafa', price: 150, sale_price: 119 },
  { merchant_product_id: 'OUT', name: 'Khamrah Qahwa EDP 100ml', house: 'Lattafa', price: 160, available: false },
  {
    merchant_product_id: 'SIZES',
    name: 'Asad EDP',
    house: 'Lattafa',
    price: 90,
    sizes: [
      { label: '100 ml', ml: 100, price: 90, available: true },
      { label: '30 ml', ml: 30, price: 45, available: false },
    ],
  },
];

async function score(key: string, body: object) {
  const r = await app.inject({
    method: 'POST',
    url: '/api/widget/score',
    payload: { api_key: key, limit: 12, quiz: { families: ['amber', 'gourmand', 'spicy'] }, ...body },
    headers: { origin: ORIGIN },
  });
  expect(r.statusCode).toBe(200);
  const j = r.json() as {
    recommendations: { merchant_product_id: string; price: number | null }[];
    also_explore: { merchant_product_id: string }[];
  };
  return { ids: [...j.recommendations, ...j.also_explore].map((x) => x.merchant_product_id), recs: j.recommendations };
}

describe('availability and sale prices', () => {
  it('never recommends a sold-out product of a synced feed, and shows the sale price', async () => {
    const { merchant, key } = await createMerchantWithKey(app);
    const summary = await syncProducts(app.db, app.catalog.current(), merchant.id, FEED);
    expect(summary.rejected).toBe(0);
    const { ids, recs } = await score(key, {});
    expect(ids).toContain('IN');
    expect(ids).not.toContain('OUT');
    expect(recs.find((r) => r.merchant_product_id === 'IN')?.price).toBe(119);
    // back in stock: recommended again after the next sync
    await syncProducts(app.db, app.catalog.current(), merchant.id, [{ ...FEED[1], available: true }]);
    app.merchantProducts.invalidate(merchant.id);
    expect((await score(key, {})).ids).toContain('OUT');
  });

  it('never recommends a sold-out product of an inline catalog', async () => {
    const { key } = await createMerchantWithKey(app);
    const { ids } = await score(key, { catalog_mode: 'inline', inline_catalog: FEED });
    expect(ids).toContain('IN');
    expect(ids).not.toContain('OUT');
  });

  it('refuses bad availability, sale prices and sizes row by row, naming the field', () => {
    const base = { merchant_product_id: 'x', name: 'n', house: 'h' };
    expect(validateProductInput({ ...base, available: 'no' })).toMatchObject({
      ok: false,
      reason: 'available must be true or false',
    });
    expect(validateProductInput({ ...base, sale_price: -1 })).toMatchObject({
      ok: false,
      reason: 'sale_price must be a number ≥ 0',
    });
    expect(validateProductInput({ ...base, sizes: [{ price: 10 }] })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('sizes/0'),
    });
    expect(validateProductInput({ ...base, sizes: Array.from({ length: 21 }, () => ({ label: 'x' })) })).toMatchObject({
      ok: false,
    });
    const ok = validateProductInput({ ...base, sizes: [{ label: '50 ml', ml: 50, price: 10 }] });
    expect(ok).toMatchObject({
      ok: true,
      product: {
        available: true,
        salePrice: null,
        sizes: [{ label: '50 ml', ml: 50, price: 10, sale_price: null, available: true }],
      },
    });
  });
});
