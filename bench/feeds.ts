/**
 * A merchant's product feed pulled by the service from a local HTTP server:
 *   npm run bench -- feeds
 * One shop of 20,000 products (BENCH_FEED_PRODUCTS), about half of them in several sizes (about
 * 32,000 variants): 65% named after perfumes of the shipped catalog the way shops write them
 * ("Khamrah EDP 100ml", upper case, "Original", the house first, one in five in Arabic), the rest
 * made-up names and houses; availability mixed (in stock, out of stock, preorder), a sale price on
 * some. The same shop served three ways by one node:http server:
 * - `google`: a Google Merchant Center RSS 2.0 feed (g: namespace, item_group_id for the sizes of a
 *   product), one document with an ETag, 304 to a matching If-None-Match;
 * - `json`: the upload's JSON format (one row per size, sharing a group_id), one document, same ETag rule;
 * - `shopify`: the storefront listing, /products.json?limit=250&page=N (paged: no ETag, read in full).
 * For each, a new merchant, its source added and pulled through the admin API (inject, in process):
 * the first pull (wall time as the caller saw it and as the pull record says), what is stored and
 * how it matched; a second pull of the unchanged feed (status, requests the server saw, time);
 * then a pull after 1% of the products' prices changed (time, `changed`). BENCH_ROUNDS rounds (3),
 * databases and kinds alternating in order from round to round; medians. Then, per database, where a
 * 20,000-product pull's time goes (parse, recognition, product sync), without HTTP. On in-memory
 * PGlite, and on PostgreSQL (a scratch database, dropped after) when BENCH_DATABASE_URL is set. BENCH_FEED_KINDS=google,json keeps only those kinds.
 */
import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { eq, sql } from 'drizzle-orm';
import { buildApp } from '../app.ts';
import { loadBundledCatalog } from '../catalog/bundled.ts';
import { loadConfig } from '../config.ts';
import { createDatabase, type Database } from '../db/client.ts';
import { createScratchDatabase } from '../db/scratch.ts';
import { connectorFor } from '../feeds/index.ts';
import { WOO_PAGE_SIZE } from '../feeds/woocommerce.ts';
import { recogniseListings } from '../matching/recognise.ts';
import { merchantProducts } from '../schema/index.ts';
import { createMerchant } from '../services/merchants.ts';
import { syncProducts } from '../services/products.ts';
import { startBenchServer } from './child.ts';
import { wordMaker } from './heavy-rows.ts';
import { QUIZ_ANSWERS } from './score-endpoint.ts';
import { fmt, median, quantile } from './stats.ts';
import { rng, syntheticPerfumes } from './synthetic.ts';

const PRODUCTS = Number(process.env.BENCH_FEED_PRODUCTS ?? 20_000);
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const LEAD_KEY = 'ef'.repeat(32);
const ALL_KINDS = ['google', 'json', 'shopify'] as const;
type Kind = (typeof ALL_KINDS)[number];
/** BENCH_FEED_KINDS=google,json: only these (all three by default) */
const KINDS: readonly Kind[] = process.env.BENCH_FEED_KINDS
  ? ALL_KINDS.filter((k) => process.env.BENCH_FEED_KINDS?.split(',').includes(k))
  : ALL_KINDS;

interface Size {
  ml: number;
  price: number;
  sale: number | null;
  availability: 'in_stock' | 'out_of_stock' | 'preorder';
}
interface ShopProduct {
  id: string;
  title: string;
  house: string;
  catalog: boolean;
  arabic: boolean;
  sizes: Size[];
}

const CONC_WRITTEN: Record<string, string[]> = {
  edp: ['EDP', 'Eau de Parfum', 'edp', 'E.D.P'],
  edt: ['EDT', 'Eau de Toilette', 'edt'],
  parfum: ['Parfum', 'PARFUM'],
  extrait: ['Extrait de Parfum', 'Extrait'],
  elixir: ['Elixir'],
  edc: ['EDC', 'Eau de Cologne'],
  oil: ['Perfume Oil', 'Oil'],
};
const CONC_AR: Record<string, string> = {
  edp: 'أو دو بارفان',
  edt: 'أو دو تواليت',
  parfum: 'بارفان',
  extrait: 'إكستريه دو بارفان',
  elixir: 'إليكسير',
  edc: 'أو دو كولون',
  oil: 'زيت عطري',
};
const MADE_UP_HOUSES = [
  'Dar Al Oud',
  'Ard Al Khaleej',
  'Maison Alhambra',
  'Oud Elite',
  'Al Majed Perfumes',
  'Nabeel House',
  'Velvet Atelier',
  'Rasasi Home',
  'Ajmal Garden',
  'Swiss Arabian Lab',
];
const SIZE_SETS = [[100], [100], [100], [100], [100], [50, 100], [30, 100], [100, 200], [30, 50, 100], [10, 50, 100]];
const NOISE = ['', '', '', ' - Original', ' for Men', ' for Women', ' Unisex', ' (Tester Box)', ' – 100% Original'];

