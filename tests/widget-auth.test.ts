import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeys, merchantProducts } from '../schema/index.ts';
import { buildTestApp, closeTestApp, createMerchantWithKey, type TestApp, verify } from './helper.ts';

let app: TestApp;
beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(() => closeTestApp(app));

describe('POST /api/widget/verify — keys', () => {
  it('answers the merchant, test_mode and the key for a valid live key', async () => {
    const { merchant, key, keyId } = await createMerchantWithKey(app, { mode: 'live' });
    const res = await verify(app, { api_key: key }, { origin: 'https://shop.example' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.merchant).toEqual({ id: merchant.id, name: merchant.name, slug: merchant.slug });
    expect(body.test_mode).toBe(false);
    expect(body.key).toEqual({
      id: keyId,
      prefix: key.slice(0, 12),
      mode: 'live',
      allowed_origins: ['https://shop.example'],
    });
  });

  it('says test_mode true for a test key', async () => {
    const { key } = await createMerchantWithKey(app, { mode: 'test' });
    const res = await verify(app, { api_key: key });
    expect(res.json().test_mode).toBe(true);
  });

  it('accepts the key as Authorization: Bearer', async () => {
    const { key } = await createMerchantWithKey(app);
    const res = await verify(app, {}, { authorization: `Bearer ${key}` });
    expect(res.statusCode).toBe(200);
  });

  it('401 missing_api_key when no key is sent', async () => {
    const res = await verify(app, {});
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 'missing_api_key' });
    expect(res.json().error).toMatch(/api_key/);
  });

  it('401 invalid_api_key for a malformed, mistyped or unknown key', async () => {
    const { key } = await createMerchantWithKey(app);
    const typo = key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a');
    for (const bad of ['hello', 'pk_live_short', typo, 'x'.repeat(150)]) {
      const res = await verify(app, { api_key: bad });
      expect(res.statusCode, bad).toBe(401);
      expect(res.json().code).toBe('invalid_api_key');
    }
    // well-formed with a valid checksum, but never issued
    const { generateKey } = await import('../auth/keys.ts');
    const res = await verify(app, { api_key: generateKey('live').key });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('invalid_api_key');
  });

  it('403 revoked_api_key at once after revocation', async () => {
    const { key, keyId } = await createMerchantWithKey(app);
    expect((await verify(app, { api_key: key })).statusCode).toBe(200); // now cached
    const res0 = await app.inject({
      method: 'POST',
      url: `/api/admin/keys/${keyId}/revoke`,
      headers: { authorization: `Bearer ${app.config.adminToken}` },
    });
    expect(res0.statusCode).toBe(200);
    const res = await verify(app, { api_key: key });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('revoked_api_key');
  });

  it('403 origin_not_allowed for a browser origin outside the list; no Origin (server caller) passes', async () => {
    const { key } = await createMerchantWithKey(app, { origins: ['https://shop.example', 'https://*.shop.example'] });
    expect((await verify(app, { api_key: key }, { origin: 'https://www.shop.example' })).statusCode).toBe(200);
    expect((await verify(app, { api_key: key })).statusCode).toBe(200);
    for (const origin of ['https://shop.example.evil.com', 'https://evil.example', 'null']) {
      const res = await verify(app, { api_key: key }, { origin });
      expect(res.statusCode, origin).toBe(403);
      expect(res.json().code).toBe('origin_not_allowed');
    }
  });

  it('stores only the hash of a key, and records when it was last used', async () => {
    const { key, keyId } = await createMerchantWithKey(app);
    const [row] = await app.db.select().from(apiKeys).where(eq(apiKeys.id, keyId));
    expect(JSON.stringify(row)).not.toContain(key.slice(12));
    expect(row?.keyHash).toMatch(/^[0-9a-f]{64}$/);
    await verify(app, { api_key: key });
    await app.keyStore.close(); // flushes last-used times
    const [after] = await app.db.select().from(apiKeys).where(eq(apiKeys.id, keyId));
    expect(after?.lastUsedAt).toBeInstanceOf(Date);
  });
});

describe('POST /api/widget/verify — catalog readiness', () => {
  it('counts the merchant products by match status, and those recognised without a profile, and is ready with one recommendable product', async () => {
    const { merchant, key } = await createMerchantWithKey(app);
    let res = await verify(app, { api_key: key });
    expect(res.json().catalog).toEqual({
      total: 0,
      matched: 0,
      partial: 0,
      unmatched: 0,
      pending: 0,
      without_profile: 0,
      ready: false,
      last_synced_at: null,
    });
    const row = (id: string, status: 'matched' | 'partial' | 'unmatched') => ({
      merchantId: merchant.id,
      merchantProductId: id,
      name: `P ${id}`,
      house: 'House',
      matchStatus: status,
    });
    await app.db.insert(merchantProducts).values([row('a', 'unmatched'), row('b', 'unmatched')]);
    res = await verify(app, { api_key: key });
    expect(res.json().catalog).toMatchObject({ total: 2, unmatched: 2, ready: false });
    // rows written directly, not by a sync: no sync time (tests/products.test.ts covers a real sync)
    expect(res.json().catalog.last_synced_at).toBeNull();
    // a product recognised without a profile (none stored) is matched, not recommendable
    await app.db.insert(merchantProducts).values([row('c', 'matched')]);
    res = await verify(app, { api_key: key });
    expect(res.json().catalog).toMatchObject({ total: 3, matched: 1, without_profile: 1, ready: false });
    await app.db.insert(merchantProducts).values([row('d', 'partial')]);
    res = await verify(app, { api_key: key });
    expect(res.json().catalog).toMatchObject({ total: 4, matched: 1, partial: 1, unmatched: 2, ready: true });
  });

  it('is never kept by an HTTP cache, ready or not: a sync shows on the next verify (issue 22)', async () => {
    const { merchant, key } = await createMerchantWithKey(app);
    const before = await verify(app, { api_key: key });
    expect(before.json().catalog.ready).toBe(false);
    expect(before.headers['cache-control']).toBe('no-store');
    await app.db.insert(merchantProducts).values({
      merchantId: merchant.id,
      merchantProductId: 'm1',
      name: 'P m1',
      house: 'House',
      // profiled from the shop's words: recommendable
      matchStatus: 'partial',
    });
    const after = await verify(app, { api_key: key });
    expect(after.json().catalog.ready).toBe(true);
    expect(after.headers['cache-control']).toBe('no-store');
  });
});
