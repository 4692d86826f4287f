/**
 * Hostile input against every widget operation and the admin API: random and
 * adversarial JSON (wrong types, huge strings and arrays, deep nesting,
 * unicode edge cases, __proto__/constructor keys, SQL and HTML payloads), raw
 * bodies that are not JSON, odd content types and path parameters.
 *
 * Whatever arrives: never a 5xx, always a JSON `{error, code}` for a refusal,
 * the process keeps answering, stored data is untouched, memory stays bounded.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from './helper.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);

let app: TestApp;
let key: string;
let merchantId: string;
let keyId: string;
let address = 0;

beforeAll(async () => {
  app = await buildTestApp();
  const m = await createMerchantWithKey(app, { mode: 'test', origins: ['https://shop.example'] });
  key = m.key;
  keyId = m.keyId;
  merchantId = m.merchant.id;
  const sync = await app.inject({
    method: 'PUT',
    url: `/api/admin/merchants/${merchantId}/products`,
    headers: adminHeaders,
    payload: { products: [{ merchant_product_id: 'p1', name: 'Oud Wood', house: 'Tom Ford', price: 950 }] },
  });
  expect(sync.statusCode).toBe(200);
});
afterAll(() => closeTestApp(app));

// ---------------------------------------------------------------- arbitraries

const nasty = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  "'; DROP TABLE merchants; --",
  '" OR 1=1 --',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '\u0000',
  '\uD800',
  '\uDFFF\uD800',
  '\u202Eevil',
  '\uFEFF',
  'عود'.repeat(50),
  '👩‍👩‍👧‍👦'.repeat(20),
  '%00%2e%2e%2f',
  '../../etc/passwd',
  `$${'{'}jndi:ldap://x}`,
  '{{7*7}}',
  'NaN',
  '1e309',
  '-0',
  ' ',
  '',
);
const hugeString = fc.integer({ min: 10_000, max: 200_000 }).map((n) => 'x'.repeat(n));
const str = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.string({ unit: 'binary', maxLength: 50 }),
  nasty,
);
const scalar = fc.oneof(
  str,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, -1, 0, 1e21, 2 ** 53 + 1),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.oneof(str, nasty), tie('value'), { maxKeys: 5 }),
  ),
}));
/** JSON nested this deep, written as text (JSON.parse handles it; a recursive walker might not) */
const deep = fc.integer({ min: 100, max: 5000 }).map((d) => `${'{"a":['.repeat(d)}1${']}'.repeat(d)}`);

const validQuiz = { families: ['oud'], accord_ratings: { oud: 'love' }, season: 'winter', occasion: 'evening' };
const validBodies: Record<string, Record<string, unknown>> = {
  score: { quiz: validQuiz, limit: 3, locale: 'en' },
  event: { type: 'widget_opened' },
  verify: {},
  lookup: { query: 'oud', limit: 3 },
};

/** A valid body with one field (at any depth we know of) replaced by something hostile. */
const mutated = (op: string) =>
  fc
    .record({
      path: fc.constantFrom(
        'quiz',
        'quiz.families',
        'quiz.accord_ratings',
        'quiz.season',
        'quiz.occasion',
        'limit',
        'locale',
        'session_id',
        'catalog_mode',
        'inline_catalog',
        'events',
        'type',
        'query',
        'ids',
        'house',
        'api_key',
        '__proto__',
        'constructor',
      ),
      replacement: fc.oneof(value, hugeString, fc.array(value, { minLength: 100, maxLength: 2000 })),
    })
    .map(({ path, replacement }) => {
      const body = JSON.parse(JSON.stringify({ ...validBodies[op], api_key: key })) as Record<string, unknown>;
      const parts = path.split('.');
      let target: Record<string, unknown> = body;
      for (const p of parts.slice(0, -1)) {
        if (typeof target[p] !== 'object' || target[p] === null) target[p] = {};
        target = target[p] as Record<string, unknown>;
      }
      // defineProperty, so "__proto__" becomes an own key as JSON.parse would make it
      Object.defineProperty(target, parts[parts.length - 1] as string, {
        value: replacement,
        enumerable: true,
        configurable: true,
        writable: true,
      });
      return JSON.stringify(body);
    });

