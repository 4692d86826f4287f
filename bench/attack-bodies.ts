/**
 * What the largest body an unauthenticated route accepts costs the main
 * thread: npm run bench -- attack-bodies
 * Each body is the worst of its kind a client can send without any key, at
 * the limits of http/json-body.ts (60,000 values, 25,000 keys, 1,000 keys in
 * one object, 32 levels) or at the route's byte limit, every body new text
 * (new key names: V8 builds an object's shape once per new key, and caches it
 * for the next body). Measured in process: the pre-parse pass, JSON.parse and
 * the text guard each alone (what a value, a key and a character cost), then
 * the whole request through fastify.inject with a junk key (its answer is a
 * 401 or 400, after every step a stranger's body meets), median of 15 after 3
 * to warm up. Goal (issue 44): the largest body any unauthenticated route
 * accepts costs the main thread at most 20 ms.
 */
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { LOOKUP_MAX_BYTES, VERIFY_MAX_BYTES } from '../contracts/widget.ts';
import { jsonBodyWork, jsonLimitExceeded, UNAUTHENTICATED_JSON_LIMITS } from '../http/json-body.ts';
import { findUnstorableText } from '../http/storable-text.ts';
import { CONSOLE_FORM_LIMIT } from '../routes/console/index.ts';
import { PLATFORM_NOTICE_MAX_BYTES, PLATFORM_WEBHOOK_MAX_BYTES } from '../routes/platforms/shared.ts';
import { median } from './stats.ts';

const MiB = 1024 * 1024;
const RUNS = Number(process.env.BENCH_BODY_RUNS) || 15;
const WARM = 3;

let salt = 0;
/** a name no earlier body used */
const fresh = () => (salt++).toString(36);

const JUNK_KEY = `pk_live_${'x'.repeat(28)}`;

/** A JSON array of `items`, spread over at most 200 arrays (the most rows an inline catalog takes). */
function rows(items: string[]): string {
  const out: string[] = [];
  const perRow = Math.max(1, Math.ceil(items.length / 200));
  for (let r = 0; r < items.length; r += perRow) out.push(`[${items.slice(r, r + perRow).join(',')}]`);
  return out.join(',');
}

interface Worst {
  /** objects of one new key each: a new layout each (http/json-body.ts) */
  layouts?: number;
  /** keys per object, for the layouts (20: a key each leads to a new layout) */
  keysPerObject?: number;
  /** new strings of at most 10 characters */
  shortStrings?: number;
  /** numbers, up to this many values in all */
  values?: number;
  /** objects or arrays: empty objects, or arrays this deep */
  containers?: { count: number; deep?: number };
  /** a string filling the body to this many bytes, of these characters */
  pad?: { bytes: number; char: string };
}

/** The items of a worst body, every name and string new. */
function worstItems(w: Worst): string[] {
  const s = fresh();
  const items: string[] = [];
  const per = w.keysPerObject ?? 1;
  let k = 0;
  for (let o = 0; o < Math.floor((w.layouts ?? 0) / per); o++) {
    const members: string[] = [];
    for (let j = 0; j < per; j++) members.push(`"${s}k${(k++).toString(36)}":0`);
    items.push(`{${members.join(',')}}`);
  }
  for (let i = 0; i < (w.shortStrings ?? 0); i++) items.push(`"${s}.${i.toString(36)}"`.slice(0, 12));
  if (w.containers) {
    const one = w.containers.deep ? `${'['.repeat(w.containers.deep)}${']'.repeat(w.containers.deep)}` : '{}';
    for (let i = 0; i < w.containers.count; i++) items.push(one);
  }
  let values =
    Math.floor((w.layouts ?? 0) / per) +
    (w.layouts ?? 0) +
    (w.shortStrings ?? 0) +
    (w.containers?.count ?? 0) * (w.containers?.deep ?? 1);
  for (; values < (w.values ?? 0); values++) items.push('0');
  return items;
}

/** `head` + the items + a string padding the body to `pad.bytes` (its length counted in UTF-8 bytes) + `tail`. */
function padded(head: string, items: string[], tail: string, pad?: Worst['pad']): string {
  const body = `${head}${rows(items)}${tail}`;
  if (!pad) return body;
  const room = pad.bytes - Buffer.byteLength(body) - 4;
  const unit = Buffer.byteLength(pad.char);
  const filler = `${items.length ? ',' : ''}"${pad.char.repeat(Math.max(0, Math.floor(room / unit)))}"`;
  return `${head}${rows(items)}${filler}${tail}`;
}

