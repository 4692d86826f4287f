import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN_TOKEN_FAILURES_PER_MINUTE } from '../../auth/admin-token.ts';
import { CHECKS_PAST_LIMIT_PER_MINUTE, REFUSED_KEYS_PER_MINUTE } from '../../auth/key-guesses.ts';
import { generateKey } from '../../auth/keys.ts';
import { cacheInventory } from '../../lib/cache.ts';
import { adminHeaders, buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from '../helper.ts';

/**
 * Findings 11 and 12 of the console and platforms attack run (docs/security.md): guesses from one address are throttled, and what
 * is real — a shop's widget key, the operator's admin token — is served from that address all the
 * same (many shoppers share a carrier's address; behind a proxy without TRUST_PROXY every operator
 * shares the guesser's).
 */
let app: TestApp;
beforeAll(async () => {
  app = await buildTestApp({ REDIS_URL: undefined });
});
afterAll(() => closeTestApp(app));
afterEach(() => vi.restoreAllMocks());

const verifyFrom = (remoteAddress: string, apiKey: string | undefined, origin?: string) =>
  app.inject({
    method: 'POST',
    url: '/api/widget/verify',
    payload: apiKey === undefined ? {} : { api_key: apiKey },
    headers: origin ? { origin } : {},
    remoteAddress,
  });

/** a key of the right shape and checksum that no merchant has: each one costs a database lookup to refuse */
const unknownKey = () => generateKey('live').key;
const entries = (name: string) => cacheInventory().find((c) => c.name === name)?.entries ?? 0;
const CHECKED = REFUSED_KEYS_PER_MINUTE + CHECKS_PAST_LIMIT_PER_MINUTE;

describe('11. junk api keys from one address', () => {
  it(`150 different keys: ${REFUSED_KEYS_PER_MINUTE} refused, ${CHECKS_PAST_LIMIT_PER_MINUTE} more checked, then 429 with no lookup, nothing hashed`, async () => {
    const lookups = vi.spyOn(app.keyStore, 'resolve');
    const codes: number[] = [];
    let digests = 0;
    let parses = 0;
    let throttled: Awaited<ReturnType<typeof verifyFrom>> | undefined;
    for (let i = 0; i < 150; i++) {
      if (i === CHECKED) {
        digests = entries('rate-limit-key-digest');
        parses = entries('widget-key-parse');
      }
      const res = await verifyFrom('203.0.113.50', unknownKey());
      codes.push(res.statusCode);
      if (res.statusCode === 429) throttled ??= res;
    }
    expect(codes.slice(0, CHECKED)).toEqual(Array(CHECKED).fill(401));
    expect(codes.slice(CHECKED)).toEqual(Array(150 - CHECKED).fill(429));
    // before: 150 lookups, one a key
    expect(lookups).toHaveBeenCalledTimes(CHECKED);
    // refused before the per-key rate limit hashes the key and before it is parsed
    expect(entries('rate-limit-key-digest')).toBe(digests);
    expect(entries('widget-key-parse')).toBe(parses);
    expect(throttled?.json()).toMatchObject({ code: 'rate_limited' });
    expect(throttled?.json().error).toMatch(/^Too many refused api keys from this address/);
    expect(Number(throttled?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(throttled?.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(throttled?.headers['access-control-allow-origin']).toBe('*');

    // malformed, too long and missing keys from that address: 429 too, nothing looked up
    for (const key of ['pk_live_guess', `pk_live_${'x'.repeat(200)}`, undefined]) {
      expect((await verifyFrom('203.0.113.50', key)).statusCode).toBe(429);
    }
    expect(lookups).toHaveBeenCalledTimes(CHECKED);
  });

  it('malformed, too long and missing keys count as refusals as well', async () => {
    const lookups = vi.spyOn(app.keyStore, 'resolve');
    const kinds = ['pk_live_guess', `pk_test_${'a'.repeat(100)}`, undefined];
    const codes: number[] = [];
    for (let i = 0; i < CHECKED + 1; i++) codes.push((await verifyFrom('203.0.113.51', kinds[i % 3])).statusCode);
    expect(codes.slice(0, CHECKED).every((c) => c === 401)).toBe(true);
    expect(codes[CHECKED]).toBe(429);
    expect(lookups).not.toHaveBeenCalled();
  });

  it('a real key is served from that address, one in use already and one this instance never met', async () => {
    const inUse = await createMerchantWithKey(app);
    const fresh = await createMerchantWithKey(app);
    expect((await verifyFrom('198.51.100.1', inUse.key)).statusCode).toBe(200);
    for (let i = 0; i < REFUSED_KEYS_PER_MINUTE; i++) await verifyFrom('203.0.113.52', unknownKey());
    expect((await verifyFrom('203.0.113.52', inUse.key)).statusCode).toBe(200);
    // a key never met is checked past the limit; proving real, it gives its check back and is remembered
    expect((await verifyFrom('203.0.113.52', fresh.key)).statusCode).toBe(200);
    for (let i = 0; i < CHECKS_PAST_LIMIT_PER_MINUTE; i++) {
      expect((await verifyFrom('203.0.113.52', unknownKey())).statusCode).toBe(401);
    }
    expect((await verifyFrom('203.0.113.52', unknownKey())).statusCode).toBe(429);
    // the junk goes on being refused; both shops' keys go on being served
    for (let i = 0; i < 3; i++) {
      expect((await verifyFrom('203.0.113.52', inUse.key)).statusCode).toBe(200);
      expect((await verifyFrom('203.0.113.52', fresh.key)).statusCode).toBe(200);
    }
  });

  it('another address is not affected', async () => {
    for (let i = 0; i < CHECKED + 1; i++) await verifyFrom('203.0.113.53', unknownKey());
    expect((await verifyFrom('203.0.113.53', unknownKey())).statusCode).toBe(429);
    expect((await verifyFrom('203.0.113.54', unknownKey())).statusCode).toBe(401);
    // an IPv6 address is counted by its /64: another address of the same /64 is the same client
    for (let i = 0; i < CHECKED + 1; i++) await verifyFrom('2001:db8:1:2::1', unknownKey());
    expect((await verifyFrom('2001:db8:1:2::ffff', unknownKey())).statusCode).toBe(429);
    expect((await verifyFrom('2001:db8:1:3::1', unknownKey())).statusCode).toBe(401);
  });

  it('simultaneous junk keys are counted before any is looked up', async () => {
    const lookups = vi.spyOn(app.keyStore, 'resolve');
    const codes = (await Promise.all(Array.from({ length: 150 }, () => verifyFrom('203.0.113.55', unknownKey())))).map(
      (r) => r.statusCode,
    );
    expect(lookups.mock.calls.length).toBeLessThanOrEqual(CHECKED);
    expect(codes.filter((c) => c === 401)).toHaveLength(lookups.mock.calls.length);
    expect(codes.filter((c) => c === 429)).toHaveLength(150 - lookups.mock.calls.length);
  });

  it('revoked keys and keys from an origin they do not allow (403) are real keys: they do not count', async () => {
    const revoked = await createMerchantWithKey(app);
    const res = await app.inject({
      method: 'POST',
      url: `/api/admin/keys/${revoked.keyId}/revoke`,
      headers: adminHeaders,
    });
    expect(res.statusCode).toBe(200);
    const elsewhere = await createMerchantWithKey(app, { origins: ['https://shop.example'] });
    for (let i = 0; i < CHECKED; i++) {
      expect((await verifyFrom('203.0.113.56', revoked.key)).json().code).toBe('revoked_api_key');
      expect((await verifyFrom('203.0.113.56', elsewhere.key, 'https://evil.example')).json().code).toBe(
        'origin_not_allowed',
      );
    }
    expect((await verifyFrom('203.0.113.56', unknownKey())).statusCode).toBe(401);
  });

  it('the address is checked again once its minute is over', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      for (let i = 0; i < CHECKED; i++) await verifyFrom('203.0.113.57', unknownKey());
      expect((await verifyFrom('203.0.113.57', unknownKey())).statusCode).toBe(429);
      vi.setSystemTime(Date.now() + 60_001);
      expect((await verifyFrom('203.0.113.57', unknownKey())).statusCode).toBe(401);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('12. the right admin token from an address sending wrong ones', () => {
  const admin = (url: string, authorization: string, remoteAddress: string) =>
    app.inject({ method: 'GET', url, headers: { authorization }, remoteAddress });

  for (const url of ['/api/admin/merchants', '/metrics']) {
    it(`${url}: ${ADMIN_TOKEN_FAILURES_PER_MINUTE} wrong, then the right one is served, then a wrong one is 429`, async () => {
      const address = url === '/metrics' ? '203.0.113.61' : '203.0.113.60';
      for (let i = 0; i < ADMIN_TOKEN_FAILURES_PER_MINUTE; i++) {
        expect((await admin(url, `Bearer guess-${i}`, address)).statusCode).toBe(401);
      }
      // before: 429, the operator shut out with the guesser
      expect((await admin(url, adminHeaders.authorization, address)).statusCode).toBe(200);
      const wrong = await admin(url, 'Bearer guess-x', address);
      expect(wrong.statusCode).toBe(429);
      expect(wrong.json()).toMatchObject({ code: 'rate_limited' });
      expect(Number(wrong.headers['retry-after'])).toBeGreaterThan(0);
      expect((await admin(url, adminHeaders.authorization, address)).statusCode).toBe(200);
    });
  }
});
