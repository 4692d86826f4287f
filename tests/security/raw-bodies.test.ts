import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findUnstorableText, storableTextWork } from '../../http/storable-text.ts';
import {
  PLATFORM_WEBHOOK_MAX_BYTES,
  platformBodyReads,
  SHOPIFY_WEBHOOK_MAX_BYTES,
  ZID_WEBHOOK_MAX_BYTES,
} from '../../routes/platforms/shared.ts';
import { buildTestApp, closeTestApp, type TestApp } from '../helper.ts';

/** Issue 44, finding 1: a 1 MB body to a platform webhook was walked byte by byte before any check. */
describe('a raw body is never walked as an object', () => {
  it('a megabyte of bytes is one value to the text guard, however it is made', () => {
    for (const bytes of [Buffer.alloc(1_000_000), new Uint8Array(1_000_000), new ArrayBuffer(1_000_000)]) {
      storableTextWork.values = 0;
      expect(findUnstorableText(bytes)).toBeNull();
      expect(storableTextWork.values).toBe(1);
    }
    // JSON is still walked: a NUL in a key or a string is found where it is
    expect(findUnstorableText({ a: [{ b: 'x\u0000' }] })).toBe('/a/0/b');
    expect(findUnstorableText({ ['k\u0000']: 1 })).toBe('/k\\0');
  });

  let app: TestApp;
  beforeAll(async () => {
    app = await buildTestApp({
      SALLA_CLIENT_ID: 'salla-client',
      SALLA_CLIENT_SECRET: 'salla-client-secret-0123456789',
      SALLA_WEBHOOK_SECRET: 'salla-webhook-secret-0123456789',
      SHOPIFY_CLIENT_ID: 'shopify-client',
      SHOPIFY_CLIENT_SECRET: 'shopify-client-secret-0123456789',
      ZID_CLIENT_ID: '1',
      ZID_CLIENT_SECRET: 'zid-client-secret-0123456789',
      WOOCOMMERCE_APP: 'true',
    });
  });
  afterAll(() => closeTestApp(app));

  it('the largest unauthenticated body to each platform webhook costs the guard one value, and gets a JSON refusal', async () => {
    // the largest body each route accepts, with a signature header that could be one (so it is read)
    const at = (limit: number) => Buffer.concat([Buffer.from('"'), Buffer.alloc(limit - 2, 0x61), Buffer.from('"')]);
    for (const [url, payload, headers] of [
      ['/api/platforms/salla/webhook', at(PLATFORM_WEBHOOK_MAX_BYTES), { 'x-salla-signature': '0'.repeat(64) }],
      ['/api/platforms/shopify/webhooks', at(SHOPIFY_WEBHOOK_MAX_BYTES), { 'x-shopify-hmac-sha256': 'AAAA' }],
      // refused before their body is read: a store that never connected
      ['/api/platforms/zid/webhooks/1', at(ZID_WEBHOOK_MAX_BYTES), {}],
      ['/api/platforms/woocommerce/webhooks/x', at(PLATFORM_WEBHOOK_MAX_BYTES), {}],
    ] as const) {
      storableTextWork.values = 0;
      const reads = platformBodyReads.bodies;
      const res = await app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', ...headers },
        payload,
      });
      expect(res.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, url).toBeLessThan(500);
      expect(res.json(), url).toMatchObject({ code: expect.any(String), error: expect.any(String) });
      expect(platformBodyReads.bodies - reads, url).toBe(url.includes('/webhooks/') ? 0 : 1);
      // the body as bytes (one), its params and query: never a value a byte
      expect(storableTextWork.values, url).toBeLessThan(20);
    }
  });
});