/** The shop: catalog perfumes written as shops write them, and made-up ones. Deterministic. */
export function shopProducts(n = PRODUCTS, seed = 7): ShopProduct[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)] as T;
  const { perfumes, houses } = loadBundledCatalog();
  const houseAr = new Map(houses.map((h) => [h.name, h.name_ar]));
  const madeUp = syntheticPerfumes(Math.ceil(n * 0.4), seed);
  const out: ShopProduct[] = [];
  for (let i = 0; i < n; i++) {
    const catalog = r() < 0.65;
    let title: string;
    let house: string;
    let arabic = false;
    if (catalog) {
      const p = pick(perfumes);
      const conc = pick(CONC_WRITTEN[p.concentration] ?? ['']);
      arabic = r() < 0.2 && !!p.name_ar;
      if (arabic) {
        title = `عطر ${p.name_ar} ${CONC_AR[p.concentration] ?? ''}`.trim();
        house = r() < 0.7 ? (houseAr.get(p.house) ?? p.house) : p.house;
      } else {
        const style = r();
        title =
          style < 0.15
            ? `${p.house} ${p.name} ${conc}`
            : style < 0.25
              ? `${p.name} ${conc}`.toUpperCase()
              : `${p.name} ${conc}`;
        title += pick(NOISE);
        house = p.house;
      }
    } else {
      const p = madeUp[i % madeUp.length] as (typeof madeUp)[number];
      title = `${p.name.replace(/ \d+$/, '')} ${pick(['EDP', 'Eau de Parfum', 'EDT', 'Perfume', 'Oud Oil'])}`;
      house = pick(MADE_UP_HOUSES);
    }
    const base = 60 + Math.floor(r() * 90) * 5;
    const sizes = pick(SIZE_SETS).map((ml) => {
      const price = Math.round((base * (ml / 100) ** 0.7 + 0.99) * 100) / 100;
      const a = r();
      return {
        ml,
        price,
        sale: r() < 0.15 ? Math.round(price * 0.8 * 100) / 100 : null,
        availability: a < 0.85 ? 'in_stock' : a < 0.95 ? 'out_of_stock' : 'preorder',
      } satisfies Size;
    });
    out.push({ id: `P${100000 + i}`, title, house, catalog, arabic, sizes });
  }
  return out;
}

/** 1% of the products (every hundredth) with their prices changed. */
export function withPricesChanged(products: ShopProduct[]): ShopProduct[] {
  return products.map((p, i) =>
    i % 100 === 50 ? { ...p, sizes: p.sizes.map((s) => ({ ...s, price: s.price + 10, sale: null })) } : p,
  );
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const sizeText = (ml: number) => `${ml}ml`;

/** A Google Merchant Center RSS 2.0 feed: one item per size, grouped by item_group_id. */
export function googleFeed(products: ShopProduct[]): string {
  const parts = [
    '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0">\n<channel>\n<title>Bench Shop</title>\n<link>https://shop.example</link>\n<description>Bench Shop products</description>\n',
  ];
  for (const p of products) {
    const group = p.sizes.length > 1;
    for (const s of p.sizes) {
      const id = group ? `${p.id}-${s.ml}` : p.id;
      parts.push(
        `<item>\n<g:id>${id}</g:id>\n${group ? `<g:item_group_id>${p.id}</g:item_group_id>\n` : ''}<g:title>${esc(`${p.title} ${sizeText(s.ml)}`)}</g:title>\n<g:description>${esc(`${p.title} by ${p.house}. A long-lasting fragrance, ${s.ml} ml bottle.`)}</g:description>\n<g:link>https://shop.example/products/${p.id.toLowerCase()}?size=${s.ml}</g:link>\n<g:image_link>https://cdn.shop.example/images/${p.id.toLowerCase()}.jpg</g:image_link>\n<g:brand>${esc(p.house)}</g:brand>\n<g:condition>new</g:condition>\n<g:availability>${s.availability}</g:availability>\n<g:price>${s.price.toFixed(2)} SAR</g:price>\n${s.sale !== null ? `<g:sale_price>${s.sale.toFixed(2)} SAR</g:sale_price>\n` : ''}${group ? `<g:size>${s.ml} ml</g:size>\n` : ''}<g:google_product_category>Health &amp; Beauty &gt; Personal Care &gt; Cosmetics &gt; Perfume &amp; Cologne</g:google_product_category>\n<g:product_type>Perfumes</g:product_type>\n</item>\n`,
      );
    }
  }
  parts.push('</channel>\n</rss>\n');
  return parts.join('');
}

/** The upload's JSON format with the feed's fields: one row per size, sharing a group_id. */
export function jsonFeed(products: ShopProduct[]): string {
  const rows: Record<string, unknown>[] = [];
  for (const p of products) {
    const group = p.sizes.length > 1;
    for (const s of p.sizes) {
      rows.push({
        merchant_product_id: group ? `${p.id}-${s.ml}` : p.id,
        ...(group ? { group_id: p.id, size: `${s.ml} ml` } : {}),
        name: `${p.title} ${sizeText(s.ml)}`,
        house: p.house,
        price: s.price,
        ...(s.sale !== null ? { sale_price: s.sale } : {}),
        currency: 'SAR',
        available: s.availability !== 'out_of_stock',
        image_url: `https://cdn.shop.example/images/${p.id.toLowerCase()}.jpg`,
        product_url: `https://shop.example/products/${p.id.toLowerCase()}`,
        description: `${p.title} by ${p.house}. A long-lasting fragrance.`,
      });
    }
  }
  return JSON.stringify(rows);
}

/** Shopify's storefront listing, one page of 250 products. */
export function shopifyPage(products: ShopProduct[], page: number): string {
  const slice = products.slice((page - 1) * 250, page * 250);
  return JSON.stringify({
    products: slice.map((p, k) => ({
      id: 7_000_000_000 + (page - 1) * 250 + k,
      title: p.title,
      handle: p.id.toLowerCase(),
      body_html: `<p>${esc(p.title)} by ${esc(p.house)}.</p><ul><li>A long-lasting fragrance</li></ul>`,
      vendor: p.house,
      product_type: 'Perfume',
      tags: ['perfume', p.catalog ? 'bestseller' : 'new'],
      variants: p.sizes.map((s, j) => ({
        id: 40_000_000_000 + ((page - 1) * 250 + k) * 10 + j,
        title: p.sizes.length > 1 ? `${s.ml}ml` : 'Default Title',
        option1: p.sizes.length > 1 ? `${s.ml}ml` : 'Default Title',
        price: (s.sale ?? s.price).toFixed(2),
        compare_at_price: s.sale !== null ? s.price.toFixed(2) : null,
        available: s.availability !== 'out_of_stock',
      })),
      images: [{ src: `https://cdn.shopify.com/s/files/${p.id.toLowerCase()}.jpg` }],
    })),
  });
}

/** The shop's server: the feeds of the current version, an ETag on the single documents, requests counted. */
function feedServer(versions: { a: ShopProduct[]; b: ShopProduct[] }) {
  const docs = {
    a: { google: Buffer.from(googleFeed(versions.a)), json: Buffer.from(jsonFeed(versions.a)) },
    b: { google: Buffer.from(googleFeed(versions.b)), json: Buffer.from(jsonFeed(versions.b)) },
  };
  const state = { version: 'a' as 'a' | 'b', hits: new Map<string, number>(), shopifyBytes: 0 };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://local');
    state.hits.set(url.pathname, (state.hits.get(url.pathname) ?? 0) + 1);
    if (url.pathname === '/feed.xml' || url.pathname === '/feed.json') {
      const kind = url.pathname === '/feed.xml' ? 'google' : 'json';
      const etag = `"${kind}-${state.version}"`;
      if (req.headers['if-none-match'] === etag) {
        res.statusCode = 304;
        res.setHeader('etag', etag);
        res.end();
        return;
      }
      const body = docs[state.version][kind];
      res.setHeader('content-type', kind === 'google' ? 'application/xml; charset=utf-8' : 'application/json');
      res.setHeader('etag', etag);
      res.setHeader('content-length', body.length);
      res.end(body);
      return;
    }
    if (url.pathname === '/products.json') {
      const page = Number(url.searchParams.get('page') ?? '1');
      const body = shopifyPage(versions[state.version], page);
      state.shopifyBytes += Buffer.byteLength(body);
      res.setHeader('content-type', 'application/json; charset=utf-8');
      res.end(body);
      return;
    }
    res.statusCode = 404;
    res.end('not found');
  });
  return { server, state, docs };
}

