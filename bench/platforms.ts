/**
 * The platforms' apps against the simulated platforms of the tests (tests/salla-sim.ts,
 * tests/zid-sim.ts, tests/shopify-sim.ts):
 *   npm run bench -- salla
 *   npm run bench -- zid
 *   npm run bench -- shopify
 * A store of 2,000 products (BENCH_PLATFORM_PRODUCTS), 65% named after perfumes of the shipped
 * catalog as shops write them, the rest made up (bench/feeds.ts's shop). For each round and
 * database (in-memory PGlite; PostgreSQL too when BENCH_DATABASE_URL is set), a new service
 * listening on loopback:
 * - install: Salla's signed `app.store.authorize` posted over HTTP; for Zid, the merchant's way
 *   through the OAuth code flow (the install route, Zid's authorize, the callback), and for Shopify
 *   the same from the admin's signed link (products read through the Admin GraphQL API); the time until
 *   it is answered, until the import is stored, and until the widget's score answer recommends the
 *   store's products;
 * - burst: 1,000 webhooks (BENCH_PLATFORM_BURST), 32 at a time over HTTP: Salla's signed
 *   `product.updated`, Zid's `order.create`, Shopify's signed `orders/create` (a product webhook of Zid's is read again from Zid,
 *   within its 60 calls a minute per store: a burst of them is worked at that pace by design);
 *   acknowledgement latency (p50, p99), then the time until every one is worked, and how many
 *   were worked more than once.
 * BENCH_ROUNDS rounds (3); medians.
 */
import { sql } from 'drizzle-orm';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { createDatabase, type Database } from '../db/client.ts';
import { createScratchDatabase } from '../db/scratch.ts';
import { freePort } from '../tests/cluster.ts';
import { SallaSimulator } from '../tests/salla-sim.ts';
import { ShopifySimulator } from '../tests/shopify-sim.ts';
import { cookieOf, ZidSimulator } from '../tests/zid-sim.ts';
import { shopProducts } from './feeds.ts';
import { fmt, median, quantile } from './stats.ts';

const PRODUCTS = Number(process.env.BENCH_PLATFORM_PRODUCTS ?? process.env.BENCH_SALLA_PRODUCTS ?? 2000);
const BURST = Number(process.env.BENCH_PLATFORM_BURST ?? process.env.BENCH_SALLA_BURST ?? 1000);
const SECRET = 'bench-salla-webhook-secret-0123';
const LEAD_KEY = 'ab'.repeat(32);

const rows = (r: unknown) =>
  (Array.isArray(r) ? r : ((r as { rows?: unknown[] }).rows ?? [])) as Record<string, unknown>[];

type App = Awaited<ReturnType<typeof buildApp>>;

/** One platform's side of a round: its settings, how a store installs, and the burst's requests. */
interface PlatformRun {
  env: Record<string, string>;
  origin: string;
  /** the store installs; answers how long until the service answered */
  install(address: string): Promise<number>;
  /** the burst: each request to post, and the event the stored rows of the burst have */
  burst(address: string): { requests: { url: string; headers: Record<string, string>; body: string }[]; event: string };
}

/** Timed POST of one webhook; throws unless it is answered 200. */
async function post(r: { url: string; headers: Record<string, string>; body: string }) {
  const t = performance.now();
  const res = await fetch(r.url, { method: 'POST', headers: r.headers, body: r.body });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`webhook answered ${res.status}`);
  return performance.now() - t;
}

/** Waits until the store's first import is applied; answers its merchant's live key. */
async function importDone(app: App, store: string, t0: number): Promise<string> {
  for (;;) {
    const [install] = rows(
      await app.db.execute(sql`select merchant_id, publishable_key from platform_installs where store_id = ${store}`),
    );
    if (install) {
      const [pull] = rows(
        await app.db.execute(
          sql`select status, added from feed_pulls where merchant_id = ${install.merchant_id as string} order by started_at desc limit 1`,
        ),
      );
      if (pull?.status === 'applied' && Number(pull.added) > 0) return install.publishable_key as string;
    }
    if (performance.now() - t0 > 180_000) throw new Error('the import did not finish in 3 minutes');
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function round(run: PlatformRun, store: string, database: Database) {
  const port = await freePort();
  const config = loadConfig({
    DATABASE_URL: 'memory:',
    LOG_LEVEL: 'silent',
    SEED_DEMO: 'false',
    LEAD_ENCRYPTION_KEY: LEAD_KEY,
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    ...run.env,
  });
  const app = await buildApp({ config, database, logger: false });
  await app.ready();
  const address = await app.listen({ port, host: '127.0.0.1' });
  try {
    // install → import → recommendation
    const t0 = performance.now();
    const ackMs = await run.install(address);
    const key = await importDone(app, store, t0);
    const storedMs = performance.now() - t0;
    const score = await fetch(`${address}/api/widget/score`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: run.origin },
      body: JSON.stringify({ api_key: key, limit: 6, quiz: { families: ['amber', 'woody'] } }),
    });
    const answer = (await score.json()) as { recommendations?: unknown[] };
    const firstRecoMs = performance.now() - t0;
    const recommended = answer.recommendations?.length ?? 0;

    // a burst of webhooks, 32 at a time
    const { requests, event } = run.burst(address);
    const latencies: number[] = [];
    const tb = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < requests.length) {
          const h = requests[next++];
          if (h) latencies.push(await post(h));
        }
      }),
    );
    const ackAllMs = performance.now() - tb;
    await app.jobs.drain(600_000);
    const workedMs = performance.now() - tb;
    const [done] = rows(
      await app.db.execute(
        sql`select count(*) filter (where status = 'done')::int as done, count(*) filter (where attempts > 1)::int as twice from platform_webhooks where event = ${event}`,
      ),
    );
    return {
      ackMs,
      storedMs,
      firstRecoMs,
      recommended,
      burstP50: quantile(latencies, 0.5),
      burstP99: quantile(latencies, 0.99),
      ackAllMs,
      workedMs,
      done: Number(done?.done),
      twice: Number(done?.twice),
    };
  } finally {
    await app.close();
  }
}

