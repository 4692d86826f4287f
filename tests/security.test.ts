/**
 * The checks docs/security.md cites that no other suite makes: one merchant's
 * key reaches only that merchant's data (OWASP API1), and the service never
 * fetches a URL a merchant or shopper gave it (API7).
 */
import { createServer } from 'node:http';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events } from '../schema/index.ts';
import { adminHeaders, buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from './helper.ts';

let app: TestApp;
let hits = 0;
const trap = createServer((_req, res) => {
  hits++;
  res.end('no');
});
let trapUrl = '';

const quiz = { families: ['oud'], accord_ratings: { oud: 'love' } };

beforeAll(async () => {
  app = await buildTestApp();
  await new Promise<void>((r) => trap.listen(0, '127.0.0.1', () => r()));
  trapUrl = `http://127.0.0.1:${(trap.address() as { port: number }).port}`;
});
afterAll(async () => {
  await closeTestApp(app);
  await new Promise((r) => trap.close(r));
});

async function shopWith(products: object[]) {
  const m = await createMerchantWithKey(app, { mode: 'live' });
  const res = await app.inject({
    method: 'PUT',
    url: `/api/admin/merchants/${m.merchant.id}/products`,
    headers: adminHeaders,
    payload: { products },
  });
  expect(res.statusCode).toBe(200);
  return m;
}

describe('object-level authorization: a key reaches only its own merchant', () => {
  it("scores, verifies and records events only for the key's merchant", async () => {
    const a = await shopWith([{ merchant_product_id: 'a-1', name: 'Oud Wood', house: 'Tom Ford' }]);
    const b = await shopWith([{ merchant_product_id: 'b-1', name: 'Oud Wood', house: 'Tom Ford' }]);
    const score = await app.inject({ method: 'POST', url: '/api/widget/score', payload: { api_key: a.key, quiz } });
    expect(score.json().merchant.id).toBe(a.merchant.id);
    const ids = [...score.json().recommendations, ...score.json().also_explore].map(
      (r: { merchant_product_id: string }) => r.merchant_product_id,
    );
    expect(ids).toContain('a-1');
    expect(ids).not.toContain('b-1');

    const verify = await app.inject({ method: 'POST', url: '/api/widget/verify', payload: { api_key: a.key } });
    expect(verify.json().merchant.id).toBe(a.merchant.id);

    // a click naming the other shop's product is still recorded under the key's own merchant
    const ev = await app.inject({
      method: 'POST',
      url: '/api/widget/event',
      payload: { api_key: a.key, type: 'recommendation_clicked', merchant_product_id: 'b-1', position: 1 },
    });
    expect(ev.statusCode).toBe(202);
    const rows = await app.db.select({ merchantId: events.merchantId }).from(events).where(eq(events.keyId, a.keyId));
    expect(rows.map((r) => r.merchantId)).toEqual([a.merchant.id]);
    const bRows = await app.db.select({ id: events.id }).from(events).where(eq(events.merchantId, b.merchant.id));
    expect(bRows).toHaveLength(0);
  });

  it('body fields cannot name another merchant: a field the operation does not define is refused, naming it', async () => {
    const a = await shopWith([{ merchant_product_id: 'a-2', name: 'Aventus', house: 'Creed' }]);
    const b = await createMerchantWithKey(app);
    const res = await app.inject({
      method: 'POST',
      url: '/api/widget/score',
      payload: { api_key: a.key, quiz, merchant_id: b.merchant.id },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'Unknown field: merchant_id is not a field of this operation',
      code: 'unknown_field',
      details: [{ path: '/body/merchant_id', message: 'is not an allowed property' }],
    });
    // without it, the key's own merchant answers
    const ok = await app.inject({ method: 'POST', url: '/api/widget/score', payload: { api_key: a.key, quiz } });
    expect(ok.json().merchant.id).toBe(a.merchant.id);
  });

  it('a misspelt field is a 400 that names it, not a silent default: "limt" is not limit, "familes" not families', async () => {
    const a = await shopWith([{ merchant_product_id: 'a-3', name: 'Aventus', house: 'Creed' }]);
    const typo = await app.inject({
      method: 'POST',
      url: '/api/widget/score',
      payload: { api_key: a.key, quiz, limt: 2 },
    });
    expect(typo.statusCode).toBe(400);
    expect(typo.json()).toMatchObject({ code: 'unknown_field', details: [{ path: '/body/limt' }] });
    const nested = await app.inject({
      method: 'POST',
      url: '/api/widget/score',
      payload: { api_key: a.key, quiz: { familes: ['oud'], accord_ratings: { oud: 'love' } } },
    });
    expect(nested.statusCode).toBe(400);
    expect(nested.json()).toMatchObject({
      error: 'Unknown field: quiz/familes is not a field of this operation',
      code: 'unknown_field',
      details: [{ path: '/body/quiz/familes' }],
    });
  });
});

describe('no server-side requests to URLs from input', () => {
  it('stores and returns image and product URLs without ever fetching them', async () => {
    const shop = await shopWith([
      {
        merchant_product_id: 's-1',
        name: 'Oud Wood',
        house: 'Tom Ford',
        image_url: `${trapUrl}/image.jpg`,
        product_url: `${trapUrl}/product`,
      },
    ]);
    const score = await app.inject({ method: 'POST', url: '/api/widget/score', payload: { api_key: shop.key, quiz } });
    expect(score.json().recommendations[0]).toMatchObject({ image_url: `${trapUrl}/image.jpg` });
    await app.inject({
      method: 'POST',
      url: '/api/widget/score',
      payload: {
        api_key: shop.key,
        quiz,
        catalog_mode: 'inline',
        inline_catalog: [{ merchant_product_id: 'i', name: 'Aventus', house: 'Creed', image_url: `${trapUrl}/x.png` }],
      },
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(hits).toBe(0);
  });
});
