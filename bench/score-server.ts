/**
 * Child process of bench/score-endpoint.ts.
 *   service: the whole service (in-memory PGlite, or BENCH_DATABASE_URL), a
 *            merchant with 1,000 synced products; prints {port, key}.
 *   bare:    a bare Fastify route answering a fixed JSON body (read from the
 *            file named by BARE_BODY_FILE); prints {port}.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { buildApp } from '../app.ts';
import { loadBundledCatalog } from '../catalog/bundled.ts';
import { loadConfig } from '../config.ts';
import { writeAtEndOfTurn } from '../http/end-of-turn-writes.ts';
import { createKey } from '../services/keys.ts';
import { createMerchant } from '../services/merchants.ts';
import { syncProducts } from '../services/products.ts';

const mode = process.argv[2];
const ADMIN = 'bench-admin-token-0123456789abcdef';
if (mode === 'bare') {
  const body = readFileSync(process.env.BARE_BODY_FILE as string, 'utf8');
  const app = Fastify({ logger: false });
  // BENCH_BARE_END_OF_TURN: the bare route with the service's end-of-turn writes (a control)
  if (process.env.BENCH_BARE_END_OF_TURN) app.addHook('onSend', writeAtEndOfTurn);
  app.post('/bare', async (_req, reply) => reply.type('application/json').send(body));
  // the same process's liveness route, as the service's: the floor of the throughput bench's ratio
  app.get('/healthz', async () => ({ status: 'ok' }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.stdout.write(`${JSON.stringify({ port: (app.server.address() as { port: number }).port })}\n`);
} else if (mode === 'events') {
  const config = loadConfig({
    DATABASE_URL: process.env.BENCH_EVENTS_DATABASE_URL || 'memory:',
    LOG_LEVEL: 'warn',
    TRUST_PROXY: '127.0.0.1',
    SEED_DEMO: 'false',
    ADMIN_TOKEN: ADMIN,
    LEAD_ENCRYPTION_KEY: 'ab'.repeat(32),
  });
  const app = await buildApp({ config });
  await app.ready();
  const merchant = await createMerchant(app.db, { name: 'Events Bench', slug: `events-${process.pid}` });
  const key = await createKey(app.db, merchant.id, { mode: 'live', allowedOrigins: [] });
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.stdout.write(
    `${JSON.stringify({ port: (app.server.address() as { port: number }).port, key: key.key, merchant: merchant.id, admin: ADMIN })}\n`,
  );
} else {
  const config = loadConfig({
    // BENCH_PGLITE_DIR: embedded PGlite on disk, as `npm start` runs it; else in memory or BENCH_DATABASE_URL
    ...(process.env.BENCH_PGLITE_DIR
      ? { PGLITE_DATA_DIR: process.env.BENCH_PGLITE_DIR }
      : { DATABASE_URL: process.env.BENCH_DATABASE_URL || 'memory:' }),
    LOG_LEVEL: 'warn',
    TRUST_PROXY: '127.0.0.1',
    SEED_DEMO: 'false',
    LEAD_ENCRYPTION_KEY: 'ab'.repeat(32),
    // the load test reads /metrics and shares limits through Redis, as production does
    ADMIN_TOKEN: ADMIN,
    ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL } : {}),
    // BENCH_PLATFORMS: the four platform apps on (bench/attack-load.ts, the webhook flood)
    ...(process.env.BENCH_PLATFORMS
      ? {
          SALLA_CLIENT_ID: 'bench',
          SALLA_CLIENT_SECRET: 'bench-salla-client-secret',
          SALLA_WEBHOOK_SECRET: 'bench-salla-webhook-secret',
          SHOPIFY_CLIENT_ID: 'bench',
          SHOPIFY_CLIENT_SECRET: 'bench-shopify-client-secret',
          ZID_CLIENT_ID: '1',
          ZID_CLIENT_SECRET: 'bench-zid-client-secret',
          WOOCOMMERCE_APP: 'true',
        }
      : {}),
    // the feed-load bench's shop is a server on this machine (bench/feeds.ts)
    ...(process.env.BENCH_FEED_ALLOW_PRIVATE_HOSTS
      ? { FEED_ALLOW_PRIVATE_HOSTS: process.env.BENCH_FEED_ALLOW_PRIVATE_HOSTS }
      : {}),
  });
  const app = await buildApp({ config });
  await app.ready();
  const merchant = await createMerchant(app.db, { name: 'Bench Store', slug: `bench-${process.pid}` });
  const key = await createKey(app.db, merchant.id, { mode: 'live', allowedOrigins: ['https://bench.example'] });
  const { perfumes } = loadBundledCatalog();
  const products = Array.from({ length: 1000 }, (_, i) => {
    const p = perfumes[i % perfumes.length] as (typeof perfumes)[number];
    return {
      merchant_product_id: `sku-${i}`,
      name: `${p.name} ${i < perfumes.length ? '' : 'Tester'}`.trim(),
      house: p.house,
      price: 100 + (i % 900),
      product_url: `https://bench.example/p/${i}`,
    };
  });
  const summary = await syncProducts(app.db, app.catalog.current(), merchant.id, products);
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.stdout.write(
    `${JSON.stringify({ port: (app.server.address() as { port: number }).port, key: key.key, matched: summary.matched, admin: ADMIN })}\n`,
  );
}

// BENCH_PROFILE_OUT: a CPU profile of the main thread from SIGUSR2 to SIGTERM (bench/profile.ts),
// so that start-up and warm-up stay out of it
const profileOut = process.env.BENCH_PROFILE_OUT;
if (profileOut) {
  const { Session } = await import('node:inspector/promises');
  const { writeFileSync } = await import('node:fs');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  process.once('SIGUSR2', () => void session.post('Profiler.start'));
  process.once('SIGTERM', async () => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(profileOut, JSON.stringify(profile));
    process.exit(0);
  });
} else {
  // a profiler (BENCH_NODE_ARGS=--cpu-prof) writes its profile only on a normal exit
  process.once('SIGTERM', () => process.exit(0));
}