/** The Salla side: Easy Mode's authorize webhook installs; the burst is signed product updates. */
function sallaRun(sim: SallaSimulator, store: number): PlatformRun {
  const signed = (address: string, hook: { body: string; signature: string }) => ({
    url: `${address}/api/platforms/salla/webhook`,
    headers: { 'content-type': 'application/json', 'x-salla-signature': hook.signature },
    body: hook.body,
  });
  return {
    env: sim.env(SECRET),
    origin: `https://store-${store}.sim.example`,
    install: (address) => post(signed(address, sim.authorize(store, SECRET))),
    burst(address) {
      const ids = [...(sim.stores.get(store)?.products.keys() ?? [])];
      const requests = Array.from({ length: BURST }, (_, i) =>
        signed(
          address,
          sim.webhook(
            'product.updated',
            store,
            { id: ids[i % ids.length] },
            SECRET,
            new Date(Date.UTC(2026, 0, 1, 0, 0, 0, i)),
          ),
        ),
      );
      return { requests, event: 'product.updated' };
    },
  };
}

/** The Zid side: the merchant's way through the OAuth code flow installs; the burst is orders. */
function zidRun(sim: ZidSimulator, store: number): PlatformRun {
  return {
    env: sim.env(),
    origin: `https://store-${store}.zid.sim.example`,
    async install(address) {
      const t = performance.now();
      sim.installing = store;
      const step = async (what: string, url: string, init: RequestInit) => {
        try {
          return await fetch(url, { redirect: 'manual', ...init });
        } catch (err) {
          throw new Error(
            `the install's ${what} (${url}) failed: ${err instanceof Error ? `${err.message} ${String(err.cause)}` : err}`,
          );
        }
      };
      const start = await step('start', `${address}/console/zid/install`, {});
      const state = cookieOf(start.headers.getSetCookie(), 'zid_oauth_state') as string;
      const authorize = await step("Zid's authorize", start.headers.get('location') as string, {});
      const callback = await step('callback', authorize.headers.get('location') as string, {
        headers: { cookie: state },
      });
      if (callback.status !== 303) throw new Error(`the install callback answered ${callback.status}`);
      return performance.now() - t;
    },
    burst(address) {
      const ids = [...(sim.stores.get(store)?.products.keys() ?? [])];
      const requests = Array.from({ length: BURST }, (_, i) => {
        const hook = sim.webhook(
          store,
          'order.create',
          sim.order(store, 900_000 + i, [{ product: ids[i % ids.length] as string, price: 250 }]),
        );
        return { url: `${address}${hook.url}`, headers: hook.headers, body: hook.payload };
      });
      return { requests, event: 'order.create' };
    },
  };
}

/** The Shopify side: the admin's signed link, Shopify's consent and the callback install; the burst is orders. */
function shopifyRun(sim: ShopifySimulator, handle: string): PlatformRun {
  return {
    env: sim.env(),
    origin: `https://${handle}.sim.example`,
    async install(address) {
      const t = performance.now();
      const start = await fetch(`${address}/console/shopify/install?${sim.adminQuery(handle)}`, { redirect: 'manual' });
      const state = cookieOf(start.headers.getSetCookie(), 'shopify_oauth_state') as string;
      const consent = await fetch(start.headers.get('location') as string, { redirect: 'manual' });
      const callback = await fetch(consent.headers.get('location') as string, {
        redirect: 'manual',
        headers: { cookie: state },
      });
      if (callback.status !== 303) throw new Error(`the install callback answered ${callback.status}`);
      return performance.now() - t;
    },
    burst(address) {
      const ids = [...(sim.shops.get(handle)?.products.keys() ?? [])];
      const requests = Array.from({ length: BURST }, (_, i) => {
        const hook = sim.webhook(
          handle,
          'orders/create',
          sim.order(9_000_000 + i, [{ product: ids[i % ids.length] as number, price: 250 }]),
        );
        return { url: `${address}${hook.url}`, headers: hook.headers, body: hook.payload };
      });
      return { requests, event: 'orders/create' };
    },
  };
}

