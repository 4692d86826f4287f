import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KEY_CACHE_TTL_MS } from '../../auth/key-store.ts';
import { wordMaker } from '../../bench/heavy-rows.ts';
import { work } from '../../catalog/search.ts';
import { isEmbedded } from '../../db/client.ts';
import { WOO_PAGE_SIZE } from '../../feeds/woocommerce.ts';
import { LISTING_SLICE } from '../../plugins/app/inline-matcher.ts';
import { merchantProducts } from '../../schema/index.ts';
import { createConsoleUser } from '../../services/console-users.ts';
import { pullSource } from '../../services/feeds.ts';
import { Browser, PASSWORD } from '../console-session.ts';
import { adminHeaders, buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from '../helper.ts';

/**
 * The attack run's fake WooCommerce store (issue 44, finding 3): a Store API of products named with
 * 24 made-up words and described in 4,000 characters of made-up words. Matching them is heavy work
 * (about 3 ms a product); whatever starts it — a pull (scheduled, the admin API's or the console's
 * "pull now"), a feed's test, a product sync through the admin API, a platform's product webhook, a
 * rematch, a page of products explained (the shelf, the admin list) — it runs on the matcher's
 * worker thread, a slice at a time, never on the event loop
 * every shop is answered on. Counted with the matcher's work counter (catalog/search.ts `work`,
 * this thread's only), not with time.
 */
let app: TestApp;
let shop: Server;
let base: string;
/** the stores' products by path (`/<store>/wp-json/wc/store/v1/products`); a page served calls `onPage` */
const stores = new Map<string, unknown[]>();
let onPage: (store: string, page: number) => void = () => {};

beforeAll(async () => {
  shop = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://local');
    const store = /^\/([\w-]+)\/wp-json\/wc\/store\/v1\/products$/.exec(url.pathname)?.[1];
    const products = store ? stores.get(store) : undefined;
    if (!store || !products) {
      res.statusCode = 404;
      res.end('{}');
      return;
    }
    const page = Number(url.searchParams.get('page') ?? '1');
    const pages = Math.max(1, Math.ceil(products.length / WOO_PAGE_SIZE));
    res.setHeader('content-type', 'application/json');
    res.setHeader('x-wp-totalpages', String(pages));
    res.end(JSON.stringify(products.slice((page - 1) * WOO_PAGE_SIZE, page * WOO_PAGE_SIZE)));
    onPage(store, page);
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
  app = await buildTestApp({ REDIS_URL: undefined, ADDRESS_RATE_LIMIT: '0', FEED_ALLOW_PRIVATE_HOSTS: '127.0.0.1' });
}, 120_000);
afterAll(async () => {
  await closeTestApp(app);
  shop.closeAllConnections();
  await new Promise((resolve) => shop.close(resolve));
});

let seed = 11;
/** `count` of the attack's products, every text new (no cache of either thread helps), and a few real perfumes */
function fakeStore(count: number) {
  const word = wordMaker(++seed * 7919);
  const woo = (id: number, name: string, brand: string, description: string) => ({
    id,
    name,
    type: 'simple',
    permalink: `https://fake.example/p/${id}`,
    description: `<p>${description}</p>`,
    prices: {
      price: '15000',
      regular_price: '15000',
      sale_price: '15000',
      currency_code: 'SAR',
      currency_minor_unit: 2,
    },
    is_in_stock: true,
    is_purchasable: true,
    images: [],
    brands: [{ id: 1, name: brand }],
  });
  const real = [
    woo(1, 'Khamrah EDP 100ml', 'Lattafa', 'Warm and spicy.'),
    woo(2, 'Sauvage Eau de Parfum 100ml', 'Dior', 'Fresh and spicy.'),
    woo(3, 'Asad EDP', 'Lattafa', 'Pepper and amber.'),
  ];
  const heavy = Array.from({ length: count }, (_, i) => {
    let description = '';
    while (description.length < 4000) description += `${word(9)} `;
    return woo(
      100 + i,
      Array.from({ length: 24 }, () => word(11))
        .join(' ')
        .slice(0, 300),
      'Lattafa',
      description.slice(0, 3990).trim(),
    );
  });
  return [...real, ...heavy];
}

/** this thread's matching work while `fn` runs */
async function mainThreadWork(fn: () => Promise<unknown>) {
  const before = { ...work };
  await fn();
  return {
    cells: work.cells - before.cells,
    variants: work.variants - before.variants,
    postings: work.postings - before.postings,
  };
}
const NONE = { cells: 0, variants: 0, postings: 0 };

async function fakeStoreSource(count: number) {
  const { merchant } = await createMerchantWithKey(app);
  const store = `fake-${seed}-${merchant.id.slice(0, 8)}`;
  stores.set(store, fakeStore(count));
  const r = await app.inject({
    method: 'POST',
    url: `/api/admin/merchants/${merchant.id}/feeds`,
    headers: adminHeaders,
    payload: { kind: 'woocommerce', url: `${base}/${store}`, paused: true },
  });
  expect(r.statusCode, r.body).toBe(201);
  return { merchant, store, source: r.json() as { id: string } };
}

const pull = (id: string) =>
  app.inject({ method: 'POST', url: `/api/admin/feeds/${id}/pull`, headers: adminHeaders, payload: {} });

/** what a merchant's stored products were matched to */
const matches = async (merchantId: string) =>
  (await app.db.select().from(merchantProducts).where(eq(merchantProducts.merchantId, merchantId)))
    .map((p) => [p.merchantProductId, p.matchStatus, p.sillagePerfumeId, p.matchConfidence, p.matchReason, p.profile])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));