type App = Awaited<ReturnType<typeof buildApp>>;
interface PullRecord {
  status: string;
  started_at: string;
  finished_at: string | null;
  pages: number;
  bytes: number;
  received: number;
  added: number;
  changed: number;
  removed: number;
  rejected: number;
  rejections: { reason: string }[];
  error: string | null;
}
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

async function pull(app: App, id: string) {
  const t = performance.now();
  const r = await app.inject({ method: 'POST', url: `/api/admin/feeds/${id}/pull`, headers: auth, payload: {} });
  const callerMs = performance.now() - t;
  if (r.statusCode !== 200) throw new Error(`pull answered ${r.statusCode}: ${r.body.slice(0, 300)}`);
  const p = r.json() as PullRecord;
  const recordMs = p.finished_at ? Date.parse(p.finished_at) - Date.parse(p.started_at) : Number.NaN;
  return { ...p, callerMs, recordMs };
}

interface Round {
  first: Awaited<ReturnType<typeof pull>>;
  stored: number;
  matched: number;
  partial: number;
  unmatched: number;
  available: number;
  second: Awaited<ReturnType<typeof pull>>;
  secondRequests: number;
  changedPull: Awaited<ReturnType<typeof pull>>;
}

/** One kind's three pulls for a new merchant. */
async function round(app: App, shop: ReturnType<typeof feedServer>, base: string, kind: Kind): Promise<Round> {
  const merchant = await createMerchant(app.db, {
    name: 'Feed Bench',
    slug: `feed-bench-${randomBytes(4).toString('hex')}`,
  });
  const url = kind === 'google' ? `${base}/feed.xml` : kind === 'json' ? `${base}/feed.json` : `${base}/`;
  // paused: the feed runner leaves it alone; the admin API's pull still pulls it
  const added = await app.inject({
    method: 'POST',
    url: `/api/admin/merchants/${merchant.id}/feeds`,
    headers: auth,
    payload: { kind, url, currency: 'SAR', paused: true },
  });
  if (added.statusCode !== 201) throw new Error(`adding the source answered ${added.statusCode}: ${added.body}`);
  const source = added.json() as { id: string };
  shop.state.version = 'a';
  const first = await pull(app, source.id);
  const counts = await app.db
    .select({ status: merchantProducts.matchStatus, available: merchantProducts.available, n: sql<number>`count(*)` })
    .from(merchantProducts)
    .where(eq(merchantProducts.merchantId, merchant.id))
    .groupBy(merchantProducts.matchStatus, merchantProducts.available);
  const by = (s: string) => counts.filter((c) => c.status === s).reduce((a, c) => a + Number(c.n), 0);
  const path = kind === 'google' ? '/feed.xml' : kind === 'json' ? '/feed.json' : '/products.json';
  const before = [...shop.state.hits.entries()].reduce((a, [p, n]) => a + (p === path ? n : 0), 0);
  const second = await pull(app, source.id);
  const secondRequests = (shop.state.hits.get(path) ?? 0) - before;
  shop.state.version = 'b';
  const changedPull = await pull(app, source.id);
  return {
    first,
    stored: counts.reduce((a, c) => a + Number(c.n), 0),
    matched: by('matched'),
    partial: by('partial'),
    unmatched: by('unmatched'),
    available: counts.filter((c) => c.available).reduce((a, c) => a + Number(c.n), 0),
    second,
    secondRequests,
    changedPull,
  };
}

