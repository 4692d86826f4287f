import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOOKUP_MAX_BYTES, SCORE_MAX_BYTES, VERIFY_MAX_BYTES } from '../../contracts/widget.ts';
import { MAX_REQUEST_BYTES } from '../../events/validate.ts';
import { jsonBodyWork } from '../../http/json-body.ts';
import { signWebhook } from '../../platforms/shopify.ts';
import { CONSOLE_FORM_LIMIT } from '../../routes/console/index.ts';
import {
  PLATFORM_NOTICE_MAX_BYTES,
  PLATFORM_WEBHOOK_MAX_BYTES,
  platformBodyReads,
  SHOPIFY_WEBHOOK_MAX_BYTES,
  ZID_WEBHOOK_MAX_BYTES,
} from '../../routes/platforms/shared.ts';
import { installStore } from '../../services/platforms.ts';
import { buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from '../helper.ts';

/**
 * Issue 44, finding 1: every route that reads a body before its sender is known took 1 MiB, whatever
 * it carries. Each now takes what its bodies weigh (docs/platforms.md and docs/widget-api.md, "Body
 * limits"); one byte more is refused 413 before any of it is read, and what a platform would refuse
 * whatever the body holds (no app, no signature header, a store that never connected, a Zid URL
 * without the store's secret) is refused before the body is read too.
 */
const SALLA_SECRET = 'salla-webhook-secret-0123456789';
const SHOPIFY_SECRET = 'shopify-client-secret-0123456789';
const WOO_STORE = 'limits-shop-example';
const ZID_STORE = '4242';

let app: TestApp;
let key: string;
beforeAll(async () => {
  app = await buildTestApp({
    REDIS_URL: undefined,
    ADDRESS_RATE_LIMIT: '0',
    SALLA_CLIENT_ID: 'salla-client',
    SALLA_CLIENT_SECRET: 'salla-client-secret-0123456789',
    SALLA_WEBHOOK_SECRET: SALLA_SECRET,
    SHOPIFY_CLIENT_ID: 'shopify-client',
    SHOPIFY_CLIENT_SECRET: SHOPIFY_SECRET,
    ZID_CLIENT_ID: '1',
    ZID_CLIENT_SECRET: 'zid-client-secret-0123456789',
    WOOCOMMERCE_APP: 'true',
  });
  key = (await createMerchantWithKey(app, { origins: ['https://shop.example'] })).key;
  for (const [platform, storeId] of [
    ['woocommerce', WOO_STORE],
    ['zid', ZID_STORE],
  ] as const) {
    await installStore(app.db, app.leadCipher, {
      platform,
      storeId,
      tokens: null,
      store: { name: 'Limits', origin: 'https://limits.example' },
      apiUrl: 'https://limits.example',
      webhookSecret: 'the-stores-webhook-secret-0123',
    });
  }
});
afterAll(() => closeTestApp(app));

/** a JSON string value of exactly `bytes` bytes in all (`"…"`) */
const jsonString = (bytes: number) => `"${'a'.repeat(bytes - 2)}"`;
/** `head` + a string + `tail`, exactly `bytes` long */
const padded = (bytes: number, head: string, tail: string) =>
  `${head}${jsonString(bytes - head.length - tail.length)}${tail}`;

const sallaHeaders = (body: string) => ({
  'content-type': 'application/json',
  'x-salla-signature': createHmac('sha256', SALLA_SECRET).update(body).digest('hex'),
});
const shopifyHeaders = (body: string) => ({
  'content-type': 'application/json',
  'x-shopify-hmac-sha256': signWebhook(body, SHOPIFY_SECRET),
  'x-shopify-topic': 'products/update',
  'x-shopify-shop-domain': 'limits.myshopify.com',
});

/** Each route a stranger may post to, its limit and a body of a given size that reaches its limit check. */
const ROUTES: { url: string; limit: number; body: (bytes: number) => string; headers?: (b: string) => object }[] = [
  { url: '/api/widget/verify', limit: VERIFY_MAX_BYTES, body: (n) => padded(n, '{"api_key":', '}') },
  { url: '/api/widget/lookup', limit: LOOKUP_MAX_BYTES, body: (n) => padded(n, '{"query":', '}') },
  { url: '/api/widget/score', limit: SCORE_MAX_BYTES, body: (n) => padded(n, '{"session_id":', '}') },
  { url: '/api/widget/event', limit: MAX_REQUEST_BYTES, body: (n) => padded(n, '{"events":[', ']}') },
  { url: '/console/sign-in', limit: CONSOLE_FORM_LIMIT, body: (n) => padded(n, '{"email":', '}') },
  {
    url: '/api/platforms/salla/webhook',
    limit: PLATFORM_WEBHOOK_MAX_BYTES,
    body: (n) => padded(n, '{"event":', '}'),
    headers: sallaHeaders,
  },
  {
    url: '/api/platforms/shopify/webhooks',
    limit: SHOPIFY_WEBHOOK_MAX_BYTES,
    body: (n) => padded(n, '{"id":', '}'),
    headers: shopifyHeaders,
  },
  {
    url: `/api/platforms/woocommerce/webhooks/${WOO_STORE}`,
    limit: PLATFORM_WEBHOOK_MAX_BYTES,
    body: (n) => padded(n, '{"id":', '}'),
    headers: () => ({ 'content-type': 'application/json', 'x-wc-webhook-signature': 'c2lnbmF0dXJl' }),
  },
  {
    url: `/api/platforms/zid/webhooks/${ZID_STORE}?event=product.update&token=the-stores-webhook-secret-0123`,
    limit: ZID_WEBHOOK_MAX_BYTES,
    body: (n) => padded(n, '{"id":', '}'),
  },
  { url: '/api/platforms/woocommerce/keys', limit: PLATFORM_NOTICE_MAX_BYTES, body: (n) => padded(n, '{"k":', '}') },
  {
    url: '/api/platforms/woocommerce/connections/claim',
    limit: PLATFORM_NOTICE_MAX_BYTES,
    body: (n) => padded(n, '{"token":', '}'),
  },
  { url: '/api/platforms/zid/app-events', limit: PLATFORM_NOTICE_MAX_BYTES, body: (n) => padded(n, '{"e":', '}') },
];

const post = (url: string, payload: string, headers: object = { 'content-type': 'application/json' }) =>
  app.inject({ method: 'POST', url, payload, headers: { ...headers, origin: 'https://shop.example' } });

describe('each route that reads a body before its sender is known takes what its bodies weigh', () => {
  it('the limits: small where the bodies are, 1 MiB only for inline catalogs and the largest platform deliveries', () => {
    expect(
      Object.fromEntries(
        ROUTES.map((r) => [r.url.replace(/\?.*/, '').replace(/\/[^/]*-example$/, '/:store'), r.limit]),
      ),
    ).toEqual({
      '/api/widget/verify': 4 * 1024,
      '/api/widget/lookup': 32 * 1024,
      '/api/widget/score': 1024 * 1024,
      '/api/widget/event': 64 * 1024,
      '/console/sign-in': 64 * 1024,
      '/api/platforms/salla/webhook': 256 * 1024,
      '/api/platforms/shopify/webhooks': 1024 * 1024,
      '/api/platforms/woocommerce/webhooks/:store': 256 * 1024,
      [`/api/platforms/zid/webhooks/${ZID_STORE}`]: 1024 * 1024,
      '/api/platforms/woocommerce/keys': 16 * 1024,
      '/api/platforms/woocommerce/connections/claim': 16 * 1024,
      '/api/platforms/zid/app-events': 16 * 1024,
    });
  });

  for (const route of ROUTES) {
    it(`${route.url.replace(/\?.*/, '')}: one byte past ${route.limit / 1024} KiB is 413 and never read; at the limit it is read`, async () => {
      const over = route.body(route.limit + 1);
      expect(Buffer.byteLength(over)).toBe(route.limit + 1);
      const reads = { json: jsonBodyWork.chars, raw: platformBodyReads.bodies };
      const res = await post(route.url, over, route.headers?.(over));
      expect(res.statusCode, res.body.slice(0, 200)).toBe(413);
      expect(res.json()).toEqual({ error: expect.any(String), code: 'payload_too_large' });
      expect({ json: jsonBodyWork.chars, raw: platformBodyReads.bodies }).toEqual(reads);

      const at = route.body(route.limit);
      const read = await post(route.url, at, route.headers?.(at));
      expect(read.statusCode, read.body.slice(0, 200)).not.toBe(413);
      expect(read.statusCode).toBeLessThan(500);
      expect(jsonBodyWork.chars + platformBodyReads.bodies).toBeGreaterThan(reads.json + reads.raw);
    });
  }
});

/** every character of a field three bytes in UTF-8, as JSON.stringify writes it */
const wide = (n: number) => '€'.repeat(n);

describe('the largest honest bodies fit', () => {
  it('verify: a key of 200 characters', async () => {
    const body = JSON.stringify({ api_key: wide(200) });
    expect(Buffer.byteLength(body)).toBeLessThan(VERIFY_MAX_BYTES);
    const res = await post('/api/widget/verify', body);
    expect(res.json()).toMatchObject({ code: 'invalid_api_key' });
    expect((await post('/api/widget/verify', JSON.stringify({ api_key: key }))).statusCode).toBe(200);
  });

  it('lookup: every field at its longest, 50 ids of 120 characters', async () => {
    const body = JSON.stringify({
      api_key: key,
      query: wide(200),
      house: wide(100),
      ids: Array.from({ length: 50 }, (_, i) => `${wide(119)}${String.fromCharCode(0x4e00 + i)}`),
      limit: 50,
    });
    expect(Buffer.byteLength(body)).toBeLessThan(LOOKUP_MAX_BYTES);
    const res = await post('/api/widget/lookup', body);
    expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
  });

  it('a signed Salla delivery of 250 KB is read and checked', async () => {
    const body = JSON.stringify({
      event: 'product.updated',
      merchant: 909_090,
      created_at: '2026-03-01 10:00:00',
      data: { id: 1, description: 'x'.repeat(250_000) },
    });
    const res = await post('/api/platforms/salla/webhook', body, sallaHeaders(body));
    // signed, about a store that never installed: the body was read, its signature checked
    expect(res.json()).toMatchObject({ code: 'unknown_store' });
  });
});

describe('what is refused whatever the body holds is refused before it is read', () => {
  const MB = jsonString(200_000);
  const cases: [string, string, object, number, string][] = [
    ['Salla, no signature', '/api/platforms/salla/webhook', {}, 401, 'invalid_signature'],
    [
      'Salla, a signature that is no hex digest',
      '/api/platforms/salla/webhook',
      { 'x-salla-signature': 'z'.repeat(64) },
      401,
      'invalid_signature',
    ],
    ['Shopify, no signature', '/api/platforms/shopify/webhooks', {}, 401, 'invalid_signature'],
    [
      'Shopify, a signature that is no base64',
      '/api/platforms/shopify/webhooks',
      { 'x-shopify-hmac-sha256': '%%%' },
      401,
      'invalid_signature',
    ],
    [
      'WooCommerce, a store never connected',
      '/api/platforms/woocommerce/webhooks/never-connected',
      {},
      404,
      'unknown_store',
    ],
    ['WooCommerce, no store id at all', '/api/platforms/woocommerce/webhooks/%00x', {}, 404, 'unknown_store'],
    [
      'Zid, a store never installed',
      '/api/platforms/zid/webhooks/1?event=product.update&token=x',
      {},
      404,
      'unknown_store',
    ],
    ['Zid, no store id at all', '/api/platforms/zid/webhooks/x%00?event=product.update', {}, 404, 'unknown_store'],
    [
      "Zid, without the store's secret",
      `/api/platforms/zid/webhooks/${ZID_STORE}?event=product.update&token=guess`,
      {},
      401,
      'invalid_signature',
    ],
  ];
  for (const [what, url, headers, status, code] of cases) {
    it(what, async () => {
      const reads = platformBodyReads.bodies;
      const res = await post(url, MB, { 'content-type': 'application/json', ...headers });
      expect(res.statusCode, res.body.slice(0, 200)).toBe(status);
      expect(res.json()).toEqual({ error: expect.any(String), code });
      expect(platformBodyReads.bodies).toBe(reads);
    });
  }

  it("Zid's delivery with the store's secret is read", async () => {
    const reads = platformBodyReads.bodies;
    const res = await post(
      `/api/platforms/zid/webhooks/${ZID_STORE}?event=product.update&token=the-stores-webhook-secret-0123`,
      JSON.stringify({ id: 7 }),
    );
    expect(res.statusCode, res.body).toBeLessThan(500);
    expect(platformBodyReads.bodies).toBe(reads + 1);
  });
});