describe("a fake store's feed is matched off the event loop", () => {
  it('a pull of its worst-case products does no matching work on this thread, and stores what matching here stores', async () => {
    const { merchant, store, source } = await fakeStoreSource(LISTING_SLICE * 2 + 7);
    let answer: Awaited<ReturnType<typeof pull>> | undefined;
    expect(
      await mainThreadWork(async () => {
        answer = await pull(source.id);
      }),
    ).toEqual(NONE);
    expect(answer?.statusCode, answer?.body).toBe(200);
    expect(answer?.json()).toMatchObject({ status: 'applied', added: LISTING_SLICE * 2 + 10, rejected: 0 });

    // the same feed matched on this thread (as pulls were before), for another merchant: the same matches
    const other = await createMerchantWithKey(app);
    const r = await app.inject({
      method: 'POST',
      url: `/api/admin/merchants/${other.merchant.id}/feeds`,
      headers: adminHeaders,
      payload: { kind: 'woocommerce', url: `${base}/${store}`, paused: true },
    });
    const here = await pullSource(
      app.db,
      app.catalog.current(),
      app.leadCipher,
      (r.json() as { id: string }).id,
      app.feeds.fetchPage,
    );
    expect(here.pull).toMatchObject({ status: 'applied', added: LISTING_SLICE * 2 + 10 });
    const stored = await matches(merchant.id);
    expect(stored).toEqual(await matches(other.merchant.id));
    expect(stored.filter((p) => p[1] === 'matched').map((p) => p[0])).toEqual(['1', '2', '3']);

    // pulled again: compared with what is stored, nothing changed, still no work here
    expect(
      await mainThreadWork(async () => {
        answer = await pull(source.id);
      }),
    ).toEqual(NONE);
    expect(answer?.json()).toMatchObject({ status: 'applied', added: 0, changed: 0, removed: 0 });
  });

  it("a feed's test (its first page, recognised) does no matching work on this thread", async () => {
    const { source } = await fakeStoreSource(20);
    let answer: Awaited<ReturnType<typeof pull>> | undefined;
    expect(
      await mainThreadWork(async () => {
        answer = await app.inject({ method: 'POST', url: `/api/admin/feeds/${source.id}/test`, headers: adminHeaders });
      }),
    ).toEqual(NONE);
    expect(answer?.statusCode, answer?.body).toBe(200);
    expect(answer?.json()).toMatchObject({ ok: true, rows: 23 });
  });

  it("a product sync through the admin API, a platform's product webhook and a rematch do no matching work on this thread", async () => {
    const { merchant, source } = await fakeStoreSource(0);
    const word = wordMaker(++seed * 7919);
    const name = () =>
      Array.from({ length: 24 }, () => word(11))
        .join(' ')
        .slice(0, 300);
    const products = Array.from({ length: LISTING_SLICE + 5 }, (_, i) => ({
      merchant_product_id: `s${i}`,
      name: name(),
      house: 'Lattafa',
      price: 100,
    }));
    let answer: Awaited<ReturnType<typeof pull>> | undefined;
    expect(
      await mainThreadWork(async () => {
        answer = await app.inject({
          method: 'PUT',
          url: `/api/admin/merchants/${merchant.id}/products`,
          headers: adminHeaders,
          payload: { products: [...products, { ...products[0] }, { name: 'no id' }] },
        });
      }),
    ).toEqual(NONE);
    expect(answer?.statusCode, answer?.body).toBe(200);
    // the repeated row and the row without an id are named by their place in the feed, as before
    expect(answer?.json()).toMatchObject({
      received: LISTING_SLICE + 7,
      upserted: LISTING_SLICE + 5,
      rejected: 2,
      rejections: [
        {
          index: LISTING_SLICE + 5,
          merchant_product_id: 's0',
          reason: 'merchant_product_id appears twice in the list',
        },
        { index: LISTING_SLICE + 6 },
      ],
    });

    // every platform's product webhook stores a product through replaceProduct
    const row = {
      merchant_product_id: 'w1',
      name: name(),
      house: 'Lattafa',
      price: 100,
      sale_price: null,
      currency: 'SAR',
      available: true,
      sizes: [],
      image_url: null,
      product_url: null,
      description: 'x '.repeat(1500),
      categories: [],
    };
    expect(
      await mainThreadWork(() =>
        app.platforms.replaceProduct({ merchantId: merchant.id, feedSourceId: source.id }, 'w1', [row]),
      ),
    ).toEqual(NONE);
    expect((await matches(merchant.id)).map((p) => p[0])).toContain('w1');

    expect(
      await mainThreadWork(async () => {
        answer = await app.inject({
          method: 'POST',
          url: `/api/admin/merchants/${merchant.id}/products/rematch`,
          headers: adminHeaders,
        });
      }),
    ).toEqual(NONE);
    expect(answer?.statusCode, answer?.body).toBe(200);
    expect(answer?.json()).toMatchObject({ checked: LISTING_SLICE + 6, changed: 0 });
  });

  it('a page of the shelf, an accept of its suggestions and the admin product list explain their products off the event loop', async () => {
    const { merchant } = await fakeStoreSource(0);
    await createConsoleUser(app.db, {
      email: `owner@${merchant.slug}.example`,
      password: PASSWORD,
      role: 'owner',
      merchant: merchant.id,
    });
    const word = wordMaker(++seed * 7919);
    const products = Array.from({ length: LISTING_SLICE + 5 }, (_, i) => ({
      merchant_product_id: `e${i}`,
      name: Array.from({ length: 24 }, () => word(11))
        .join(' ')
        .slice(0, 300),
      house: 'Lattafa',
      price: 100,
    }));
    const synced = await app.inject({
      method: 'PUT',
      url: `/api/admin/merchants/${merchant.id}/products`,
      headers: adminHeaders,
      payload: { products },
    });
    expect(synced.statusCode, synced.body).toBe(200);

    let answer: Awaited<ReturnType<typeof pull>> | undefined;
    expect(
      await mainThreadWork(async () => {
        answer = await app.inject({
          method: 'GET',
          url: `/api/admin/merchants/${merchant.id}/products?limit=1000`,
          headers: adminHeaders,
        });
      }),
    ).toEqual(NONE);
    expect(answer?.statusCode, answer?.body).toBe(200);
    const listed = (answer?.json() as { products: { explanation: { parsed: { words: string[] } } }[] } | undefined)
      ?.products;
    expect(listed).toHaveLength(LISTING_SLICE + 5);
    expect(listed?.[0]?.explanation.parsed.words.length).toBeGreaterThan(10);

    const owner = new Browser(app, '10.44.3.1');
    expect((await owner.signIn(`owner@${merchant.slug}.example`)).statusCode).toBe(303);
    let page: Awaited<ReturnType<Browser['get']>> | undefined;
    expect(
      await mainThreadWork(async () => {
        page = await owner.get(`/console/m/${merchant.slug}/shelf`);
      }),
    ).toEqual(NONE);
    expect(page?.statusCode).toBe(200);
    let accepted: Awaited<ReturnType<Browser['post']>> | undefined;
    expect(
      await mainThreadWork(async () => {
        accepted = await owner.post(`/console/m/${merchant.slug}/shelf/accept`, {
          accept: products.slice(0, 20).map((p) => p.merchant_product_id),
        });
      }),
    ).toEqual(NONE);
    expect(accepted?.statusCode).toBe(303);
  });

  it("another shop's inline catalog sent while a pull is being matched is matched between two of the pull's slices", async () => {
    const { source, store } = await fakeStoreSource(LISTING_SLICE * 6);
    const { key } = await createMerchantWithKey(app, { origins: ['https://shop.example'] });
    const order: string[] = [];
    let inline: Promise<void> | undefined;
    // once the last page is read, the pull's slices are matched: the inline catalog comes then
    onPage = (s, page) => {
      if (s !== store || page < Math.ceil((LISTING_SLICE * 6 + 3) / WOO_PAGE_SIZE)) return;
      inline = new Promise((r) => setTimeout(r, 50))
        .then(() =>
          app.inject({
            method: 'POST',
            url: '/api/widget/score',
            headers: { origin: 'https://shop.example' },
            payload: {
              api_key: key,
              quiz: { families: ['oud'] },
              catalog_mode: 'inline',
              inline_catalog: [{ merchant_product_id: 'k', name: 'Khamrah', house: 'Lattafa', price: 120 }],
            },
          }),
        )
        .then((r) => {
          order.push(`inline ${r.statusCode}`);
        });
    };
    const pulled = pull(source.id).then((r) => {
      order.push(`pull ${r.statusCode} ${(r.json() as { status: string }).status}`);
    });
    await pulled;
    await inline;
    onPage = () => {};
    expect(order).toEqual(['inline 200', 'pull 200 applied']);
  }, 60_000);
});

