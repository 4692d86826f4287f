/**
 * The merchant console's pages with a merchant's real volume:
 *   npm run bench -- console
 * One merchant with 100,000 events over 90 days (the widget's funnel, clicks on its products,
 * purchases, some attributed), 30,000 scored sessions over 500 distinct answers, 1,000 products
 * synced (the labelled real listings' names, every tenth an Arabic name of the shop's own) and 500
 * leads, generated in bulk with SQL. Then, signed in as the merchant's owner through HTTP, each
 * page is asked for in turn through `inject` (in process, no socket); the time is the server's
 * (Fastify's reply.elapsedTime: from the request received to the answer sent). BENCH_ROUNDS
 * rounds (20) after two warm-up rounds; median and p95 per page. On in-memory PGlite, and on
 * PostgreSQL (a scratch database, dropped after) when BENCH_DATABASE_URL is set.
 */
import { sql } from 'drizzle-orm';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { createDatabase, type Database } from '../db/client.ts';
import { createScratchDatabase } from '../db/scratch.ts';
import { leads } from '../schema/index.ts';
import { createConsoleUser } from '../services/console-users.ts';
import { createKey, recordSightings } from '../services/keys.ts';
import { createMerchant } from '../services/merchants.ts';
import { syncProducts } from '../services/products.ts';
import { attributePurchases } from '../services/purchase-attribution.ts';
import { labelledListingFeed } from './databases.ts';
import { fmt, median, quantile } from './stats.ts';

const EVENTS = 100_000;
const SESSIONS = 30_000;
const ANSWERS = 500;
const PRODUCTS = 1_000;
const LEADS = 500;
const PURCHASES = 2_000;
const DAYS = 90;
const SLUG = 'console-bench';
const OWNER = `owner@${SLUG}.example`;
const PASSWORD = 'correct horse battery';
const LEAD_KEY = 'ab'.repeat(32);
const DAY = 86_400_000;

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/** The pages measured: name and path under /console/m/<slug>. */
export function consolePages(now = new Date()) {
  const today = isoDay(now);
  const yearAgo = isoDay(new Date(now.getTime() - 364 * DAY));
  return [
    ['overview, 30 days', '/'],
    ['overview, 365 days', `/?from=${yearAgo}&to=${today}`],
    ['asks', '/asks'],
    ['shelf', '/shelf'],
    ['shelf, unmatched', '/shelf?filter=unmatched'],
    ['product, Arabic search', `/shelf/product?id=sku-7&q=${encodeURIComponent('خمرة لطافة')}`],
    ['install', '/install'],
    ['leads', '/leads'],
  ] as const;
}