/** A score request carrying the items where the schema takes anything (inline rows), with a junk key. */
const score = (w: Worst) => () =>
  padded(
    `{"api_key":"${JUNK_KEY}","quiz":{"families":["oud"]},"catalog_mode":"inline","inline_catalog":[`,
    worstItems(w),
    ']}',
    w.pad,
  );
/** Any other body: the items in a field of their own. */
const other =
  (w: Worst, head = '{"x":[') =>
  () =>
    padded(head, worstItems(w), ']}', w.pad);

/** The largest honest body: a score with 200 products, every field at its limit (http/json-body.ts). */
function honestScore(): string {
  const s = fresh();
  const row = (i: number) => ({
    merchant_product_id: `${s}-${i}`,
    name: `Khamrah Eau de Parfum 100ml ${s}`,
    house: 'Lattafa',
    price: 120.5,
    currency: 'SAR',
    image_url: `https://shop.example/i/${s}/${i}.jpg`,
    product_url: `https://shop.example/p/${s}/${i}`,
    accords: ACCORDS.slice(0, 30),
    notes: { top: NOTES.slice(0, 30), heart: NOTES.slice(30, 60), base: NOTES.slice(60, 90) },
    description: `وصف ${s} `.repeat(100),
    available: true,
    sale_price: 99,
    sizes: Array.from({ length: 20 }, (_, j) => ({
      label: `${(j + 1) * 10} ml`,
      ml: (j + 1) * 10,
      price: 100 + j,
      sale_price: 90 + j,
      available: true,
    })),
  });
  return JSON.stringify({
    api_key: JUNK_KEY,
    quiz: {
      families: ['oud', 'amber'],
      accord_ratings: Object.fromEntries(ACCORDS.slice(0, 90).map((a) => [a, 'love'])),
      season: 'winter',
      occasion: 'evening',
    },
    catalog_mode: 'inline',
    inline_catalog: Array.from({ length: 200 }, (_, i) => row(i)),
  });
}
const ACCORDS = Array.from({ length: 90 }, (_, i) => `accord-${i}`);
const NOTES = Array.from({ length: 90 }, (_, i) => `note ${i}`);

const L = UNAUTHENTICATED_JSON_LIMITS;
const MAX = { bytes: MiB, char: '😀' };
/** the most the limits let through at once: new layouts and short strings to their caps, numbers to 60,000 values */
const ALL: Worst = { layouts: L.layouts - 10, shortStrings: L.shortStrings - 10, values: L.values - 300, pad: MAX };