describe("another shop's score during a pull's store step (issue 44)", () => {
  it('is answered while the pull holds the database, its key and products not waited for', async () => {
    // another shop, its products synced and its key and products known to this instance (a score answered)
    const other = await createMerchantWithKey(app);
    const synced = await app.inject({
      method: 'PUT',
      url: `/api/admin/merchants/${other.merchant.id}/products`,
      headers: adminHeaders,
      payload: { products: [{ merchant_product_id: 'k', name: 'Khamrah EDP 100ml', house: 'Lattafa', price: 120 }] },
    });
    expect(synced.statusCode, synced.body).toBe(200);
    const score = () =>
      app.inject({
        method: 'POST',
        url: '/api/widget/score',
        headers: { origin: 'https://shop.example' },
        payload: { api_key: other.key, quiz: { families: ['oud'] } },
      });
    expect((await score()).statusCode).toBe(200);
    // the sync's background learning (docs/learning.md) done first: its transaction is not the one held below
    await app.learning.runDue();

    // the fake store's pull, its store step held open (every write done, not yet committed)
    const { source } = await fakeStoreSource(LISTING_SLICE);
    const db = app.db as typeof app.db & { transaction: typeof app.db.transaction };
    const transaction = db.transaction;
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    const storing = new Promise<void>((entered) => {
      db.transaction = ((fn: Parameters<typeof transaction>[0]) => {
        db.transaction = transaction;
        return transaction.call(db, async (tx) => {
          const value = await fn(tx);
          entered();
          await held;
          return value;
        });
      }) as typeof transaction;
    });
    let pulled = false;
    const pulling = pull(source.id).then((r) => {
      pulled = true;
      return r;
    });
    try {
      await storing;
      // the shop keeps being served past its key's lifetime (from its first answer now): the key is
      // read again meanwhile, and on the embedded database that read waits for the pull
      const answers = [await score()];
      const resolve = vi.spyOn(app.keyStore, 'resolve');
      for (let waited = 0; waited <= KEY_CACHE_TTL_MS; waited += KEY_CACHE_TTL_MS / 5) {
        answers.push(await score());
        await new Promise((r) => setTimeout(r, KEY_CACHE_TTL_MS / 5));
      }
      let read = false;
      void app.db.execute(sql`select 1`).then(() => (read = true));
      answers.push(...(await Promise.all(Array.from({ length: 10 }, score))));
      expect(answers.map((a) => a.statusCode)).toEqual(Array(17).fill(200));
      expect(resolve).not.toHaveBeenCalled(); // no score waited for its key
      resolve.mockRestore();
      expect(pulled).toBe(false);
      if (isEmbedded(app.db)) expect(read).toBe(false); // the pull held the whole database meanwhile
    } finally {
      db.transaction = transaction;
      release();
    }
    const done = await pulling;
    expect(done.statusCode, done.body).toBe(200);
    expect((done.json() as { status: string }).status).toBe('applied');
  }, 60_000);
});