const anyPayload = (op: string) =>
  fc.oneof(
    mutated(op),
    value.map((v) => JSON.stringify(v)),
    deep,
    str.map((s) => `{"api_key":"${key}","quiz":${s}`), // broken JSON
    fc.constantFrom('', 'null', '[]', '"text"', '{', '{"api_key":', '\u0000{}', '{"a":1}{"b":2}'),
  );
const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'text/plain;charset=UTF-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/xml',
  'APPLICATION/JSON',
  '',
);

// ---------------------------------------------------------------- checks

interface Answer {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}

function assertSafe(res: Answer, context: string) {
  const where = `${context} → ${res.statusCode} ${res.body.slice(0, 200)}`;
  expect(res.statusCode, where).toBeLessThan(500);
  if (res.statusCode >= 400) {
    expect(String(res.headers['content-type']), where).toMatch(/^application\/json/);
    const parsed = JSON.parse(res.body) as { error?: unknown; code?: unknown };
    expect(typeof parsed.error, where).toBe('string');
    expect(typeof parsed.code, where).toBe('string');
    // nothing internal leaks
    expect(res.body, where).not.toMatch(/\bat [\w.<>]+ \(|node_modules|\/work\/|postgres|drizzle/i);
  }
}

function send(method: string, url: string, payload: string, type: string, headers: Record<string, string> = {}) {
  return app.inject({
    method: method as 'POST',
    url,
    payload,
    // a fresh client address per request: the per-address limits must not hide the paths under them
    remoteAddress: `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address++ & 255}`,
    headers: { ...(type ? { 'content-type': type } : {}), ...headers },
  });
}

describe('hostile input: widget operations', () => {
  for (const op of ['score', 'event', 'verify', 'lookup']) {
    it(`${op}: never a 5xx, always a JSON error`, async () => {
      await fc.assert(
        fc.asyncProperty(anyPayload(op), contentType, fc.boolean(), async (payload, type, withOrigin) => {
          const res = await send(
            'POST',
            `/api/widget/${op}`,
            payload,
            type,
            withOrigin ? { origin: 'https://shop.example' } : {},
          );
          assertSafe(res, `${op} ${type} ${payload.slice(0, 120)}`);
        }),
        { numRuns: RUNS },
      );
    }, 120_000);
  }

  it('odd headers: version, authorization, origin', async () => {
    await fc.assert(
      fc.asyncProperty(str, str, str, async (version, auth, origin) => {
        const headers: Record<string, string> = {};
        // header values cannot carry control characters; the rest can arrive
        const clean = (s: string) => [...s].filter((c) => c >= ' ' && c <= '~').join('');
        headers['x-widget-version'] = clean(version);
        headers.authorization = `Bearer ${clean(auth)}`;
        headers.origin = clean(origin);
        const res = await send('POST', '/api/widget/verify', '{}', 'application/json', headers);
        assertSafe(res, `headers ${JSON.stringify(headers)}`);
      }),
      { numRuns: RUNS },
    );
  }, 120_000);
});

describe('hostile input: admin API', () => {
  /** percent-encoded as a browser would (a lone surrogate cannot be encoded: it becomes U+FFFD first) */
  const enc = (s: string) => encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, '\uFFFD'));
  const pathParam = fc.oneof(
    fc.uuid(),
    str.map(enc),
    nasty.map(enc),
    fc.constantFrom('%00', 'a%00b', '%ED%A0%80'),
    fc.constantFrom('..%2F..%2Fetc', '%E0%A4%A', '%', 'a'.repeat(400)),
  );
  const routes: [string, (id: string, sub: string) => string][] = [
    ['POST', () => '/api/admin/merchants'],
    ['GET', (id) => `/api/admin/merchants/${id}`],
    ['POST', (id) => `/api/admin/merchants/${id}/keys`],
    ['GET', (id) => `/api/admin/merchants/${id}/keys`],
    ['POST', (id) => `/api/admin/keys/${id}/revoke`],
    ['PUT', (id) => `/api/admin/merchants/${id}/products`],
    ['GET', (id, sub) => `/api/admin/merchants/${id}/products?status=${sub}&limit=${sub}&offset=${sub}`],
    ['POST', (id) => `/api/admin/merchants/${id}/products/rematch`],
    ['PUT', (id, sub) => `/api/admin/merchants/${id}/products/${sub}/match`],
    ['DELETE', (id, sub) => `/api/admin/merchants/${id}/products/${sub}/match`],
    ['GET', (id, sub) => `/api/admin/merchants/${id}/analytics?from=${sub}&to=${sub}&traffic=${sub}`],
    ['GET', (id, sub) => `/api/admin/merchants/${id}/leads?format=${sub}`],
    ['DELETE', (id, sub) => `/api/admin/merchants/${id}/leads?email=${sub}`],
  ];

  it('every admin route: never a 5xx, always a JSON error', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.oneof(pathParam, fc.constant(merchantId)),
        pathParam,
        fc.oneof(
          value.map((v) => JSON.stringify(v)),
          mutated('score'),
          deep,
          fc.constant('{'),
        ),
        async ([method, url], id, sub, payload) => {
          const target = url(id, sub);
          const res = await app.inject({
            method: method as 'POST',
            url: target,
            headers: { ...adminHeaders, 'content-type': 'application/json' },
            ...(method === 'GET' || method === 'DELETE' ? {} : { payload }),
          });
          assertSafe(res, `${method} ${target} ${payload.slice(0, 120)}`);
        },
      ),
      { numRuns: RUNS * 2 },
    );
  }, 180_000);

  it('without the admin token, every route is a JSON 401', async () => {
    // each from its own address: wrong tokens are throttled per address (tests/security/throttle.test.ts)
    for (const [i, [method, url]] of routes.entries()) {
      const res = await app.inject({
        method: method as 'POST',
        url: url(merchantId, 'x'),
        headers: { authorization: 'Bearer nope' },
        remoteAddress: `198.51.100.${i % 250}`,
      });
      expect(res.statusCode, `${method} ${url(merchantId, 'x')}`).toBe(401);
      assertSafe(res, url(merchantId, 'x'));
    }
  });
});

