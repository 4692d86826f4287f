/**
 * The Salla app against the simulated Salla of the tests (tests/salla-sim.ts):
 *   npm run bench -- salla
 * A store of 2,000 products (BENCH_SALLA_PRODUCTS), 65% named after perfumes of the shipped
 * catalog as shops write them, the rest made up (bench/feeds.ts's shop). For each round and
 * database (in-memory PGlite; PostgreSQL too when BENCH_DATABASE_URL is set), a new service
 * listening on loopback:
 * - install: the signed `app.store.authorize` posted over HTTP; the time until it is acknowledged,
 *   until the import is stored, and until the widget's score answer recommends the store's products;
 * - burst: 1,000 signed `product.updated` webhooks (BENCH_SALLA_BURST), 32 at a time over HTTP:
 *   acknowledgement latency (p50, p99), then the time until every one is worked, and how many
 *   were worked more than once.
 * BENCH_ROUNDS rounds (3); medians.
 */
import { sql } from 'drizzle-orm';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { createDatabase, type Database } from '../db/client.ts';
import { createScratchDatabase } from '../db/scratch.ts';
import { SallaSimulator } from '../tests/salla-sim.ts';
import { shopProducts } from './feeds.ts';
import { fmt, median, quantile } from './stats.ts';

const PRODUCTS = Number(process.env.BENCH_SALLA_PRODUCTS ?? 2000);
const BURST = Number(process.env.BENCH_SALLA_BURST ?? 1000);
const SECRET = 'bench-salla-webhook-secret-0123';
const LEAD_KEY = 'ab'.repeat(32);

const rows = (r: unknown) =>
  (Array.isArray(r) ? r : ((r as { rows?: unknown[] }).rows ?? [])) as Record<string, unknown>[];

async function round(sim: SallaSimulator, store: number, database: Database) {
  const config = loadConfig({
    DATABASE_URL: 'memory:',
    LOG_LEVEL: 'silent',
    SEED_DEMO: 'false',
    LEAD_ENCRYPTION_KEY: LEAD_KEY,
    ...sim.env(SECRET),
  });
  const app = await buildApp({ config, database, logger: false });
  await app.ready();
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const post = async (hook: { body: string; signature: string }) => {
    const t = performance.now();
    const r = await fetch(`${address}/api/platforms/salla/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-salla-signature': hook.signature },
      body: hook.body,
    });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`webhook answered ${r.status}`);
    return performance.now() - t;
  };
  try {
    // install → import → recommendation
    const t0 = performance.now();
    const ackMs = await post(sim.authorize(store, SECRET));
    let storedMs = Number.NaN;
    let key = '';
    for (;;) {
      const [install] = rows(
        await app.db.execute(
          sql`select merchant_id, publishable_key from platform_installs where store_id = ${String(store)}`,
        ),
      );
      if (install) {
        const [n] = rows(
          await app.db.execute(
            sql`select count(*)::int as n from merchant_products where merchant_id = ${install.merchant_id as string}`,
          ),
        );
        if (Number(n?.n) > 0) {
          const [pull] = rows(
            await app.db.execute(
              sql`select status from feed_pulls where merchant_id = ${install.merchant_id as string} order by started_at desc limit 1`,
            ),
          );
          if (pull?.status === 'applied') {
            storedMs = performance.now() - t0;
            key = install.publishable_key as string;
            break;
          }
        }
      }
      if (performance.now() - t0 > 120_000) throw new Error('the import did not finish in 2 minutes');
      await new Promise((r) => setTimeout(r, 20));
    }
    const score = await fetch(`${address}/api/widget/score`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: `https://store-${store}.sim.example` },
      body: JSON.stringify({ api_key: key, limit: 6, quiz: { families: ['amber', 'woody'] } }),
    });
    const answer = (await score.json()) as { recommendations?: unknown[] };
    const firstRecoMs = performance.now() - t0;
    const recommended = answer.recommendations?.length ?? 0;

    // a burst of product webhooks
    const first = [...(sim.stores.get(store)?.products.keys() ?? [])];
    const hooks = Array.from({ length: BURST }, (_, i) =>
      sim.webhook(
        'product.updated',
        store,
        { id: first[i % first.length] },
        SECRET,
        new Date(Date.UTC(2026, 0, 1, 0, 0, 0, i)),
      ),
    );
    const latencies: number[] = [];
    const tb = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < hooks.length) {
          const h = hooks[next++];
          if (h) latencies.push(await post(h));
        }
      }),
    );
    const ackAllMs = performance.now() - tb;
    await app.jobs.drain(600_000);
    const workedMs = performance.now() - tb;
    const [done] = rows(
      await app.db.execute(
        sql`select count(*) filter (where status = 'done')::int as done, count(*) filter (where attempts > 1)::int as twice from platform_webhooks where event = 'product.updated'`,
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

export async function runSallaBench(log: (s: string) => void = console.log) {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const sim = await new SallaSimulator().start();
  const shop = shopProducts(PRODUCTS, 11);
  const products = shop.map((p, i) => ({
    id: 100_000 + i,
    name: p.title,
    brand: { id: 1 + (i % 50), name: p.house },
    price: p.sizes[0]?.price ?? 100,
  }));
  log(`${PRODUCTS} products in the store, a burst of ${BURST} product webhooks, ${rounds} rounds`);
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
      sim.addStore(store, products);
      try {
        const res = await round(sim, store, database);
        results[name] = [...(results[name] ?? []), res];
        log(
          `round ${r + 1} ${name}: ack ${fmt(res.ackMs, 1)} ms, stored ${fmt(res.storedMs / 1000, 2)} s, first recommendation ${fmt(res.firstRecoMs / 1000, 2)} s (${res.recommended}); burst p99 ${fmt(res.burstP99, 1)} ms, all worked ${fmt(res.workedMs / 1000, 2)} s, ${res.done} done, ${res.twice} twice`,
        );
      } finally {
        await drop();
      }
    }
  }
  await sim.stop();
  log(`\n| | ${Object.keys(results).join(' | ')} |`);
  log(
    `|---|${Object.keys(results)
      .map(() => '---')
      .join('|')}|`,
  );
  const line = (label: string, f: (x: Awaited<ReturnType<typeof round>>) => number, unit: (n: number) => string) =>
    log(
      `| ${label} | ${Object.values(results)
        .map((xs) => unit(median(xs.map(f))))
        .join(' | ')} |`,
    );
  line(
    'install acknowledged (ms)',
    (x) => x.ackMs,
    (n) => fmt(n, 1),
  );
  line(
    'products stored (s)',
    (x) => x.storedMs / 1000,
    (n) => fmt(n, 2),
  );
  line(
    'first recommendation (s)',
    (x) => x.firstRecoMs / 1000,
    (n) => fmt(n, 2),
  );
  line(
    `burst of ${BURST}: acknowledgement p50 (ms)`,
    (x) => x.burstP50,
    (n) => fmt(n, 1),
  );
  line(
    `burst of ${BURST}: acknowledgement p99 (ms)`,
    (x) => x.burstP99,
    (n) => fmt(n, 1),
  );
  line(
    'burst: all acknowledged (s)',
    (x) => x.ackAllMs / 1000,
    (n) => fmt(n, 2),
  );
  line(
    'burst: all worked (s)',
    (x) => x.workedMs / 1000,
    (n) => fmt(n, 2),
  );
  line(
    'burst: worked (of the burst)',
    (x) => x.done,
    (n) => String(n),
  );
  line(
    'burst: worked twice',
    (x) => x.twice,
    (n) => String(n),
  );
  return results;
}
