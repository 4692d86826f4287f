import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findUnstorableText, storableTextWork } from '../../http/storable-text.ts';
import { PLATFORM_WEBHOOK_MAX_BYTES } from '../../routes/platforms/shared.ts';
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
    app = await buildTestApp();
  });
  afterAll(() => closeTestApp(app));

  it('the largest unauthenticated body to each platform webhook costs the guard one value, and gets a JSON refusal', async () => {
    // the largest body these routes accept
    const body = Buffer.alloc(PLATFORM_WEBHOOK_MAX_BYTES - 2, 0x61);
    const payload = Buffer.concat([Buffer.from('"'), body, Buffer.from('"')]);
    for (const url of [
      '/api/platforms/salla/webhook',
      '/api/platforms/shopify/webhooks',
      '/api/platforms/zid/webhooks/x',
      '/api/platforms/woocommerce/webhooks/x',
    ]) {
      storableTextWork.values = 0;
      const res = await app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload });
      expect(res.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, url).toBeLessThan(500);
      expect(res.json(), url).toMatchObject({ code: expect.any(String), error: expect.any(String) });
      // the body as bytes (one), its params and query: never a value a byte
      expect(storableTextWork.values, url).toBeLessThan(20);
    }
  });
});
