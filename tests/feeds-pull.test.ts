import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../app.ts';
import { run } from '../cli/admin.ts';
import { createDatabase } from '../db/client.ts';
import { feedPulls, feedSources, merchantProducts } from '../schema/index.ts';
import { createConsoleUser } from '../services/console-users.ts';
import { claimSource, createSource } from '../services/feeds.ts';
import { createMerchant } from '../services/merchants.ts';
import { syncProducts } from '../services/products.ts';
import { Browser, PASSWORD } from './console-session.ts';
import {
  adminHeaders,
  buildTestApp,
  closeTestApp,
  createMerchantWithKey,
  createTestDatabase,
  TEST_DATABASE_URL,
  type TestApp,
  testConfig,
} from './helper.ts';

/**
 * A shop's feed pulled by the service from a real HTTP server started here: what is stored, what a
 * failed or suspicious pull leaves alone, conditional requests, and the admin operations around it.
 */
let app: TestApp;
let server: Server;
let base: string;
const ORIGIN = 'https://shop.example';

/** What each path of the test server answers; a handler may inspect the request. */
const routes = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>();
const hits = new Map<string, number>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const handler = routes.get(path);
    if (!handler) {
      res.statusCode = 404;
      res.end('no such feed');
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  app = await buildTestApp({ FEED_ALLOW_PRIVATE_HOSTS: '127.0.0.1' });
});
afterAll(async () => {
  await closeTestApp(app);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const product = (id: string, name: string, extra: Record<string, unknown> = {}) => ({
  merchant_product_id: id,
  name,
  house: 'Lattafa',
  price: 100,
  currency: 'SAR',
  ...extra,
});
const SHELF = [
  product('A', 'Khamrah EDP 100ml'),
  product('B', 'Khamrah Qahwa EDP 100ml'),
  product('C', 'Asad EDP 100ml'),
  product('D', 'Ana Abiyedh Rouge EDP 60ml'),
  product('E', 'Badee Al Oud Oud for Glory EDP 100ml'),
];

/** Serves a JSON feed at `path` with an ETag, answering 304 to a matching If-None-Match. */
function serveJson(path: string, rows: unknown[], etag = `"v-${JSON.stringify(rows).length}"`) {
  routes.set(path, (req, res) => {
    if (req.headers['if-none-match'] === etag) {
      res.statusCode = 304;
      res.end();
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.setHeader('etag', etag);
    res.end(JSON.stringify(rows));
  });
}

async function addSource(merchant: string, body: Record<string, unknown>) {
  const r = await app.inject({
    method: 'POST',
    url: `/api/admin/merchants/${merchant}/feeds`,
    headers: adminHeaders,
    payload: body,
  });
  expect(r.statusCode, r.body).toBe(201);
  return r.json() as { id: string };
}
async function pull(id: string, body: Record<string, unknown> = {}) {
  const r = await app.inject({
    method: 'POST',
    url: `/api/admin/feeds/${id}/pull`,
    headers: adminHeaders,
    payload: body,
  });
  expect(r.statusCode, r.body).toBe(200);
  return r.json() as {
    status: string;
    added: number;
    changed: number;
    removed: number;
    error_code: string | null;
    error: string | null;
    rejected: number;
  };
}
const stored = async (merchantId: string) =>
  (await app.db.select().from(merchantProducts).where(eq(merchantProducts.merchantId, merchantId))).sort((a, b) =>
    a.merchantProductId.localeCompare(b.merchantProductId),
  );

describe('pulling a feed', () => {
  it('stores the feed, answers an unchanged one with one conditional request, and counts what changed', async () => {
    const { merchant } = await createMerchantWithKey(app);
    serveJson('/shop1.json', SHELF);
    const source = await addSource(merchant.slug, { kind: 'json', url: `${base}/shop1.json` });
    const first = await pull(source.id);
    expect(first).toMatchObject({ status: 'applied', added: 5, changed: 0, removed: 0 });
    expect((await stored(merchant.id)).map((p) => p.merchantProductId)).toEqual(['A', 'B', 'C', 'D', 'E']);

    const before = hits.get('/shop1.json') ?? 0;
    const again = await pull(source.id);
    expect(again.status).toBe('not_modified');
    expect(hits.get('/shop1.json')).toBe(before + 1);

    serveJson('/shop1.json', [{ ...SHELF[0], price: 89 }, ...SHELF.slice(1)]);
    const changed = await pull(source.id);
    expect(changed).toMatchObject({ status: 'applied', added: 0, changed: 1, removed: 0 });
    expect((await stored(merchant.id))[0]?.price).toBe(89);
  });

  it("stores a feed's accords and notes as an upload's, and counts a change of notes alone", async () => {
    const { merchant } = await createMerchantWithKey(app);
    const own = product('N', 'Layali Al Shams EDP 100ml', {
      house: 'Dar Al Shams',
      accords: ['oud', 'smoky'],
      notes: { top: ['saffron'], base: ['oud', 'frankincense'] },
    });
    serveJson('/notes.json', [own]);
    const source = await addSource(merchant.slug, { kind: 'json', url: `${base}/notes.json` });
    expect(await pull(source.id)).toMatchObject({ status: 'applied', added: 1 });
    const [row] = await stored(merchant.id);
    expect(row).toMatchObject({
      accords: ['oud', 'smoky'],
      notes: { top: ['saffron'], base: ['oud', 'frankincense'] },
    });
    // not in the catalog: its profile comes from the feed's notes, said to be partial
    expect(row?.matchStatus).toBe('partial');
    serveJson('/notes.json', [{ ...own, notes: { top: ['saffron'], heart: ['rose'], base: ['oud'] } }]);
    expect(await pull(source.id)).toMatchObject({ status: 'applied', added: 0, changed: 1 });
    expect((await stored(merchant.id))[0]?.notes).toEqual({ top: ['saffron'], heart: ['rose'], base: ['oud'] });
  });

  it("stores a feed's barcodes, checked, and counts a change of barcode alone", async () => {
    const { merchant } = await createMerchantWithKey(app);
    const own = product('G', 'Layali Al Shams EDP 100ml', { house: 'Dar Al Shams', barcode: '6291100000012' });
    serveJson('/barcodes.json', [own]);
    const source = await addSource(merchant.slug, { kind: 'json', url: `${base}/barcodes.json` });
    expect(await pull(source.id)).toMatchObject({ status: 'applied', added: 1 });
    // its barcode's key, and its listing's spelling (docs/learning.md)
    expect((await stored(merchant.id))[0]).toMatchObject({
      barcode: '6291100000012',
      barcodeKeys: ['06291100000012', expect.stringMatching(/^s:/)],
    });
    serveJson('/barcodes.json', [{ ...own, barcode: '6291100000029' }], '"v2"');
    expect(await pull(source.id)).toMatchObject({ status: 'applied', added: 0, changed: 1 });
    expect((await stored(merchant.id))[0]?.barcode).toBe('6291100000029');
    // a malformed one is ignored, the product kept
    serveJson('/barcodes.json', [{ ...own, barcode: '6291100000027' }], '"v3"');
    expect(await pull(source.id)).toMatchObject({ status: 'applied', changed: 1, rejected: 0 });
    expect((await stored(merchant.id))[0]).toMatchObject({
      barcode: null,
      barcodeKeys: [expect.stringMatching(/^s:/)],
    });
  });

  it('reads a feed with dated sales in full every time: its prices change without the document changing', async () => {
    const { merchant } = await createMerchantWithKey(app);
    const conditional: boolean[] = [];
    routes.set('/dated.xml', (req, res) => {
      conditional.push(req.headers['if-none-match'] !== undefined);
      if (req.headers['if-none-match'] === '"dated"') {
        res.statusCode = 304;
        res.end();
        return;
      }
      res.setHeader('content-type', 'application/rss+xml');
      res.setHeader('etag', '"dated"');
      res.end(
        `<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0"><channel><item><g:id>D1</g:id><g:title>Hawas EDP 100ml</g:title><g:brand>Rasasi</g:brand><g:price>300 SAR</g:price><g:sale_price>240 SAR</g:sale_price><g:sale_price_effective_date>2020-01-01T00:00Z/2099-01-01T00:00Z</g:sale_price_effective_date></item></channel></rss>`,
      );
    });
    const source = await addSource(merchant.slug, { kind: 'google', url: `${base}/dated.xml` });
    expect(await pull(source.id)).toMatchObject({ status: 'applied', added: 1 });
    expect((await stored(merchant.id))[0]).toMatchObject({ price: 300, salePrice: 240 });
    expect((await pull(source.id)).status).toBe('applied');
    expect(conditional).toEqual([false, false]);
  });

  it('keeps the last good products when a pull fails: an error status, a cut connection, a bad body', async () => {
    const { merchant } = await createMerchantWithKey(app);
    serveJson('/shop2.json', SHELF);
    const source = await addSource(merchant.slug, { kind: 'json', url: `${base}/shop2.json` });
    expect((await pull(source.id)).status).toBe('applied');
    const good = await stored(merchant.id);

    routes.set('/shop2.json', (_req, res) => {
      res.statusCode = 500;
      res.end('down');
    });
    expect(await pull(source.id)).toMatchObject({ status: 'failed', error_code: 'feed_http_error' });
    routes.set('/shop2.json', (_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.setHeader('content-length', '100000');
      res.write(JSON.stringify(SHELF).slice(0, 40));
      setTimeout(() => res.destroy(), 20);
    });
    expect((await pull(source.id)).status).toBe('failed');
    routes.set('/shop2.json', (_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end('{"products": [');
    });
    expect((await pull(source.id)).status).toBe('failed');
    expect((await stored(merchant.id)).map((p) => [p.merchantProductId, p.price])).toEqual(
      good.map((p) => [p.merchantProductId, p.price]),
    );
  });

  it('holds a pull that would remove more than the set share, until confirmed', async () => {
    const { merchant } = await createMerchantWithKey(app);
    serveJson('/shop3.json', SHELF);
    const source = await addSource(merchant.slug, { kind: 'json', url: `${base}/shop3.json`, max_removal_share: 0.2 });
    await pull(source.id);
    serveJson('/shop3.json', SHELF.slice(0, 2));
    const held = await pull(source.id);
    expect(held).toMatchObject({ status: 'held', removed: 3, error_code: 'feed_removal_held' });
    expect(await stored(merchant.id)).toHaveLength(5);
    // an empty feed is held too, whatever the share
    serveJson('/shop3.json', []);
    expect((await pull(source.id)).status).toBe('held');
    serveJson('/shop3.json', SHELF.slice(0, 2));
    const confirmed = await pull(source.id, { confirm: true });
    expect(confirmed).toMatchObject({ status: 'applied', removed: 3 });
    expect((await stored(merchant.id)).map((p) => p.merchantProductId)).toEqual(['A', 'B']);
    // one removal within the share needs no confirmation
    serveJson('/shop3.json', SHELF.slice(0, 1));
    const list = await app.inject({ method: 'GET', url: `/api/admin/feeds/${source.id}/pulls`, headers: adminHeaders });
    expect(list.statusCode).toBe(200);
    expect((list.json() as { pulls: { status: string }[] }).pulls.map((p) => p.status)).toEqual([
      'applied',
      'held',
      'held',
      'applied',
    ]);
  });

  it('removes only its own products: what was pushed by the admin sync stays', async () => {
    const { merchant } = await createMerchantWithKey(app);
    await syncProducts(app.db, app.catalog.current(), merchant.id, [product('PUSHED', 'Yara EDP 100ml')]);
    serveJson('/shop4.json', SHELF.slice(0, 4));
    const source = await addSource(merchant.slug, { kind: 'json', url: `${base}/shop4.json`, max_removal_share: 0.5 });
    await pull(source.id);
    serveJson('/shop4.json', SHELF.slice(0, 3));
    expect(await pull(source.id)).toMatchObject({ status: 'applied', removed: 1 });
    expect((await stored(merchant.id)).map((p) => p.merchantProductId)).toEqual(['A', 'B', 'C', 'PUSHED']);
  });

  it('never recommends what the feed says is sold out', async () => {
    const { merchant, key } = await createMerchantWithKey(app);
    serveJson('/shop5.json', [
      product('IN', 'Khamrah EDP 100ml'),
      product('OUT', 'Khamrah Qahwa EDP 100ml', { available: false }),
    ]);
    const source = await addSource(merchant.slug, { kind: 'json', url: `${base}/shop5.json` });
    await pull(source.id);
    const r = await app.inject({
      method: 'POST',
      url: '/api/widget/score',
      payload: { api_key: key, limit: 12, quiz: { families: ['amber', 'gourmand', 'spicy'] } },
      headers: { origin: ORIGIN },
    });
    const ids = [...r.json().recommendations, ...r.json().also_explore].map(
      (x: { merchant_product_id: string }) => x.merchant_product_id,
    );
    expect(ids).toContain('IN');
    expect(ids).not.toContain('OUT');
  });

  it('pulls a Salla store page by page with its access token, in Arabic, and stores what it can read', async () => {
    const { merchant } = await createMerchantWithKey(app);
    const asked: { page: string | null; auth: unknown; lang: unknown }[] = [];
    routes.set('/salla/admin/v2/products', (req, res) => {
      const page = new URL(req.url ?? '/', base).searchParams.get('page');
      asked.push({ page, auth: req.headers.authorization, lang: req.headers['accept-language'] });
      res.setHeader('content-type', 'application/json');
      res.end(readFileSync(join(import.meta.dirname, 'fixtures', 'feeds', `salla-products-page${page}.json`)));
    });
    const source = await addSource(merchant.slug, { kind: 'salla', url: `${base}/salla/admin/v2`, token: 'salla_tok' });
    const result = await pull(source.id);
    // 1007 (a brand id this source cannot name) and 1009 are rejected; 1006 (no brand) is stored with no house;
    // hidden and service products are skipped
    expect(result).toMatchObject({ status: 'applied', added: 6, rejected: 2 });
    expect(asked).toEqual([
      { page: '1', auth: 'Bearer salla_tok', lang: 'ar' },
      { page: '2', auth: 'Bearer salla_tok', lang: 'ar' },
    ]);
    const rows = await stored(merchant.id);
    expect(rows.map((p) => [p.merchantProductId, p.price, p.salePrice, p.available])).toEqual([
      ['1001', 610, null, true],
      ['1002', 800, 720, true],
      ['1003', 180, null, true],
      ['1006', 60, null, true],
      ['1008:edp', 650, null, true],
      ['1008:edt', 560, null, false],
    ]);
    expect(rows.find((p) => p.merchantProductId === '1003')).toMatchObject({ house: 'لطافة' });
    expect(rows.find((p) => p.merchantProductId === '1006')).toMatchObject({ house: '' });
  });

  it('refuses a feed that redirects to a private address, and stores nothing from it', async () => {
    const { merchant } = await createMerchantWithKey(app);
    routes.set('/moved.json', (_req, res) => {
      res.statusCode = 302;
      res.setHeader('location', 'http://10.0.0.1/feed.json');
      res.end();
    });
    const source = await addSource(merchant.slug, { kind: 'json', url: `${base}/moved.json` });
    expect(await pull(source.id)).toMatchObject({ status: 'failed', error_code: 'feed_private_address' });
    expect(await stored(merchant.id)).toHaveLength(0);
  });

  it('tests a source: the first page as it would be read and matched, nothing stored', async () => {
    const { merchant } = await createMerchantWithKey(app);
    serveJson('/shop6.json', [...SHELF.slice(0, 2), { name: 'no id' }]);
    const source = await addSource(merchant.slug, { kind: 'json', url: `${base}/shop6.json` });
    const r = await app.inject({ method: 'POST', url: `/api/admin/feeds/${source.id}/test`, headers: adminHeaders });
    expect(r.statusCode).toBe(200);
    const body = r.json() as {
      ok: boolean;
      products: { merchant_product_id: string; sillage_perfume_id: string | null }[];
      problems: unknown[];
    };
    expect(body.ok).toBe(true);
    expect(body.products.find((p) => p.merchant_product_id === 'A')?.sillage_perfume_id).toBe('lattafa-khamrah-edp');
    expect(body.problems.length + (body as unknown as { rejected: unknown[] }).rejected.length).toBeGreaterThan(0);
    expect(await stored(merchant.id)).toHaveLength(0);
  });

  it('pauses, resumes and removes a source; the runner pulls only what is due and not paused', async () => {
    const { merchant } = await createMerchantWithKey(app);
    serveJson('/shop7.json', SHELF.slice(0, 1));
    const source = await addSource(merchant.slug, { kind: 'json', url: `${base}/shop7.json`, paused: true });
    // other tests' sources may be due too: what matters is that this paused one is not pulled
    await app.feeds.runDue();
    expect(hits.get('/shop7.json') ?? 0).toBe(0);
    const resumed = await app.inject({
      method: 'PATCH',
      url: `/api/admin/feeds/${source.id}`,
      headers: adminHeaders,
      payload: { paused: false },
    });
    expect(resumed.statusCode).toBe(200);
    await app.feeds.runDue();
    expect(hits.get('/shop7.json')).toBe(1);
    // pulled: not due again before its interval
    await app.feeds.runDue();
    expect(hits.get('/shop7.json')).toBe(1);
    expect(await stored(merchant.id)).toHaveLength(1);
    const removed = await app.inject({ method: 'DELETE', url: `/api/admin/feeds/${source.id}`, headers: adminHeaders });
    expect(removed.statusCode).toBe(200);
    expect(await stored(merchant.id)).toHaveLength(1);
    const gone = await app.inject({
      method: 'POST',
      url: `/api/admin/feeds/${source.id}/pull`,
      headers: adminHeaders,
      payload: {},
    });
    expect(gone.statusCode).toBe(404);
  });

  it('refuses a source that is not https (outside the allow-list), or a Shopify Admin or Salla source without its token', async () => {
    const { merchant } = await createMerchantWithKey(app);
    for (const body of [
      { kind: 'json', url: 'ftp://shop.example/feed.json' },
      { kind: 'json', url: 'https://user:pass@shop.example/feed.json' },
      { kind: 'shopify_admin', url: 'https://shop.example' },
      { kind: 'salla', url: 'https://api.salla.dev/admin/v2' },
      { kind: 'rss', url: 'https://shop.example/feed.xml' },
    ]) {
      const r = await app.inject({
        method: 'POST',
        url: `/api/admin/merchants/${merchant.slug}/feeds`,
        headers: adminHeaders,
        payload: body,
      });
      expect(r.statusCode, JSON.stringify(body)).toBe(400);
    }
  });
});

describe('the admin CLI', () => {
  it('adds, lists, pulls and pauses a feed', async () => {
    const { merchant } = await createMerchantWithKey(app);
    serveJson('/cli.json', SHELF.slice(0, 2));
    const cli = async (...argv: string[]) => {
      let out = '';
      const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
        out += String(chunk);
        return true;
      });
      try {
        const code = await run(
          argv,
          testConfig({ REDIS_URL: undefined, FEED_ALLOW_PRIVATE_HOSTS: '127.0.0.1' }),
          app.database,
        );
        return { code, out };
      } finally {
        spy.mockRestore();
      }
    };
    const added = await cli('feeds:add', merchant.slug, '--kind', 'json', '--url', `${base}/cli.json`, '--json');
    expect(added.code).toBe(0);
    const id = (JSON.parse(added.out) as { id: string }).id;
    const pulled = await cli('feeds:pull', id);
    expect(pulled.code).toBe(0);
    expect(pulled.out).toMatch(/applied/);
    expect((await cli('feeds:list', merchant.slug)).out).toMatch(/applied/);
    expect((await cli('feeds:pause', id, '--json')).out).toMatch(/"paused": true/);
    expect(await stored(merchant.id)).toHaveLength(2);
  });
});

describe.runIf(TEST_DATABASE_URL)('several instances on one PostgreSQL', () => {
  it('claim each due feed once', async () => {
    const { database, url, drop } = await createTestDatabase();
    await database.migrate();
    const merchant = await createMerchant(database.db, { name: 'Claims', slug: 'claims' });
    const source = await createSource(database.db, app.leadCipher, merchant.id, {
      kind: 'json',
      url: 'https://shop.example/feed.json',
    });
    const others = await Promise.all(
      Array.from({ length: 3 }, () => createDatabase({ database: { kind: 'postgres', url: url as string } })),
    );
    try {
      const claims = await Promise.all(
        [database, ...others].map((d) => claimSource(d.db, source.id, 60_000, { due: true })),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
      // claimed: not due for another scheduled pull until the claim lapses
      expect(await claimSource(database.db, source.id, 60_000, { due: true })).toBe(false);
    } finally {
      await Promise.all([database, ...others].map((o) => o.close()));
      await drop();
    }
  });

  it('two instances pull each feed once per interval, through the job queue', async () => {
    const { database, url, drop } = await createTestDatabase();
    const second = await createDatabase({ database: { kind: 'postgres', url: url as string } });
    const instances: Awaited<ReturnType<typeof buildApp>>[] = [];
    try {
      for (const d of [database, second]) {
        const a = await buildApp({
          config: testConfig({ FEED_ALLOW_PRIVATE_HOSTS: '127.0.0.1' }),
          database: d,
          logger: false,
        });
        await a.ready();
        instances.push(a);
      }
      const [one, two] = instances as [typeof app, typeof app];
      expect(one.jobs.kind).toBe('pg-boss');
      const merchant = await createMerchant(one.db, { name: 'Twice', slug: 'twice' });
      serveJson('/twice.json', SHELF.slice(0, 2));
      const source = await createSource(one.db, one.leadCipher, merchant.id, {
        kind: 'json',
        url: `${base}/twice.json`,
      });
      // both instances dispatch at once (as both timers would), several times over
      await Promise.all([one, two, one, two].map((a) => a.jobs.send('feeds.dispatch', {})));
      await one.jobs.drain();
      await Promise.all([one, two].map((a) => a.feeds.runDue()));
      expect(hits.get('/twice.json')).toBe(1);
      const pulls = () => one.db.select().from(feedPulls).where(eq(feedPulls.sourceId, source.id));
      expect(await pulls()).toHaveLength(1);
      expect(
        (await one.db.select().from(merchantProducts).where(eq(merchantProducts.merchantId, merchant.id))).length,
      ).toBe(2);
      // the interval passes: due again, pulled once more (a conditional request), by one instance
      await one.db
        .update(feedSources)
        .set({ nextPullAt: sql`now() - interval '1 second'` })
        .where(eq(feedSources.id, source.id));
      await Promise.all([one, two].map((a) => a.feeds.runDue()));
      expect(hits.get('/twice.json')).toBe(2);
      expect(await pulls()).toHaveLength(2);
    } finally {
      for (const a of instances) await a.close();
      if (instances.length < 2) await second.close().catch(() => {});
      if (instances.length < 1) await database.close().catch(() => {});
      await drop();
    }
  });
});

describe('in the merchant console', () => {
  it('lists the feeds with their last pull, pulls one now, applies a held one, and refuses another shop’s', async () => {
    const { merchant } = await createMerchantWithKey(app);
    const other = await createMerchantWithKey(app);
    await createConsoleUser(app.db, {
      email: `owner@${merchant.slug}.example`,
      password: PASSWORD,
      role: 'owner',
      merchant: merchant.id,
    });
    serveJson('/console.json', SHELF);
    const source = await addSource(merchant.slug, { kind: 'json', url: `${base}/console.json` });
    serveJson('/theirs.json', SHELF);
    const theirs = await addSource(other.merchant.slug, { kind: 'json', url: `${base}/theirs.json` });
    const b = new Browser(app, '10.9.0.1');
    await b.signIn(`owner@${merchant.slug}.example`);
    const page = await b.get(`/console/m/${merchant.slug}/install?lang=en`);
    expect(page.body).toContain(`${base}/console.json`);
    const pulled = await b.post(`/console/m/${merchant.slug}/feeds/pull`, { feed: source.id });
    expect(pulled.statusCode).toBe(303);
    expect(pulled.headers.location).toContain('s=applied');
    expect((await b.get(String(pulled.headers.location))).body).toContain('Feed pulled: applied.');
    expect(await stored(merchant.id)).toHaveLength(5);
    serveJson('/console.json', SHELF.slice(0, 1));
    await b.post(`/console/m/${merchant.slug}/feeds/pull`, { feed: source.id });
    const held = await b.get(`/console/m/${merchant.slug}/install`);
    expect(held.body).toContain('data-pull="held"');
    expect(held.body).toContain('name="confirm" value="1"');
    const applied = await b.post(`/console/m/${merchant.slug}/feeds/pull`, { feed: source.id, confirm: '1' });
    expect(applied.headers.location).toContain('s=applied');
    expect(await stored(merchant.id)).toHaveLength(1);
    const foreign = await b.post(`/console/m/${merchant.slug}/feeds/pull`, { feed: theirs.id });
    expect(foreign.statusCode).toBe(404);
    expect(hits.get('/theirs.json') ?? 0).toBe(0);
  });
});

describe('each format, pulled over HTTP from fixtures written from its documentation', () => {
  const fixture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', 'feeds', name), 'utf8');
  const serveFile = (path: string, name: string, type: string) =>
    routes.set(path, (req, res) => {
      res.setHeader('content-type', type);
      // a paged API's pages after the first are empty here
      const page = new URL(req.url ?? '/', base).searchParams.get('page');
      if (page && page !== '1')
        res.end(type.includes('json') ? (name.startsWith('shopify') ? '{"products":[]}' : '[]') : '');
      else res.end(fixture(name));
    });

  it.each([
    ['shopify', '/', '/products.json', 'shopify-products.json', 'application/json'],
    [
      'woocommerce',
      '/woo-shop',
      '/woo-shop/wp-json/wc/store/v1/products',
      'woocommerce-products-ar.json',
      'application/json',
    ],
    ['google', '/feeds/google.xml', '/feeds/google.xml', 'google-feed.rss.xml', 'application/rss+xml; charset=utf-8'],
    ['google', '/feeds/google.atom', '/feeds/google.atom', 'google-feed.atom.xml', 'application/atom+xml'],
    [
      'google',
      '/feeds/salla.tsv',
      '/feeds/salla.tsv',
      'google-feed-salla.tsv',
      'text/tab-separated-values; charset=utf-8',
    ],
  ])(
    '%s at %s: stored with sizes and availability, the sold out never recommended',
    async (kind, url, path, name, type) => {
      const { merchant, key } = await createMerchantWithKey(app);
      serveFile(path, name, type);
      // a shop is its origin: its listing's path is the connector's
      const source = await addSource(merchant.slug, { kind, url: `${base}${url}` });
      const p = await pull(source.id);
      expect(p.status, p.error ?? '').toBe('applied');
      const rows = await stored(merchant.id);
      expect(rows.length).toBe(p.added);
      expect(rows.length).toBeGreaterThan(1);
      expect(rows.some((r) => (r.sizes?.length ?? 0) > 0)).toBe(true);
      const soldOut = rows.filter((r) => !r.available).map((r) => r.merchantProductId);
      const score = await app.inject({
        method: 'POST',
        url: '/api/widget/score',
        payload: { api_key: key, limit: 24, quiz: { families: ['amber', 'woody', 'floral', 'fresh', 'oud'] } },
        headers: { origin: ORIGIN },
      });
      const shown = [...score.json().recommendations, ...score.json().also_explore].map(
        (x: { merchant_product_id: string }) => x.merchant_product_id,
      );
      for (const id of soldOut) expect(shown).not.toContain(id);
    },
  );

  it('a feed that never ends fails at its cap, and nothing is stored from it', async () => {
    const { merchant } = await createMerchantWithKey(app);
    routes.set('/endless.xml', (_req, res) => {
      res.setHeader('content-type', 'application/rss+xml');
      res.write('<rss xmlns:g="http://base.google.com/ns/1.0"><channel>');
      const item = '<item><g:id>x</g:id><g:title>Khamrah EDP</g:title><g:brand>Lattafa</g:brand></item>'.repeat(200);
      const more = () => {
        if (res.destroyed) return;
        if (res.write(item)) setImmediate(more);
        else res.once('drain', more);
      };
      more();
    });
    const source = await addSource(merchant.slug, { kind: 'google', url: `${base}/endless.xml` });
    expect(await pull(source.id)).toMatchObject({ status: 'failed', error_code: 'feed_too_large' });
    expect(await stored(merchant.id)).toHaveLength(0);
  });
});
