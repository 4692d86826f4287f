import Fastify from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../app.ts';
import { overAdmissionBound } from '../lib/shared-counter.ts';
import errorsPlugin from '../plugins/app/errors.ts';
import redisPlugin from '../plugins/app/redis.ts';
import rateLimitPlugin, { RECONCILE_MS, WIDGET_RATE_LIMITS, widgetRateLimit } from '../plugins/external/rate-limit.ts';
import { poll } from './cluster.ts';
import {
  buildTestApp,
  closeTestApp,
  createMerchantWithKey,
  createTestDatabase,
  TEST_REDIS_URL,
  type TestApp,
  testConfig,
  verify,
} from './helper.ts';

const LIMIT = WIDGET_RATE_LIMITS.verify;

async function burst(app: TestApp, n: number, body: object, headers: Record<string, string> = {}) {
  const codes: number[] = [];
  for (let i = 0; i < n; i++) codes.push((await verify(app, body, headers)).statusCode);
  return codes;
}

describe('per-operation rate limits (in-process store)', () => {
  let app: TestApp;
  beforeAll(async () => {
    // the refused-key guard off (REFUSED_KEY_LIMIT=0; tests/security/guesses.test.ts holds it on):
    // the per-key counters alone
    app = await buildTestApp({ REDIS_URL: undefined, REFUSED_KEY_LIMIT: '0' });
  });
  afterAll(() => closeTestApp(app));
  afterEach(() => vi.useRealTimers());

  it(`verify allows exactly ${LIMIT} a minute, then 429 with Retry-After in whole seconds`, async () => {
    const { key } = await createMerchantWithKey(app);
    const codes = await burst(app, LIMIT, { api_key: key });
    expect(codes.every((c) => c === 200)).toBe(true);
    const res = await verify(app, { api_key: key });
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    const retryAfter = Number(res.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(res.json()).toMatchObject({ code: 'rate_limited' });
    expect(res.json().error).toMatch(/Rate limit/);
  });

  it('counts per key: another key from the same address is not throttled', async () => {
    const a = await createMerchantWithKey(app);
    const b = await createMerchantWithKey(app);
    await burst(app, LIMIT, { api_key: a.key });
    expect((await verify(app, { api_key: a.key })).statusCode).toBe(429);
    expect((await verify(app, { api_key: b.key })).statusCode).toBe(200);
  });

  it('counts the Bearer header and the body key as the same key', async () => {
    const { key } = await createMerchantWithKey(app);
    await burst(app, LIMIT / 2, { api_key: key });
    await burst(app, LIMIT / 2, {}, { authorization: `Bearer ${key}` });
    expect((await verify(app, {}, { authorization: `Bearer ${key}` })).statusCode).toBe(429);
  });

  it('counts invalid keys too: one key guessed again and again is throttled before any database lookup, with the refused-key guard off', async () => {
    const codes = await burst(app, LIMIT + 1, { api_key: 'pk_live_guess' });
    expect(codes.slice(0, LIMIT).every((c) => c === 401)).toBe(true);
    expect(codes[LIMIT]).toBe(429);
  });

  it('the window resets after a minute', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { key } = await createMerchantWithKey(app);
    await burst(app, LIMIT, { api_key: key });
    expect((await verify(app, { api_key: key })).statusCode).toBe(429);
    vi.setSystemTime(Date.now() + 60_001);
    expect((await verify(app, { api_key: key })).statusCode).toBe(200);
  });

  it('ignores X-Forwarded-For from an untrusted peer: spoofing it does not buy more calls', async () => {
    const { key } = await createMerchantWithKey(app);
    for (let i = 0; i < LIMIT; i++) await verify(app, { api_key: key }, { 'x-forwarded-for': `198.51.100.${i}` });
    expect((await verify(app, { api_key: key }, { 'x-forwarded-for': '203.0.113.9' })).statusCode).toBe(429);
  });
});