describe('after the storm', () => {
  it('bodies over the limits are refused with 413 JSON', async () => {
    for (const [op, bytes] of [
      ['score', 1024 * 1024 + 1],
      ['event', 64 * 1024 + 1],
      ['verify', 1024 * 1024 + 1],
    ] as const) {
      const res = await send(
        'POST',
        `/api/widget/${op}`,
        `{"api_key":"${key}","pad":"${'x'.repeat(bytes)}"}`,
        'application/json',
      );
      expect(res.statusCode, op).toBe(413);
      assertSafe(res, op);
    }
  });

  it('stored data is intact, the key still works, and memory stays bounded under more of the same', async () => {
    const products = await app.inject({
      method: 'GET',
      url: `/api/admin/merchants/${merchantId}/products`,
      headers: adminHeaders,
    });
    expect(products.json()).toMatchObject({ total: 1, products: [{ merchant_product_id: 'p1', status: 'matched' }] });
    const keys = await app.inject({
      method: 'GET',
      url: `/api/admin/merchants/${merchantId}/keys`,
      headers: adminHeaders,
    });
    expect(
      (keys.json() as { keys: { id: string; revoked_at: string | null }[] }).keys.find((k) => k.id === keyId)
        ?.revoked_at ?? null,
    ).toBeNull();

    const score = () =>
      send('POST', '/api/widget/score', JSON.stringify({ api_key: key, ...validBodies.score }), 'application/json');
    expect((await score()).statusCode).toBe(200);

    // the same hostile mix again, several times over: the heap must not grow with it
    const sample = fc.sample(anyPayload('score'), { numRuns: 400, seed: 42 });
    const round = async () => {
      for (const p of sample) await send('POST', '/api/widget/score', p, 'application/json');
    };
    // heap after a full collection, where the worker allows one (vitest.config.ts: --expose-gc)
    const heap = () => {
      (globalThis as { gc?: () => void }).gc?.();
      return process.memoryUsage().heapUsed;
    };
    await round();
    const before = heap();
    for (let i = 0; i < 3; i++) await round();
    const grown = heap() - before;
    expect(grown, `heap grew ${(grown / 1e6).toFixed(1)} MB over 1,200 hostile requests`).toBeLessThan(
      64 * 1024 * 1024,
    );
    expect((await score()).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  }, 180_000);
});