/**
 * Where a 20,000-product pull's time goes, stage by stage, without HTTP: the shop's listing pages
 * parsed by the connector, the rows recognised once (what a pull does to count what changed),
 * then stored by the product sync (which recognises them again and upserts them).
 */
async function stages(app: App, products: ShopProduct[]) {
  const pages = Array.from({ length: Math.ceil(products.length / 250) }, (_, i) => shopifyPage(products, i + 1));
  const source = { kind: 'shopify' as const, url: 'https://shop.example' };
  const connector = connectorFor('shopify');
  let t = performance.now();
  const rows = pages.flatMap(
    (body, i) => connector.parse(body, `${source.url}/products.json?page=${i + 1}`, source).rows,
  );
  const parseMs = performance.now() - t;
  const snapshot = app.catalog.current();
  t = performance.now();
  recogniseListings(rows, snapshot);
  const recogniseMs = performance.now() - t;
  const merchant = await createMerchant(app.db, {
    name: 'Feed Stages',
    slug: `feed-stages-${randomBytes(4).toString('hex')}`,
  });
  t = performance.now();
  await syncProducts(app.db, snapshot, merchant.id, rows, { replace: true });
  const syncMs = performance.now() - t;
  t = performance.now();
  await syncProducts(app.db, snapshot, merchant.id, rows, { replace: true });
  const resyncMs = performance.now() - t;
  return { rows: rows.length, parseMs, recogniseMs, syncMs, storeMs: syncMs - recogniseMs, resyncMs };
}

function benchApp(database: Database) {
  const config = loadConfig({
    DATABASE_URL: 'memory:',
    LOG_LEVEL: 'silent',
    SEED_DEMO: 'false',
    LEAD_ENCRYPTION_KEY: LEAD_KEY,
    ADMIN_TOKEN,
    FEED_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
  });
  return buildApp({ config, database, logger: false });
}