/** The merchant's volume, generated in bulk. */
export async function seed(app: Awaited<ReturnType<typeof buildApp>>) {
  const db = app.db;
  const merchant = await createMerchant(db, { name: 'Console Bench', slug: SLUG });
  const m = merchant.id;
  await createConsoleUser(db, { email: OWNER, password: PASSWORD, role: 'owner', merchant: m });
  const key = await createKey(db, m, { mode: 'live', allowedOrigins: ['https://shop.example'] });
  await recordSightings(db, [
    {
      keyId: key.id,
      origin: 'https://shop.example',
      widgetVersion: '1',
      outcome: 'ok',
      requests: 90_000,
      lastSeenAt: new Date(),
    },
  ]);
  const feed = labelledListingFeed(PRODUCTS, (i) =>
    i % 10 === 3 ? { name: `عطر المساء الخاص ${i} 100 مل`, house: 'متجرنا' } : {},
  );
  let t = performance.now();
  await syncProducts(db, app.catalog.current(), m, feed);
  const syncSeconds = (performance.now() - t) / 1000;

  t = performance.now();
  const span = DAYS * 86_400;
  // the funnel narrows: of every 100 events 40 loads, 22 opens, 15 starts, 10 completions, 8 results,
  // 4 clicks on a recommendation, 1 on "also explore"; one in 50 from a test key
  await db.execute(sql`
    insert into events (merchant_id, key_id, session_id, test, type, event_id, occurred_at, data)
    select ${m}::uuid, ${key.id}::uuid, md5('s' || (g % ${SESSIONS}))::uuid, g % 50 = 0,
      case when g % 100 < 40 then 'widget_loaded' when g % 100 < 62 then 'widget_opened'
        when g % 100 < 77 then 'quiz_started' when g % 100 < 87 then 'quiz_completed'
        when g % 100 < 95 then 'results_viewed' when g % 100 < 99 then 'recommendation_clicked'
        else 'also_explore_clicked' end,
      'e' || g,
      now() - make_interval(secs => (g::bigint * 7919) % ${span}),
      case when g % 100 >= 95
        then jsonb_build_object('merchant_product_id', 'sku-' || (g * 31 % ${PRODUCTS}), 'position', 1 + g % 6)
        else '{}'::jsonb end
    from generate_series(1, ${EVENTS}) as g`);
  // purchases an hour after a click; every other one has the clicked product in it (attributed)
  await db.execute(sql`
    insert into purchases (merchant_id, session_id, test, order_id, total, currency, items, occurred_at)
    select ${m}::uuid, md5('s' || (c % ${SESSIONS}))::uuid, c % 50 = 0, 'o' || g, 300, 'SAR',
      jsonb_build_array(
        jsonb_build_object('merchant_product_id',
          case when g % 2 = 0 then 'sku-' || (c * 31 % ${PRODUCTS}) else 'sku-' || ((c + 17) % ${PRODUCTS}) end,
          'quantity', 1, 'price', 200),
        jsonb_build_object('merchant_product_id', 'x' || g, 'quantity', 1, 'price', 100)),
      now() - make_interval(secs => (c::bigint * 7919) % ${span}) + interval '1 hour'
    from (select g, 100 * (g % (${EVENTS} / 100)) + 95 as c from generate_series(1, ${PURCHASES}) as g) s`);
  await db.execute(sql`
    insert into widget_answers (id, merchant_id, quiz, shown)
    select md5('a' || g)::uuid, ${m}::uuid,
      json_build_object(
        'families', json_build_array((array['oriental','woody','floral','fresh','gourmand','citrus'])[1 + g % 6]),
        'ratings', json_build_array(
          json_build_array((array['oud','amber','rose','musk','vanilla'])[1 + g % 5], 'love'),
          json_build_array((array['citrus','aquatic','powdery'])[1 + g % 3], 'avoid')),
        'season', (array['summer','winter','spring','autumn', null])[1 + g % 5],
        'occasion', (array['daily','evening','work', null])[1 + g % 4],
        'loved', case when g % 4 = 0 then json_build_array('lattafa-khamrah-edp') else '[]'::json end,
        'catalog_mode', 'shop'),
      (select json_agg(json_build_object('merchant_product_id', 'sku-' || ((g * 7 + k) % ${PRODUCTS}),
          'position', k, 'match_score', 0.9, 'list', 'recommendations')) from generate_series(1, 6) k)
    from generate_series(0, ${ANSWERS - 1}) as g`);
  await db.execute(sql`
    insert into widget_sessions (id, merchant_id, key_id, test, locale, answer_id, created_at)
    select md5('s' || g)::uuid, ${m}::uuid, ${key.id}::uuid, g % 50 = 0, case when g % 3 = 0 then 'en' else 'ar' end,
      md5('a' || (g % ${ANSWERS}))::uuid, now() - make_interval(secs => (g::bigint * 7919) % ${span})
    from generate_series(0, ${SESSIONS - 1}) as g`);
  const cipher = app.leadCipher;
  const rows = Array.from({ length: LEADS }, (_, i) => {
    const email = `shopper${i}@example.com`;
    return {
      merchantId: m,
      test: i % 50 === 0,
      emailEncrypted: cipher.encrypt(email),
      emailLookup: cipher.emailLookup(email),
      consentAt: new Date(Date.now() - (i % DAYS) * DAY),
      consentVersion: 'v1',
      picks: [1, 2, 3].map((k) => ({ merchant_product_id: `sku-${(i + k) % PRODUCTS}`, name: null })),
      locale: 'ar',
      createdAt: new Date(Date.now() - (i % DAYS) * DAY),
    };
  });
  for (let i = 0; i < rows.length; i += 100) await db.insert(leads).values(rows.slice(i, i + 100));
  // attribution happens as purchases are stored; for generated rows, once for all
  await attributePurchases(db, m, null, app.config.attributionWindowDays);
  await db.execute(sql`analyze`);
  return { syncSeconds, loadSeconds: (performance.now() - t) / 1000 };
}

