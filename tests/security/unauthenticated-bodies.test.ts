import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOOKUP_MAX_BYTES, SCORE_MAX_BYTES, VERIFY_MAX_BYTES } from '../../contracts/widget.ts';
import { MAX_REQUEST_BYTES } from '../../events/validate.ts';
import { jsonBodyWork, jsonLimitExceeded, UNAUTHENTICATED_JSON_LIMITS } from '../../http/json-body.ts';
import { storableTextWork } from '../../http/storable-text.ts';
import { CONSOLE_FORM_LIMIT } from '../../routes/console/index.ts';
import { PLATFORM_NOTICE_MAX_BYTES } from '../../routes/platforms/shared.ts';
import { adminHeaders, buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from '../helper.ts';

/**
 * Issue 44, finding 1: a route whose sender is known only from its body (the widget operations'
 * key) or not at all (the console's sign-in, the unsigned platform posts) parses and walks that
 * body first. The work each step does is counted (the pre-parse pass: characters, values, keys,
 * object layouts, short strings; the text guard: values) and turned into time with the rates
 * bench/attack-bodies.ts measured (docs/benchmarks.md), CPU of one core: the largest body any such
 * route accepts must cost at most 20 ms of the main thread.
 */
const BUDGET_MS = 20;
/** ns of the main thread per unit, the worst kind of each (npm run bench -- attack-bodies) */
const NS = { byte: 8.1, value: 35, layout: 1_500, shortString: 630 };

const MiB = 1024 * 1024;
const JUNK_KEY = `pk_live_${'x'.repeat(28)}`;

type Work = { values: number; keys: number; layouts: number; shortStrings: number; guarded: number };

function resetWork() {
  jsonBodyWork.chars = 0;
  jsonBodyWork.values = 0;
  jsonBodyWork.keys = 0;
  jsonBodyWork.layouts = 0;
  jsonBodyWork.shortStrings = 0;
  storableTextWork.values = 0;
}
const work = (): Work => ({
  values: jsonBodyWork.values,
  keys: jsonBodyWork.keys,
  layouts: jsonBodyWork.layouts,
  shortStrings: jsonBodyWork.shortStrings,
  guarded: storableTextWork.values,
});
/** the main thread's time for a body of `bytes` and this work, at the measured rates */
const costMs = (bytes: number, w: Work) =>
  (bytes * NS.byte + (w.values + w.guarded) * NS.value + w.layouts * NS.layout + w.shortStrings * NS.shortString) / 1e6;

/** `head` + items joined by commas, as many as fit in `bytes` (UTF-8), + `tail` */
function filled(bytes: number, head: string, tail: string, item: (i: number) => string, max = Infinity): string {
  const parts: string[] = [];
  let size = Buffer.byteLength(head) + Buffer.byteLength(tail);
  for (let i = 0; i < max; i++) {
    const it = item(i);
    const add = Buffer.byteLength(it) + (i > 0 ? 1 : 0);
    if (size + add > bytes) break;
    parts.push(it);
    size += add;
  }
  return `${head}${parts.join(',')}${tail}`;
}

let salt = 0;
/**
 * The worst bodies of each kind for a route taking `limit` bytes, every name new: many tiny values,
 * many keys, one long string, nesting one level too deep, and every limit of http/json-body.ts at
 * once (new layouts, new short strings and values just under their caps, the rest a string of emoji).
 */
function worstBodies(limit: number, head: string, tail = ']}') {
  const s = `${(salt++).toString(36)}_`;
  return {
    'tiny values': filled(limit, head, tail, () => '0'),
    'new keys': filled(limit, head, tail, (i) => `{"${s}${i}":0}`),
    'a long string': `${head}"${'😀'.repeat((limit - head.length - tail.length - 8) / 4)}"${tail}`,
    'nesting 33 deep': `${head}${'['.repeat(33)}${']'.repeat(33)}${tail}`,
    'every limit at once': everyLimit(limit, head, tail, s),
  };
}

function everyLimit(limit: number, head: string, tail: string, s: string): string {
  const L = UNAUTHENTICATED_JSON_LIMITS;
  const layouts = L.layouts - 50;
  const short = L.shortStrings - 50;
  const item = (i: number) =>
    i < layouts ? `{"${s}${i}":0}` : i < layouts + short ? `"${s}${(i - layouts).toString(36)}"` : '0';
  // each layout here is an object and a number: two values
  const body = filled(limit, head, tail, item, L.values - layouts - 50);
  const room = limit - Buffer.byteLength(body) - 4;
  return room < 4 ? body : `${body.slice(0, -tail.length)},"${'😀'.repeat(room / 4)}"${tail}`;
}

let app: TestApp;
let key: string;
beforeAll(async () => {
  app = await buildTestApp({
    REDIS_URL: undefined,
    ADDRESS_RATE_LIMIT: '0',
    // the unsigned platform posts parse JSON only once their app is on
    WOOCOMMERCE_APP: 'true',
    ZID_CLIENT_ID: '1',
    ZID_CLIENT_SECRET: 'zid-client-secret-0123456789',
  });
  key = (await createMerchantWithKey(app, { origins: ['https://shop.example'] })).key;
});
afterAll(() => closeTestApp(app));

/** each route with its byte limit (tests/security/body-limits.test.ts holds those) */
const ROUTES: [string, number, string][] = [
  ['/api/widget/score', SCORE_MAX_BYTES, `{"api_key":"${JUNK_KEY}","quiz":{"families":["oud"]},"inline_catalog":[`],
  ['/api/widget/verify', VERIFY_MAX_BYTES, `{"api_key":"${JUNK_KEY}","x":[`],
  ['/api/widget/lookup', LOOKUP_MAX_BYTES, `{"api_key":"${JUNK_KEY}","ids":[`],
  ['/api/widget/event', MAX_REQUEST_BYTES, `{"api_key":"${JUNK_KEY}","events":[`],
  ['/console/sign-in', CONSOLE_FORM_LIMIT, '{"email":"a@b.example","password":['],
  ['/api/platforms/woocommerce/keys', PLATFORM_NOTICE_MAX_BYTES, '{"user_id":['],
  ['/api/platforms/woocommerce/connections/claim', PLATFORM_NOTICE_MAX_BYTES, '{"token":['],
  ['/api/platforms/zid/app-events', PLATFORM_NOTICE_MAX_BYTES, '{"event_name":['],
];

describe('the pre-parse pass counts what JSON.parse will build', () => {
  const count = (text: string) => {
    resetWork();
    const over = jsonLimitExceeded(text, UNAUTHENTICATED_JSON_LIMITS);
    return { over, ...work() };
  };

  it('values, keys, layouts and short strings, outside strings only', () => {
    expect(count('{"a":1,"b":[true,false,null],"c":{"d":"e\\"f"}}')).toMatchObject({
      over: null,
      values: 8,
      keys: 4,
      // {a, a→b, a→b→c} and {d}
      layouts: 4,
      shortStrings: 1,
    });
    expect(count(' [ -1.5e3 , "x" , { "k" : "v" } , "[{\\\\" ] ')).toMatchObject({
      values: 6,
      keys: 1,
      shortStrings: 3,
    });
    // the same keys in the same order are one layout, however many objects; another order is another
    expect(count('[{"a":1,"b":2},{"a":3,"b":4},{"b":5,"a":6}]').layouts).toBe(4);
    // a string of 11 characters is not interned; escapes count as the characters they make
    expect(count('["abcdefghijk","\\u0041\\u0042"]').shortStrings).toBe(1);
  });

  it('refuses one past each limit, and stops there', () => {
    const L = UNAUTHENTICATED_JSON_LIMITS;
    // an array and 59,999 numbers: 60,000 values
    expect(count(`[${'0,'.repeat(59_998)}0]`).over).toBeNull();
    const values = count(`[${'0,'.repeat(500_000)}0]`);
    expect(values.over).toBe('values');
    expect(values.values).toBe(60_001);
    expect(jsonBodyWork.chars).toBeLessThan(130_000);
    const keys = count(`[${Array.from({ length: 5_000 }, () => `{${'"a":0,'.repeat(5)}"a":0}`).join(',')}]`);
    expect(keys.over).toBe('keys');
    expect(keys.keys).toBe(25_001);
    expect(count(`{${Array.from({ length: 1_001 }, (_, i) => `"a":${i}`).join(',')}}`).over).toBe('keysPerObject');
    const layouts = count(`[${Array.from({ length: 10_000 }, (_, i) => `{"k${i}":0}`).join(',')}]`);
    expect(layouts.over).toBe('layouts');
    expect(layouts.layouts).toBe(2_001);
    const short = count(`[${Array.from({ length: 10_000 }, (_, i) => `"s${i}"`).join(',')}]`);
    expect(short.over).toBe('shortStrings');
    expect(short.shortStrings).toBe(3_001);
    expect(count(`${'['.repeat(33)}${']'.repeat(33)}`).over).toBe('depth');
    expect(L).toEqual({
      depth: 32,
      values: 60_000,
      keys: 25_000,
      keysPerObject: 1_000,
      layouts: 2_000,
      shortStrings: 3_000,
    });
  });
});

describe('the largest body of each unauthenticated route costs the main thread at most 20 ms', () => {
  for (const [url, limit, head] of ROUTES) {
    it(`${url} (${limit / 1024} KiB)`, async () => {
      for (const [kind, payload] of Object.entries(worstBodies(limit, head))) {
        const bytes = Buffer.byteLength(payload);
        expect(bytes, kind).toBeLessThanOrEqual(limit);
        resetWork();
        const res = await app.inject({
          method: 'POST',
          url,
          payload,
          headers: { 'content-type': 'application/json', origin: 'https://shop.example' },
        });
        const what = `${url} ${kind}: ${res.statusCode} ${res.body.slice(0, 200)}`;
        expect(res.statusCode, what).toBeGreaterThanOrEqual(400);
        expect(res.statusCode, what).toBeLessThan(500);
        expect(res.json(), what).toEqual(
          expect.objectContaining({ error: expect.any(String), code: expect.any(String) }),
        );
        const w = work();
        // nothing is looked at past a limit: the pass stops at the first value, key, layout or string over
        expect(w.values, what).toBeLessThanOrEqual(60_001);
        expect(w.keys, what).toBeLessThanOrEqual(25_001);
        expect(w.layouts, what).toBeLessThanOrEqual(2_001);
        expect(w.shortStrings, what).toBeLessThanOrEqual(3_001);
        // the guard walks only what the pass let through (and the path and query)
        expect(w.guarded, what).toBeLessThanOrEqual(w.values + 10);
        expect(costMs(bytes, w), what).toBeLessThanOrEqual(BUDGET_MS);
      }
    });
  }

  it('a large body is parsed, and walked by the guard, in turns of their own: other work runs between the steps', async () => {
    const payload = worstBodies(MiB, ROUTES[0]?.[2] as string)['every limit at once'];
    resetWork();
    // what another request would see at each turn of the event loop while this body is worked
    const turns = new Set<string>();
    let sampling = true;
    const sample = () => {
      turns.add(`${jsonBodyWork.values > 0 ? 'counted' : '-'} ${storableTextWork.values > 0 ? 'guarded' : '-'}`);
      if (sampling) setImmediate(sample);
    };
    setImmediate(sample);
    const res = await app.inject({
      method: 'POST',
      url: '/api/widget/score',
      payload,
      headers: { 'content-type': 'application/json' },
    });
    sampling = false;
    expect(res.statusCode).toBe(400);
    expect([...turns]).toContain('counted -');
  });

  it('a body past a limit is refused with 400 too_many_values before it is parsed', async () => {
    resetWork();
    const res = await app.inject({
      method: 'POST',
      url: '/api/widget/score',
      payload: `{"api_key":"${JUNK_KEY}","inline_catalog":[${'0,'.repeat(100_000)}0]}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'The body holds more than 60,000 values', code: 'too_many_values' });
    expect(storableTextWork.values).toBe(0);
    // 2,001 sequences of keys in 16 KiB: two objects of 1,000 keys in two orders, and one more
    const names = Array.from({ length: 1_000 }, (_, i) => i.toString(36).padStart(2, '0'));
    const object = (keys: string[]) => `{${keys.map((k) => `"${k}":0`).join(',')}}`;
    const payload = `[${object(names)},${object([...names].reverse())},{"z":0}]`;
    expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(PLATFORM_NOTICE_MAX_BYTES);
    const keys = await app.inject({
      method: 'POST',
      url: '/api/platforms/zid/app-events',
      payload,
      headers: { 'content-type': 'application/json' },
    });
    expect(keys.statusCode).toBe(400);
    expect(keys.json()).toEqual({
      error: 'The body holds more than 2,000 different sequences of keys in its objects',
      code: 'too_many_values',
    });
  });
});

/** A score with 200 products, every field at its limit: the largest body an honest shop sends. */
function honestScore(apiKey: string) {
  const accords = ['oud', 'amber', 'rose', 'saffron', 'musk', 'vanilla', 'woody', 'citrus', 'leather', 'smoky'];
  const row = (i: number) => ({
    merchant_product_id: `sku-${i}`,
    name: `Khamrah Eau de Parfum 100ml ${i}`,
    house: 'Lattafa',
    price: 250,
    currency: 'SAR',
    image_url: `https://shop.example/i/${i}.jpg`,
    product_url: `https://shop.example/p/${i}`,
    accords: Array.from({ length: 30 }, (_, j) => accords[j % 10]),
    notes: {
      top: Array.from({ length: 30 }, (_, j) => `bergamot ${j}`),
      heart: Array.from({ length: 30 }, (_, j) => `rose ${j}`),
      base: Array.from({ length: 30 }, (_, j) => `oud ${j}`),
    },
    description: 'عطر شرقي دافئ بالعود والعنبر والزعفران. '.repeat(20),
    available: true,
    sale_price: 199,
    sizes: Array.from({ length: 20 }, (_, j) => ({
      label: `${(j + 1) * 5} ml`,
      ml: (j + 1) * 5,
      price: 100 + j,
      sale_price: 90 + j,
      available: true,
    })),
  });
  return {
    api_key: apiKey,
    quiz: {
      families: ['oud', 'amber'],
      accord_ratings: { oud: 'love', amber: 'like', citrus: 'avoid' },
      season: 'winter',
      occasion: 'evening',
    },
    catalog_mode: 'inline',
    inline_catalog: Array.from({ length: 200 }, (_, i) => row(i)),
    limit: 24,
    locale: 'en',
  };
}

describe('honest bodies are never refused', () => {
  it('the largest score an honest shop sends is answered, within the budget', async () => {
    const payload = JSON.stringify(honestScore(key));
    resetWork();
    const res = await app.inject({
      method: 'POST',
      url: '/api/widget/score',
      payload,
      headers: { 'content-type': 'application/json', origin: 'https://shop.example' },
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const w = work();
    expect(w).toMatchObject({ values: 51_416, keys: 23_213, layouts: 34, shortStrings: 309 });
    expect(costMs(Buffer.byteLength(payload), w)).toBeLessThanOrEqual(BUDGET_MS);
  });

  it("the operator's sync is proven before its body is read: its own limits, not these", async () => {
    // 5,000 products with ids of their own: 5,000 short strings and 70,000 values, refused on a widget route
    const products = Array.from({ length: 5_000 }, (_, i) => ({
      merchant_product_id: `p${i}`,
      name: `Perfume ${i}`,
      house: 'House',
      accords: ['oud', 'rose', 'amber', 'musk', 'saffron', 'vanilla', 'woody', 'smoky', 'leather', 'citrus'],
    }));
    const payload = JSON.stringify({ products });
    expect(jsonLimitExceeded(payload, UNAUTHENTICATED_JSON_LIMITS)).not.toBeNull();
    const res = await app.inject({
      method: 'PUT',
      url: '/api/admin/merchants/00000000-0000-4000-8000-000000000000/products',
      payload,
      headers: { ...adminHeaders, 'content-type': 'application/json' },
    });
    expect(res.json()).toMatchObject({ code: 'merchant_not_found' });
    // without the admin token the body is never read
    const stranger = await app.inject({
      method: 'PUT',
      url: '/api/admin/merchants/00000000-0000-4000-8000-000000000000/products',
      payload,
      headers: { 'content-type': 'application/json' },
    });
    expect(stranger.json()).toMatchObject({ code: 'invalid_admin_token' });
  });
});