export async function runFeedsBench(log: (s: string) => void = console.log) {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const a = shopProducts();
  const shop = feedServer({ a, b: withPricesChanged(a) });
  await new Promise<void>((resolve) => shop.server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(shop.server.address() as AddressInfo).port}`;
  const items = a.reduce((n, p) => n + p.sizes.length, 0);
  const catalogShare = a.filter((p) => p.catalog).length / a.length;
  const arabicShare = a.filter((p) => p.arabic).length / a.length;
  // the shopify listing's bytes: one full read, counted by the server
  const pages = Math.ceil(a.length / 250);
  let shopifyBytes = 0;
  for (let page = 1; page <= pages + 1; page++) shopifyBytes += Buffer.byteLength(shopifyPage(a, page));
  const bytes: Record<Kind, number> = {
    google: shop.docs.a.google.length,
    json: shop.docs.a.json.length,
    shopify: shopifyBytes,
  };
  log(
    `${a.length.toLocaleString('en')} products, ${items.toLocaleString('en')} variants; ${Math.round(catalogShare * 100)}% named after catalog perfumes (${Math.round(arabicShare * 100)}% in Arabic), the rest made up`,
  );
  log(
    `bytes: google RSS ${bytes.google.toLocaleString('en')}, json ${bytes.json.toLocaleString('en')}, shopify ${pages + 1} pages ${bytes.shopify.toLocaleString('en')}`,
  );

  const apps: [string, App, () => Promise<void>][] = [];
  const lite = await createDatabase({ database: { kind: 'pglite', dataDir: null } });
  const liteApp = await benchApp(lite);
  await liteApp.ready();
  apps.push(['pglite', liteApp, async () => {}]);
  const url = process.env.BENCH_DATABASE_URL;
  if (url) {
    const scratch = await createScratchDatabase(url, 'sillage_bench');
    const pgApp = await benchApp(scratch.database);
    await pgApp.ready();
    apps.push(['postgres', pgApp, scratch.drop]);
  }
  const runs = new Map<string, Round[]>();
  const stageFigures: Record<string, Awaited<ReturnType<typeof stages>>> = {};
  try {
    for (let r = 0; r < rounds; r++) {
      // alternate the order of databases and kinds from round to round
      const order = r % 2 === 0 ? apps : [...apps].reverse();
      const kinds = r % 2 === 0 ? KINDS : [...KINDS].reverse();
      for (const [name, app] of order) {
        for (const kind of kinds) {
          const res = await round(app, shop, base, kind);
          const key = `${name}/${kind}`;
          runs.set(key, [...(runs.get(key) ?? []), res]);
          log(
            `round ${r + 1} ${key}: first ${fmt(res.first.callerMs / 1000, 2)} s (${res.first.status}, ${res.stored} stored), second ${res.second.status} ${res.secondRequests} requests ${fmt(res.second.callerMs, 0)} ms, 1% changed ${fmt(res.changedPull.callerMs / 1000, 2)} s (${res.changedPull.changed} changed)`,
          );
        }
      }
    }
    for (const [name, app] of apps) {
      const st = await stages(app, a);
      stageFigures[name] = st;
      log(
        `stages ${name}: ${st.rows} rows; parse ${fmt(st.parseMs / 1000, 2)} s, recognise ${fmt(st.recogniseMs / 1000, 2)} s, sync ${fmt(st.syncMs / 1000, 2)} s (store ≈ ${fmt(st.storeMs / 1000, 2)} s), the same rows again ${fmt(st.resyncMs / 1000, 2)} s`,
      );
    }
  } finally {
    for (const [, app, cleanup] of apps) {
      await app.close();
      await cleanup();
    }
    shop.server.closeAllConnections();
    await new Promise((resolve) => shop.server.close(resolve));
  }

  const results: Record<string, unknown> = {
    products: a.length,
    variants: items,
    catalogShare,
    arabicShare,
    bytes,
    rounds,
    stages: stageFigures,
  };
  const med = (xs: Round[], f: (r: Round) => number) => median(xs.map(f));
  for (const [name] of apps) {
    log(`\n${name}, median of ${rounds} rounds\n`);
    log(`| | ${KINDS.join(' | ')} |`);
    log(`|---|${KINDS.map(() => '---').join('|')}|`);
    const row = (label: string, f: (xs: Round[]) => string) =>
      log(`| ${label} | ${KINDS.map((k) => f(runs.get(`${name}/${k}`) ?? [])).join(' | ')} |`);
    const first = (xs: Round[]) => xs[0] as Round;
    row('feed bytes (first pull, as recorded)', (xs) => first(xs).first.bytes.toLocaleString('en'));
    row('requests, first pull (pages)', (xs) => String(first(xs).first.pages));
    row('first pull: status', (xs) => first(xs).first.status);
    row('first pull, caller (s)', (xs) => fmt(med(xs, (r) => r.first.callerMs) / 1000, 2));
    row('first pull, record (s)', (xs) => fmt(med(xs, (r) => r.first.recordMs) / 1000, 2));
    row('received (rows read)', (xs) => String(first(xs).first.received));
    row('rejection lines', (xs) => String(first(xs).first.rejected));
    row('products stored', (xs) => first(xs).stored.toLocaleString('en'));
    row(
      'matched / partial / unmatched',
      (xs) => `${first(xs).matched} / ${first(xs).partial} / ${first(xs).unmatched}`,
    );
    row('second pull: status', (xs) => first(xs).second.status);
    row('second pull: requests the server saw', (xs) => xs.map((r) => r.secondRequests).join(', '));
    row('second pull, caller (ms)', (xs) =>
      fmt(
        med(xs, (r) => r.second.callerMs),
        0,
      ),
    );
    row('1% prices changed, caller (s)', (xs) => fmt(med(xs, (r) => r.changedPull.callerMs) / 1000, 2));
    row('1% prices changed: `changed`', (xs) => String(first(xs).changedPull.changed));
    for (const k of KINDS) {
      const xs = runs.get(`${name}/${k}`) ?? [];
      results[`${name}/${k}`] = {
        firstCallerMs: xs.map((r) => Math.round(r.first.callerMs)),
        firstRecordMs: xs.map((r) => r.first.recordMs),
        secondCallerMs: xs.map((r) => Math.round(r.second.callerMs)),
        secondRequests: xs.map((r) => r.secondRequests),
        changedCallerMs: xs.map((r) => Math.round(r.changedPull.callerMs)),
        first: first(xs).first,
        stored: first(xs).stored,
        matched: first(xs).matched,
        partial: first(xs).partial,
        unmatched: first(xs).unmatched,
        available: first(xs).available,
        second: first(xs).second,
        changed: first(xs).changedPull,
      };
    }
  }
  if (apps.length > 1) {
    log('\nPostgreSQL / PGlite, ratio of the medians (caller time)\n');
    log(`| | ${KINDS.join(' | ')} |`);
    log(`|---|${KINDS.map(() => '---').join('|')}|`);
    const ratio = (label: string, f: (r: Round) => number) =>
      log(
        `| ${label} | ${KINDS.map((k) => fmt(med(runs.get(`postgres/${k}`) ?? [], f) / med(runs.get(`pglite/${k}`) ?? [], f), 2)).join(' | ')} |`,
      );
    ratio('first pull', (r) => r.first.callerMs);
    ratio('second pull (304)', (r) => r.second.callerMs);
    ratio('1% changed', (r) => r.changedPull.callerMs);
  }
  return results;
}

/** products of the fake WooCommerce store of the feed-load bench (BENCH_FEED_LOAD_PRODUCTS) */
const LOAD_PRODUCTS = Number(process.env.BENCH_FEED_LOAD_PRODUCTS ?? 20_000);
/** the honest shop's score requests a second while the feed is pulled (BENCH_SCORE_RATE) */
const LOAD_SCORE_RATE = Number(process.env.BENCH_SCORE_RATE) || 50;
/** /healthz asked every this many ms */
const LOAD_HEALTH_EVERY_MS = 50;
/** seconds measured alone before each pull */
const LOAD_ALONE_SECONDS = 5;

/**
 * One page of the fake store's Store API (feeds/woocommerce.ts reads it): products named with 24
 * made-up 11-letter words under a real house, each with a description of about 4,000 characters
 * of made-up words: the heaviest listings the attack run found, every text new so no cache helps.
 */
function heavyWooPage(word: (letters: number) => string, first: number, count: number, origin: string): Buffer {
  const products = Array.from({ length: count }, (_, k) => {
    const id = first + k;
    const name = Array.from({ length: 24 }, () => word(11))
      .join(' ')
      .slice(0, 300);
    let description = '';
    while (description.length < 4000) description += `${word(9)} `;
    return {
      id,
      name,
      slug: `p-${id}`,
      type: 'simple',
      permalink: `${origin}/product/p-${id}/`,
      short_description: '',
      description: `<p>${description.slice(0, 3990).trim()}</p>`,
      prices: {
        price: '15000',
        regular_price: '15000',
        sale_price: '15000',
        price_range: null,
        currency_code: 'SAR',
        currency_minor_unit: 2,
      },
      is_in_stock: true,
      is_purchasable: true,
      images: [{ id: 1, src: `${origin}/wp-content/uploads/${id}.jpg` }],
      categories: [{ id: 15, name: 'Perfumes', slug: 'perfumes' }],
      brands: [{ id: 3, name: 'Lattafa', slug: 'lattafa' }],
      attributes: [],
      variations: [],
    };
  });
  return Buffer.from(JSON.stringify(products));
}

/**
 * Latencies of requests sent at a steady rate whatever the answers (open loop): a stall shows as
 * latency. A window counts the requests sent in it, each to its answer (stop waits for the last):
 * a request sent before it (a warm-up's slow first answers) is not counted in it.
 */
export function steady(rate: number, send: (n: number) => Promise<boolean>) {
  type Window = { unanswered: Set<Promise<void>>; latencies: number[]; failed: number };
  let sent = 0;
  /** the window requests are counted in now; null between windows */
  let window: Window | null = null;
  const period = 1000 / rate;
  let next = performance.now();
  const pending = new Set<Promise<void>>();
  const timer = setInterval(() => {
    const now = performance.now();
    while (next <= now) {
      next += period;
      const n = sent++;
      const t = performance.now();
      const counted = window;
      const p = send(n)
        .then(
          (ok) => ok,
          () => false,
        )
        .then((ok) => {
          if (counted) {
            if (!ok) counted.failed++;
            counted.latencies.push(performance.now() - t);
            counted.unanswered.delete(p);
          }
          pending.delete(p);
        });
      pending.add(p);
      counted?.unanswered.add(p);
    }
  }, 2);
  return {
    /** starts a window: the requests sent from now on */
    start() {
      window = { unanswered: new Set(), latencies: [], failed: 0 };
    },
    /** ends the window once its requests are answered; their latencies, and how many answered other than 2xx */
    async stop() {
      const mine = window as Window;
      window = null;
      await Promise.allSettled([...mine.unanswered]);
      return { latencies: mine.latencies, failed: mine.failed };
    },
    async close() {
      clearInterval(timer);
      await Promise.allSettled([...pending]);
    },
  };
}

/**
 * A storefront's score requests at `rate` a second (open loop: `steady`), from many shopper
 * addresses, the quiz answers and locales of the endpoint bench in turn.
 */
export function honestScores(url: string, key: string, rate: number) {
  return steady(rate, async (n) => {
    const r = await fetch(`${url}/api/widget/score`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-widget-version': 'v1',
        'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
      },
      body: JSON.stringify({ api_key: key, quiz: QUIZ_ANSWERS[n % QUIZ_ANSWERS.length], locale: n % 3 ? 'ar' : 'en' }),
    });
    await r.arrayBuffer();
    return r.ok;
  });
}

/** POST with no client-side timeout (a pull takes as long as it takes) */
function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; body: string }> {
  return sendJson('POST', url, headers, body);
}

/** A JSON request with no client-side timeout (a pull or a large sync takes as long as it takes). */
export function sendJson(
  method: string,
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = Buffer.from(JSON.stringify(body));
    const req = httpRequest(
      url,
      { method, headers: { ...headers, 'content-type': 'application/json', 'content-length': payload.length } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** the service's event-loop delay since the last scrape (prom-client resets it at each): p99 and max, ms */
export async function loopDelay(url: string, headers: Record<string, string>) {
  const text = await (await fetch(`${url}/metrics`, { headers })).text();
  const read = (name: string) => Number(new RegExp(`^${name} ([0-9.e+-]+)`, 'm').exec(text)?.[1]) * 1000;
  return { p99: read('nodejs_eventloop_lag_p99_seconds'), max: read('nodejs_eventloop_lag_max_seconds') };
}

/** the record of a source's pull once it has ended (asked every 500 ms) */
async function pullRecord(url: string, headers: Record<string, string>, sourceId: string) {
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    // a connection the service closed meanwhile (its 30 s idle limit, during a stall): asked again
    const r = await fetch(`${url}/api/admin/feeds/${sourceId}/pulls`, { headers }).catch(() => null);
    if (!r?.ok) continue;
    const { pulls } = (await r.json()) as { pulls: { status: string; added: number; error: string | null }[] };
    const last = pulls[0];
    if (last && last.status !== 'running') return last;
  }
}

/**
 * A fake WooCommerce store's worst-case feed pulled while another shop is served:
 *   npm run bench -- feed-load
 * The service runs in its own process (bench/score-server.ts: in-memory PGlite, or
 * BENCH_DATABASE_URL; an honest merchant of 1,000 synced products). This process serves a
 * WooCommerce Store API of BENCH_FEED_LOAD_PRODUCTS (20,000) products, 100 a page, each named with
 * 24 made-up words and described in about 4,000 characters of made-up words (new text every round,
 * so no cache helps), adds it as a new merchant's `woocommerce` source and pulls it through the
 * admin API ("pull now"), while the honest shop's storefront sends BENCH_SCORE_RATE (50) score
 * requests a second from many shopper addresses and /healthz is asked every 50 ms, both at a
 * steady rate whatever the answers. Per round: the p99 and the longest of each during the pull
 * (and during 5 s alone before it), the service's event-loop delay during the pull (its
 * /metrics: how long its main thread was held, whatever the load on the machine), the pull's
 * duration and what it stored. BENCH_ROUNDS rounds (3);
 * medians. Goal (issue 44): both p99s under 100 ms throughout the pull.
 */
export async function runFeedLoadBench(log: (s: string) => void = console.log) {
  const rounds = Number(process.env.BENCH_ROUNDS) || 3;
  const pageCount = Math.ceil(LOAD_PRODUCTS / WOO_PAGE_SIZE);
  const pages = new Map<string, Buffer[]>();
  const shop = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://local');
    const m = /^\/(r\d+)\/wp-json\/wc\/store\/v1\/products$/.exec(url.pathname);
    const round = m ? pages.get(m[1] as string) : undefined;
    const page = Number(url.searchParams.get('page') ?? '1');
    const body = round?.[page - 1];
    if (!body) {
      res.statusCode = round ? 400 : 404;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ code: 'rest_invalid_param' }));
      return;
    }
    res.setHeader('content-type', 'application/json; charset=UTF-8');
    res.setHeader('x-wp-total', String(LOAD_PRODUCTS));
    res.setHeader('x-wp-totalpages', String(pageCount));
    res.end(body);
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  const shopBase = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;

  // every round's pages made before any request is timed: this process sends the timed requests
  for (let r = 0; r < rounds; r++) {
    const name = `r${r}`;
    const word = wordMaker(1000 + r * 7919 + process.pid);
    pages.set(
      name,
      Array.from({ length: pageCount }, (_, i) =>
        heavyWooPage(
          word,
          i * WOO_PAGE_SIZE + 1,
          Math.min(WOO_PAGE_SIZE, LOAD_PRODUCTS - i * WOO_PAGE_SIZE),
          `${shopBase}/${name}`,
        ),
      ),
    );
  }
  const service = await startBenchServer<{ port: number; key: string; admin: string }>('service', {
    BENCH_FEED_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
  });
  const { port, key, admin } = service.info;
  const url = `http://127.0.0.1:${port}`;
  const adminHeaders = { authorization: `Bearer ${admin}` };
  const scores = honestScores(url, key, LOAD_SCORE_RATE);
  const health = steady(1000 / LOAD_HEALTH_EVERY_MS, async () => {
    const r = await fetch(`${url}/healthz`);
    await r.arrayBuffer();
    return r.ok;
  });
  const p99 = (xs: number[]) => quantile(xs, 0.99);
  const max = (xs: number[]) => xs.reduce((a, b) => Math.max(a, b), 0);
  type Row = {
    aloneScoreP99: number;
    aloneHealthP99: number;
    scoreP99: number;
    scoreMax: number;
    healthP99: number;
    healthMax: number;
    scores: number;
    failed: number;
    pullSeconds: number;
    status: string;
    added: number;
    /** the service's event-loop delay during the pull (its main thread held), ms */
    loopP99: number;
    loopMax: number;
    /** the machine's load (runnable processes, 1-minute average) when the pull ended: 2 cores */
    load: number;
  };
  const rows: Row[] = [];
  try {
    // warm up: the honest shop's compiled products, the connections
    await new Promise((r) => setTimeout(r, 3000));
    log(
      `${LOAD_PRODUCTS.toLocaleString('en')} products in ${pageCount} pages of ${WOO_PAGE_SIZE}; honest scores ${LOAD_SCORE_RATE}/s, /healthz every ${LOAD_HEALTH_EVERY_MS} ms\n`,
    );
    log(
      '| round | alone: score p99 / healthz p99 | during the pull: score p99 (max) | healthz p99 (max) | event-loop delay p99 (max) | scores answered (non-2xx) | pull | stored | machine load |',
    );
    log('|---|---|---|---|---|---|---|---|---|');
    for (let r = 0; r < rounds; r++) {
      const name = `r${r}`;
      const merchant = JSON.parse(
        (
          await postJson(`${url}/api/admin/merchants`, adminHeaders, {
            name: 'Fake Woo',
            slug: `fake-woo-${name}-${process.pid}`,
          })
        ).body,
      ) as { id: string };
      const added = await postJson(`${url}/api/admin/merchants/${merchant.id}/feeds`, adminHeaders, {
        kind: 'woocommerce',
        url: `${shopBase}/${name}`,
        currency: 'SAR',
        paused: true,
      });
      if (added.status !== 201) throw new Error(`adding the source answered ${added.status}: ${added.body}`);
      const source = JSON.parse(added.body) as { id: string };

      scores.start();
      health.start();
      await new Promise((res) => setTimeout(res, LOAD_ALONE_SECONDS * 1000));
      const aloneScores = await scores.stop();
      const aloneHealth = await health.stop();

      await loopDelay(url, adminHeaders);
      scores.start();
      health.start();
      const t = performance.now();
      // "pull now" answers when the pull ends, unless the connection's 30 s idle limit closes it
      // first: the pull goes on, and its record says when it ends
      const answered = postJson(`${url}/api/admin/feeds/${source.id}/pull`, adminHeaders, {}).catch(() => null);
      const record = await pullRecord(url, adminHeaders, source.id);
      const pullSeconds = (performance.now() - t) / 1000;
      const during = await scores.stop();
      const duringHealth = await health.stop();
      const loop = await loopDelay(url, adminHeaders);
      await answered;
      pages.delete(name);
      if (record.status !== 'applied') throw new Error(`the pull ended ${record.status}: ${record.error}`);
      const row: Row = {
        aloneScoreP99: p99(aloneScores.latencies),
        aloneHealthP99: p99(aloneHealth.latencies),
        scoreP99: p99(during.latencies),
        scoreMax: max(during.latencies),
        healthP99: p99(duringHealth.latencies),
        healthMax: max(duringHealth.latencies),
        scores: during.latencies.length,
        failed: during.failed,
        pullSeconds,
        status: record.status,
        added: record.added,
        loopP99: loop.p99,
        loopMax: loop.max,
        load: loadavg()[0] ?? 0,
      };
      rows.push(row);
      log(
        `| ${r + 1} | ${fmt(row.aloneScoreP99, 0)} / ${fmt(row.aloneHealthP99, 0)} ms | ${fmt(row.scoreP99, 0)} ms (${fmt(row.scoreMax, 0)}) | ${fmt(row.healthP99, 0)} ms (${fmt(row.healthMax, 0)}) | ${fmt(row.loopP99, 0)} ms (${fmt(row.loopMax, 0)}) | ${row.scores} (${row.failed}) | ${fmt(pullSeconds, 1)} s ${row.status} | ${row.added.toLocaleString('en')} | ${fmt(row.load, 1)} |`,
      );
    }
  } finally {
    await scores.close();
    await health.close();
    service.child.kill('SIGTERM');
    shop.closeAllConnections();
    await new Promise((resolve) => shop.close(resolve));
  }
  const med = (f: (r: Row) => number) => median(rows.map(f));
  const summary = {
    products: LOAD_PRODUCTS,
    rounds: rows,
    scoreP99: med((r) => r.scoreP99),
    healthP99: med((r) => r.healthP99),
    scoreMax: med((r) => r.scoreMax),
    healthMax: med((r) => r.healthMax),
    aloneScoreP99: med((r) => r.aloneScoreP99),
    pullSeconds: med((r) => r.pullSeconds),
    loopP99: med((r) => r.loopP99),
    loopMax: med((r) => r.loopMax),
  };
  log(
    `\nduring the pull, median of ${rows.length} rounds: score p99 ${fmt(summary.scoreP99, 0)} ms (alone ${fmt(summary.aloneScoreP99, 0)} ms), /healthz p99 ${fmt(summary.healthP99, 0)} ms; longest ${fmt(summary.scoreMax, 0)} / ${fmt(summary.healthMax, 0)} ms; event-loop delay p99 ${fmt(summary.loopP99, 0)} ms (max ${fmt(summary.loopMax, 0)}); pull ${fmt(summary.pullSeconds, 1)} s`,
  );
  return summary;
}