async function runPlatformBench(
  platform: 'salla' | 'zid' | 'shopify',
  log: (s: string) => void,
): Promise<Record<string, Awaited<ReturnType<typeof round>>[]>> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const shop = shopProducts(PRODUCTS, 11);
  const salla = platform === 'salla' ? await new SallaSimulator().start() : null;
  const zid = platform === 'zid' ? await new ZidSimulator().start() : null;
  const shopify = platform === 'shopify' ? await new ShopifySimulator().start() : null;
  const burstOf = platform === 'salla' ? 'product webhooks' : 'order webhooks';
  log(`${platform}: ${PRODUCTS} products in the store, a burst of ${BURST} ${burstOf}, ${rounds} rounds`);
  const kinds: [string, () => Promise<{ database: Database; drop: () => Promise<void> }>][] = [
    [
      'pglite',
      async () => ({
        database: await createDatabase({ database: { kind: 'pglite', dataDir: null } }),
        drop: async () => {},
      }),
    ],
  ];
  const url = process.env.BENCH_DATABASE_URL;
  if (url) kinds.push(['postgres', async () => createScratchDatabase(url, 'sillage_bench')]);
  const results: Record<string, Awaited<ReturnType<typeof round>>[]> = {};
  let store = 500_000;
  for (let r = 0; r < rounds; r++) {
    for (const [name, make] of kinds) {
      const { database, drop } = await make();
      store++;
      let run: PlatformRun;
      let storeId = String(store);
      if (shopify) {
        storeId = `bench-${store}`;
        shopify.addShop(
          storeId,
          shop.map((p, i) => ({
            id: 100_000 + i,
            title: p.title,
            vendor: p.house,
            variants: [{ title: '100ml', price: p.sizes[0]?.price ?? 100 }],
          })),
        );
        run = shopifyRun(shopify, storeId);
      } else if (salla) {
        salla.addStore(
          store,
          shop.map((p, i) => ({
            id: 100_000 + i,
            name: p.title,
            brand: { id: 1 + (i % 50), name: p.house },
            price: p.sizes[0]?.price ?? 100,
          })),
        );
        run = sallaRun(salla, store);
      } else {
        const z = zid as ZidSimulator;
        z.addStore(
          store,
          shop.map((p, i) => ({
            id: `00000000-0000-4000-8000-${String(store * 10_000 + i).padStart(12, '0')}`,
            name: p.title,
            brand: p.house,
            price: p.sizes[0]?.price ?? 100,
          })),
        );
        run = zidRun(z, store);
      }
      try {
        const res = await round(run, storeId, database);
        results[name] = [...(results[name] ?? []), res];
        log(
          `round ${r + 1} ${name}: install answered ${fmt(res.ackMs, 1)} ms, stored ${fmt(res.storedMs / 1000, 2)} s, first recommendation ${fmt(res.firstRecoMs / 1000, 2)} s (${res.recommended}); burst p99 ${fmt(res.burstP99, 1)} ms, all worked ${fmt(res.workedMs / 1000, 2)} s, ${res.done} done, ${res.twice} twice`,
        );
      } finally {
        await drop();
      }
    }
  }
  await salla?.stop();
  await zid?.stop();
  await shopify?.stop();
  log(`\n| ${platform} | ${Object.keys(results).join(' | ')} |`);
  log(
    `|---|${Object.keys(results)
      .map(() => '---')
      .join('|')}|`,
  );
  const line = (label: string, f: (x: Awaited<ReturnType<typeof round>>) => number, digits: number) =>
    log(
      `| ${label} | ${Object.values(results)
        .map((xs) => fmt(median(xs.map(f)), digits))
        .join(' | ')} |`,
    );
  line('install answered (ms)', (x) => x.ackMs, 1);
  line('products stored (s)', (x) => x.storedMs / 1000, 2);
  line('first recommendation (s)', (x) => x.firstRecoMs / 1000, 2);
  line(`burst of ${BURST}: acknowledgement p50 (ms)`, (x) => x.burstP50, 1);
  line(`burst of ${BURST}: acknowledgement p99 (ms)`, (x) => x.burstP99, 1);
  line('burst: all acknowledged (s)', (x) => x.ackAllMs / 1000, 2);
  line('burst: all worked (s)', (x) => x.workedMs / 1000, 2);
  line('burst: worked (of the burst)', (x) => x.done, 0);
  line('burst: worked twice', (x) => x.twice, 0);
  return results;
}

export const runSallaBench = (log: (s: string) => void = console.log) => runPlatformBench('salla', log);
export const runZidBench = (log: (s: string) => void = console.log) => runPlatformBench('zid', log);
export const runShopifyBench = (log: (s: string) => void = console.log) => runPlatformBench('shopify', log);