describe('client address behind a trusted proxy', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await buildTestApp({ REDIS_URL: undefined, TRUST_PROXY: '127.0.0.1' });
  });
  afterAll(() => closeTestApp(app));

  it('counts per shopper address taken from X-Forwarded-For', async () => {
    const { key } = await createMerchantWithKey(app);
    await burst(app, LIMIT, { api_key: key }, { 'x-forwarded-for': '198.51.100.7' });
    expect((await verify(app, { api_key: key }, { 'x-forwarded-for': '198.51.100.7' })).statusCode).toBe(429);
    expect((await verify(app, { api_key: key }, { 'x-forwarded-for': '198.51.100.8' })).statusCode).toBe(200);
  });
});

describe('limits are independent per operation', () => {
  it('exhausting one operation leaves another one open for the same key and address', async () => {
    const app = Fastify();
    app.decorate('config', testConfig({ REDIS_URL: undefined }));
    await app.register(errorsPlugin);
    await app.register(redisPlugin);
    await app.register(rateLimitPlugin);
    app.post('/verify', { config: { rateLimit: widgetRateLimit('verify') } }, async () => ({ ok: true }));
    app.post('/lookup', { config: { rateLimit: widgetRateLimit('lookup') } }, async () => ({ ok: true }));
    const call = (url: string) => app.inject({ method: 'POST', url, payload: { api_key: 'pk_live_same' } });
    for (let i = 0; i < WIDGET_RATE_LIMITS.verify; i++) await call('/verify');
    expect((await call('/verify')).statusCode).toBe(429);
    const lookup = await call('/lookup');
    expect(lookup.statusCode).toBe(200);
    expect(lookup.headers['x-ratelimit-limit']).toBe(String(WIDGET_RATE_LIMITS.lookup));
    await app.close();
  });
});

describe('Redis unreachable', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await buildTestApp({ REDIS_URL: 'redis://127.0.0.1:1' });
  });
  afterAll(() => closeTestApp(app));

  it('keeps answering and falls back to counting per instance', async () => {
    const { key } = await createMerchantWithKey(app);
    const codes = await burst(app, LIMIT, { api_key: key });
    expect(codes.every((c) => c === 200)).toBe(true);
    expect((await verify(app, { api_key: key })).statusCode).toBe(429);
  });
});

describe.runIf(TEST_REDIS_URL)('two instances sharing Redis', () => {
  it(`allow ${LIMIT} calls in all for one key and address, not ${LIMIT} each: above it only within the documented bound, and none once both have reconciled`, async () => {
    const shared = await createTestDatabase();
    const keepOpen = { ...shared.database, close: async () => {} };
    const config = testConfig({ REDIS_URL: TEST_REDIS_URL });
    const a = await buildApp({ config, database: keepOpen, logger: false });
    const b = await buildApp({ config, database: keepOpen, logger: false });
    await Promise.all([a.ready(), b.ready()]);
    const { key } = await createMerchantWithKey(Object.assign(a, { dropDatabase: async () => {} }));
    const sends: { instance: number; at: number }[] = [];
    let ok = 0;
    const times: number[] = [];
    for (let i = 0; i < LIMIT * 2; i++) {
      const at = performance.now();
      sends.push({ instance: i % 2, at });
      const res = await (i % 2 ? b : a).inject({
        method: 'POST',
        url: '/api/widget/verify',
        payload: { api_key: key },
      });
      times.push(performance.now() - at);
      if (res.statusCode === 200) ok++;
      else expect(res.statusCode).toBe(429);
    }
    // never fewer than the limit; more only by what the other instance admitted before it heard
    expect(ok).toBeGreaterThanOrEqual(LIMIT);
    // (an instance may answer from a stale total for one interval plus the time a call takes: its 90th percentile, twice)
    times.sort((x, y) => x - y);
    const p90 = times[Math.floor(times.length * 0.9)] as number;
    expect(ok - LIMIT).toBeLessThanOrEqual(overAdmissionBound(sends, RECONCILE_MS + 2 * p90));
    expect(ok).toBeLessThan(LIMIT * 2);
    // once both have reconciled, both refuse
    await poll('both instances reconciled with Redis', async () => {
      const codes = await Promise.all(
        [a, b].map(
          async (app) =>
            (await app.inject({ method: 'POST', url: '/api/widget/verify', payload: { api_key: key } })).statusCode,
        ),
      );
      return codes.every((c) => c === 429);
    });
    await a.close();
    await b.close();
    await shared.database.close();
    await shared.drop();
  });
});