/**
 * A worst-case pull's store step alone, where the feed-load bench cannot see:
 *   npm run bench -- feed-store
 * BENCH_FEED_LOAD_PRODUCTS (20,000) of the attack's products (24 made-up words, a description of
 * about 4,000 characters of made-up words, every text new), all new to the merchant, stored by the
 * product sync (`syncProducts`, the rows recognised beforehand: 100 recognised here, the rest
 * copies of them with ids and texts of their own) while a reader outside the transaction asks
 * `select 1` every 20 ms (what a key check or an event waits) and the event loop's delay is
 * sampled (what every other request waits). Per database (in-memory PGlite; PostgreSQL when
 * BENCH_DATABASE_URL is set), BENCH_ROUNDS rounds (3), medians: the step's time, the longest and
 * the 99th percentile of the reader's waits, the event loop's longest delay.
 */
export async function runFeedStoreBench(log: (s: string) => void = console.log) {
  const rounds = Number(process.env.BENCH_ROUNDS) || 3;
  const { onBenchDatabases, benchShop } = await import('./databases.ts');
  const { monitorEventLoopDelay } = await import('node:perf_hooks');
  const results = await onBenchDatabases(async (database) => {
    const { snapshot } = await benchShop(database);
    const rows: { seconds: number; readMax: number; readP99: number; loopMax: number }[] = [];
    for (let r = 0; r < rounds; r++) {
      const merchant = await createMerchant(database.db, { name: 'Store', slug: `store-${r}-${process.pid}` });
      const word = wordMaker(4000 + r * 7919);
      const listing = (i: number) => {
        let description = '';
        while (description.length < 4000) description += `${word(9)} `;
        return {
          merchant_product_id: `p${i}`,
          name: Array.from({ length: 24 }, () => word(11))
            .join(' ')
            .slice(0, 300),
          house: 'Lattafa',
          price: 150,
          description: description.slice(0, 3990).trim(),
        };
      };
      const seed = recogniseListings(
        Array.from({ length: 100 }, (_, i) => listing(i)),
        snapshot,
      ).recognised;
      const recognised = Array.from({ length: LOAD_PRODUCTS }, (_, i) => {
        const own = i < seed.length ? null : listing(i);
        const base = seed[i % seed.length] as (typeof seed)[number];
        return own
          ? {
              ...base,
              listing: {
                ...base.listing,
                merchantProductId: own.merchant_product_id,
                name: own.name,
                description: own.description,
              },
            }
          : base;
      });
      const feed = recognised.map((x) => ({ merchant_product_id: x.listing.merchantProductId }));
      const loop = monitorEventLoopDelay({ resolution: 10 });
      const waits: number[] = [];
      let storing = true;
      const reader = (async () => {
        while (storing) {
          const t = performance.now();
          await database.db.execute(sql`select 1`);
          waits.push(performance.now() - t);
          await new Promise((res) => setTimeout(res, 20));
        }
      })();
      loop.enable();
      const t = performance.now();
      await syncProducts(database.db, snapshot, merchant.id, feed, { recognised: { recognised, problems: [] } });
      const seconds = (performance.now() - t) / 1000;
      loop.disable();
      storing = false;
      await reader;
      rows.push({
        seconds,
        readMax: Math.max(...waits),
        readP99: quantile(waits, 0.99),
        loopMax: loop.max / 1e6,
      });
      const last = rows.at(-1) as (typeof rows)[number];
      log(
        `| ${database.kind} | ${r + 1} | ${fmt(last.seconds, 1)} s | ${fmt(last.readMax, 0)} ms | ${fmt(last.readP99, 0)} ms | ${fmt(last.loopMax, 0)} ms |`,
      );
    }
    return {
      seconds: median(rows.map((x) => x.seconds)),
      readMax: median(rows.map((x) => x.readMax)),
      readP99: median(rows.map((x) => x.readP99)),
      loopMax: median(rows.map((x) => x.loopMax)),
    };
  });
  log('\n| database | store step | a read waits at most (p99) | event loop longest delay |');
  log('|---|---|---|---|');
  for (const [db, x] of Object.entries(results)) {
    log(
      `| ${db} | ${fmt(x.seconds, 1)} s | ${fmt(x.readMax, 0)} ms (${fmt(x.readP99, 0)} ms) | ${fmt(x.loopMax, 0)} ms |`,
    );
  }
  return results;
}