/** The worst bodies, each a function making a new text every call (and the headers it is sent with). */
const SHAPES: Record<string, { url: string; make: () => string; headers?: Record<string, string> }> = {
  'the largest honest score (51,531 values, 23,305 keys)': { url: '/api/widget/score', make: honestScore },
  'every limit at once, padded with emoji to 1 MiB': { url: '/api/widget/score', make: score(ALL) },
  '1,990 new layouts, one key an object': { url: '/api/widget/score', make: score({ layouts: L.layouts - 10 }) },
  '1,980 new layouts, 20 keys an object': {
    url: '/api/widget/score',
    make: score({ layouts: L.layouts - 20, keysPerObject: 20 }),
  },
  '1,980 new layouts, 990 keys an object': {
    url: '/api/widget/score',
    make: score({ layouts: L.layouts - 20, keysPerObject: 990 }),
  },
  '2,990 new short strings': { url: '/api/widget/score', make: score({ shortStrings: L.shortStrings - 10 }) },
  '59,700 numbers, padded with ASCII to 1 MiB': {
    url: '/api/widget/score',
    make: score({ values: L.values - 300, pad: { bytes: MiB, char: 'a' } }),
  },
  '59,700 empty objects': { url: '/api/widget/score', make: score({ containers: { count: L.values - 300 } }) },
  'arrays 30 deep, 59,700 values': {
    url: '/api/widget/score',
    make: score({ containers: { count: Math.floor((L.values - 300) / 30), deep: 30 } }),
  },
  '1 MiB string of ASCII': { url: '/api/widget/score', make: score({ pad: { bytes: MiB, char: 'a' } }) },
  '1 MiB string of Arabic': { url: '/api/widget/score', make: score({ pad: { bytes: MiB, char: 'ع' } }) },
  '1 MiB string of emoji': { url: '/api/widget/score', make: score({ pad: MAX }) },
  '1 MiB string of \\u escapes': { url: '/api/widget/score', make: score({ pad: { bytes: MiB, char: '\\u00e9' } }) },
  'over the limits: 70,000 new keys': {
    url: '/api/widget/score',
    make: score({ layouts: 70_000 }),
  },
  'over the limits: 500,000 numbers': { url: '/api/widget/score', make: score({ values: 500_000 }) },
  'verify, 4 KiB of new layouts and short strings': {
    url: '/api/widget/verify',
    make: other({ layouts: 200, shortStrings: 100, pad: { bytes: VERIFY_MAX_BYTES, char: '😀' } }),
  },
  'lookup, 32 KiB of new layouts and short strings': {
    url: '/api/widget/lookup',
    make: other({ layouts: 1_500, shortStrings: 800, pad: { bytes: LOOKUP_MAX_BYTES, char: '😀' } }),
  },
  'event, 64 KiB of new layouts and short strings': {
    url: '/api/widget/event',
    make: other(
      { layouts: L.layouts - 20, shortStrings: 1_000, pad: { bytes: 64 * 1024, char: 'a' } },
      `{"api_key":"${JUNK_KEY}","type":"widget_loaded","data":[`,
    ),
  },
  'console sign-in, 64 KiB of new layouts and short strings': {
    url: '/console/sign-in',
    make: other({ layouts: L.layouts - 20, shortStrings: 1_000, pad: { bytes: CONSOLE_FORM_LIMIT, char: '😀' } }),
  },
  // a signature header that could be one: the body is read and its signature checked
  'Salla webhook, 256 KiB': {
    url: '/api/platforms/salla/webhook',
    make: other({ pad: { bytes: PLATFORM_WEBHOOK_MAX_BYTES, char: '😀' } }),
    headers: { 'x-salla-signature': '0'.repeat(64) },
  },
  'Shopify webhook, 1 MiB': {
    url: '/api/platforms/shopify/webhooks',
    make: other({ pad: MAX }),
    headers: { 'x-shopify-hmac-sha256': 'A'.repeat(43).concat('=') },
  },
  // refused before the body is read: a store that never installed (Zid's secret is in its URL)
  'Zid webhook, 1 MiB': { url: '/api/platforms/zid/webhooks/1', make: other({ pad: MAX }) },
  'WooCommerce webhook, 256 KiB': {
    url: '/api/platforms/woocommerce/webhooks/x',
    make: other({ pad: { bytes: PLATFORM_WEBHOOK_MAX_BYTES, char: '😀' } }),
  },
  'WooCommerce keys, 16 KiB of new layouts': {
    url: '/api/platforms/woocommerce/keys',
    make: other({ layouts: 1_000, pad: { bytes: PLATFORM_NOTICE_MAX_BYTES, char: 'a' } }),
  },
  'Zid app events, 16 KiB of new layouts': {
    url: '/api/platforms/zid/app-events',
    make: other({ layouts: 1_000, pad: { bytes: PLATFORM_NOTICE_MAX_BYTES, char: 'a' } }),
  },
};