/** Cookies and the CSRF token kept between requests, as a browser does. */
async function signIn(app: Awaited<ReturnType<typeof buildApp>>) {
  const cookies = new Map<string, string>();
  const keep = (set: unknown) => {
    for (const c of ([] as string[]).concat((set as string | string[] | undefined) ?? [])) {
      const [pair = ''] = c.split(';');
      const i = pair.indexOf('=');
      cookies.set(pair.slice(0, i), pair.slice(i + 1));
    }
  };
  const header = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const form = await app.inject({ method: 'GET', url: '/console/sign-in', remoteAddress: '10.1.0.1' });
  keep(form.headers['set-cookie']);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
  const res = await app.inject({
    method: 'POST',
    url: '/console/sign-in',
    payload: new URLSearchParams({ _csrf: csrf, email: OWNER, password: PASSWORD }).toString(),
    headers: { cookie: header(), 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    remoteAddress: '10.1.0.1',
  });
  if (res.statusCode !== 303) throw new Error(`sign-in answered ${res.statusCode}`);
  keep(res.headers['set-cookie']);
  return header();
}

export interface PageFigures {
  page: string;
  path: string;
  bytes: number;
  medianMs: number;
  p95Ms: number;
  runsMs: number[];
}

/** The service as production builds it, on this database, logger off; not yet ready. */
export function benchApp(database: Database) {
  const config = loadConfig({
    DATABASE_URL: 'memory:',
    LOG_LEVEL: 'silent',
    SEED_DEMO: 'false',
    LEAD_ENCRYPTION_KEY: LEAD_KEY,
  });
  return buildApp({ config, database, logger: false });
}

async function measure(database: Database, rounds: number, log: (s: string) => void) {
  const app = await benchApp(database);
  const elapsed = new Map<string, number>();
  app.addHook('onResponse', async (request, reply) => {
    elapsed.set(request.id, reply.elapsedTime);
  });
  await app.ready();
  try {
    const seeded = await seed(app);
    log(`seeded in ${fmt(seeded.loadSeconds, 1)} s (+ ${fmt(seeded.syncSeconds, 1)} s syncing products)`);
    const cookie = await signIn(app);
    const pages = consolePages();
    const runs = new Map<string, number[]>(pages.map(([name]) => [name, []]));
    const bytes = new Map<string, number>();
    for (let round = -2; round < rounds; round++) {
      for (const [name, path] of pages) {
        const res = await app.inject({
          method: 'GET',
          url: `/console/m/${SLUG}${path}`,
          headers: { cookie, accept: 'text/html' },
          remoteAddress: '10.1.0.1',
        });
        if (res.statusCode !== 200) throw new Error(`${name} answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
        bytes.set(name, res.rawPayload.length);
        const id = [...elapsed.keys()].at(-1) as string;
        const ms = elapsed.get(id) as number;
        elapsed.clear();
        if (round >= 0) runs.get(name)?.push(ms);
      }
    }
    const figures: PageFigures[] = pages.map(([name, path]) => {
      const xs = runs.get(name) ?? [];
      return {
        page: name,
        path,
        bytes: bytes.get(name) ?? 0,
        medianMs: median(xs),
        p95Ms: quantile(xs, 0.95),
        runsMs: xs.map((x) => Math.round(x * 10) / 10),
      };
    });
    return { ...seeded, figures };
  } finally {
    await app.close();
  }
}

export async function runConsoleBench(log: (s: string) => void = console.log) {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 20);
  const results: Record<string, Awaited<ReturnType<typeof measure>>> = {};
  const lite = await createDatabase({ database: { kind: 'pglite', dataDir: null } });
  results.pglite = await measure(lite, rounds, log); // the app closes the database
  const url = process.env.BENCH_DATABASE_URL;
  if (url) {
    const scratch = await createScratchDatabase(url, 'sillage_bench');
    try {
      results.postgres = await measure(scratch.database, rounds, log);
    } finally {
      await scratch.drop();
    }
  }
  log(
    `\n${EVENTS.toLocaleString('en')} events over ${DAYS} days, ${SESSIONS.toLocaleString('en')} scored sessions, ${PRODUCTS.toLocaleString('en')} products, ${LEADS} leads; ${rounds} rounds, server time (ms)\n`,
  );
  const dbs = Object.keys(results);
  log(`| page | ${dbs.map((d) => `${d} median | ${d} p95`).join(' | ')} |`);
  log(`|---|${dbs.map(() => '---|---').join('|')}|`);
  for (const [i, [name]] of consolePages().entries()) {
    const cells = dbs.map((d) => {
      const f = results[d]?.figures[i] as PageFigures;
      return `${fmt(f.medianMs, 1)} | ${fmt(f.p95Ms, 1)}`;
    });
    log(`| ${name} | ${cells.join(' | ')} |`);
  }
  return { events: EVENTS, sessions: SESSIONS, products: PRODUCTS, leads: LEADS, days: DAYS, rounds, ...results };
}