/** The main thread's CPU time of a call, in ms (the process's: nothing else runs meanwhile). */
function cpuMs(f: () => unknown): number {
  const before = process.cpuUsage();
  f();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** The CPU time of RUNS calls of `f`, each on a new input, after WARM: the median and the smallest. */
function stage(make: () => unknown, f: (x: never) => unknown) {
  const times: number[] = [];
  for (let r = 0; r < WARM + RUNS; r++) {
    const x = make();
    const ms = cpuMs(() => f(x as never));
    if (r >= WARM) times.push(ms);
  }
  return { median: median(times), min: Math.min(...times) };
}

export async function runAttackBodiesBench(log: (s: string) => void = console.log) {
  const config = loadConfig({
    DATABASE_URL: 'memory:',
    LOG_LEVEL: 'silent',
    SEED_DEMO: 'false',
    ADMIN_TOKEN: 'bench-admin-token-0123456789abcdef',
    LEAD_ENCRYPTION_KEY: 'ab'.repeat(32),
    ADDRESS_RATE_LIMIT: '0',
    // each body's own cost is measured here: the budget of strangers' large bodies (which would
    // refuse most of these back to back, unread) is off
    LARGE_BODY_BYTES_PER_SECOND: '0',
    // the platforms on, with secrets: a webhook's signature is checked over its whole body
    SALLA_CLIENT_ID: 'bench',
    SALLA_CLIENT_SECRET: 'bench-salla-client-secret',
    SALLA_WEBHOOK_SECRET: 'bench-salla-webhook-secret',
    SHOPIFY_CLIENT_ID: 'bench',
    SHOPIFY_CLIENT_SECRET: 'bench-shopify-client-secret',
    ZID_CLIENT_ID: '1',
    ZID_CLIENT_SECRET: 'bench-zid-client-secret',
    WOOCOMMERCE_APP: 'true',
  });
  const app = await buildApp({ config });
  // the server's own work on each request: from its arrival to its answer sent (the client's making
  // of the request in fastify.inject left out)
  const started = new WeakMap<object, NodeJS.CpuUsage>();
  let serverMs = 0;
  app.addHook('onRequest', (request, _reply, done) => {
    started.set(request, process.cpuUsage());
    done();
  });
  app.addHook('onResponse', (request, _reply, done) => {
    const used = process.cpuUsage(started.get(request));
    serverMs = (used.user + used.system) / 1000;
    done();
  });
  await app.ready();
  let address = 0;
  // a new address each time: the per-address limits stay out of the way
  const remote = () => `10.${(++address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`;

  log(
    `CPU ms of the main thread, median of ${RUNS} new bodies (smallest in brackets); the whole request through fastify.inject, answered before any key is known`,
  );
  log('');
  log(
    '| body | route | bytes | values | keys | layouts | short strings | pre-parse pass | JSON.parse | text guard | whole request | answer |',
  );
  log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  const results: Record<string, unknown> = {};
  for (const [name, shape] of Object.entries(SHAPES)) {
    const sample = shape.make();
    const before = { ...jsonBodyWork };
    const refused = jsonLimitExceeded(sample, L);
    const counted = {
      values: jsonBodyWork.values - before.values,
      keys: jsonBodyWork.keys - before.keys,
      layouts: jsonBodyWork.layouts - before.layouts,
      shortStrings: jsonBodyWork.shortStrings - before.shortStrings,
    };
    // a webhook's body is bytes until its signature is checked; the others are parsed before any check
    const json = !shape.url.includes('/webhook');
    const pass = json ? stage(shape.make, (t: string) => jsonLimitExceeded(t, L)) : null;
    const parse = json && refused === null ? stage(shape.make, (t: string) => JSON.parse(t)) : null;
    const guard = parse
      ? stage(
          () => JSON.parse(shape.make()),
          (v: unknown) => findUnstorableText(v),
        )
      : null;
    const times: number[] = [];
    let status = 0;
    let code = '';
    for (let r = 0; r < WARM + RUNS; r++) {
      const payload = shape.make();
      serverMs = Number.NaN;
      const res = await app.inject({
        method: 'POST',
        url: shape.url,
        payload,
        headers: { 'content-type': 'application/json', ...shape.headers },
        remoteAddress: remote(),
      });
      if (r >= WARM) times.push(serverMs);
      status = res.statusCode;
      code = (res.json() as { code?: string }).code ?? '';
    }
    const whole = { median: median(times), min: Math.min(...times) };
    const f = (x: { min: number; median: number } | null) => (x ? `${x.median.toFixed(1)} (${x.min.toFixed(1)})` : '–');
    const n = (x: number) => x.toLocaleString('en');
    log(
      `| ${name} | ${shape.url.replace('/api/', '')} | ${n(Buffer.byteLength(sample))} | ${json ? `${n(counted.values)} | ${n(counted.keys)} | ${n(counted.layouts)} | ${n(counted.shortStrings)}` : '1 (bytes) | – | – | –'} | ${f(pass)} | ${f(parse)} | ${f(guard)} | ${f(whole)} | ${status} ${code} |`,
    );
    results[name] = {
      url: shape.url,
      bytes: Buffer.byteLength(sample),
      ...counted,
      pass,
      parse,
      guard,
      whole,
      status,
      code,
    };
  }
  await app.close();
  return results;
}
