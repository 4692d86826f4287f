/**
 * Product matching and sync speed:
 *   npm run bench -- match
 * 1. matcher alone: 20,000 listings (the labelled listings, repeated) matched
 *    in process, products per second (median of 3 runs);
 * 2. a full 20,000-product sync, stored and matched, through the same service
 *    as PUT /api/admin/merchants/:id/products: on in-memory PGlite, and on
 *    PostgreSQL when BENCH_DATABASE_URL is set; a second sync of the same feed
 *    (all updates) too.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createDatabase, type Database } from '../db/client.ts';
import { createScratchDatabase } from '../db/scratch.ts';
import { matchListing } from '../matching/matcher.ts';
import { loadSnapshot } from '../services/catalog.ts';
import { createMerchant } from '../services/merchants.ts';
import { syncProducts } from '../services/products.ts';
import { median } from './stats.ts';

const N = 20_000;

function feed() {
  const listings = JSON.parse(
    readFileSync(new URL('../tests/fixtures/match-listings.json', import.meta.url), 'utf8'),
  ) as {
    name: string;
    house: string;
  }[];
  return Array.from({ length: N }, (_, i) => {
    const l = listings[i % listings.length] as { name: string; house: string };
    return {
      merchant_product_id: `sku-${i}`,
      name: l.name,
      house: l.house,
      price: 100 + (i % 500),
      product_url: `https://shop.example/p/${i}`,
    };
  });
}

async function timedSync(database: Database) {
  await database.migrate();
  const snapshot = await loadSnapshot(database.db);
  const merchant = await createMerchant(database.db, {
    name: 'Bench',
    slug: `bench-${randomBytes(3).toString('hex')}`,
  });
  const products = feed();
  let t = performance.now();
  const first = await syncProducts(database.db, snapshot, merchant.id, products);
  const firstS = (performance.now() - t) / 1000;
  t = performance.now();
  await syncProducts(database.db, snapshot, merchant.id, products);
  const secondS = (performance.now() - t) / 1000;
  return { products: first.upserted, matched: first.matched, firstSyncSeconds: firstS, resyncSeconds: secondS };
}

export async function runMatchBench(log: (s: string) => void = console.log) {
  const lite = await createDatabase({ database: { kind: 'pglite', dataDir: null } });
  await lite.migrate();
  const snapshot = await loadSnapshot(lite.db);
  const products = feed();
  const rates: number[] = [];
  for (let run = 0; run < 3; run++) {
    const t = performance.now();
    for (const p of products) matchListing(snapshot, p);
    rates.push(N / ((performance.now() - t) / 1000));
  }
  await lite.close();
  const results: Record<string, unknown> = { matcherProductsPerSecond: median(rates) };
  log(`matcher alone: ${N} listings, ${Math.round(median(rates))} products/s (median of 3)`);

  const pglite = await createDatabase({ database: { kind: 'pglite', dataDir: null } });
  results.pglite = await timedSync(pglite);
  await pglite.close();
  const url = process.env.BENCH_DATABASE_URL;
  if (url) {
    const scratch = await createScratchDatabase(url, 'sillage_bench');
    try {
      results.postgres = await timedSync(scratch.database);
    } finally {
      await scratch.database.close();
      await scratch.drop();
    }
  }
  log('| database | products | first sync (s) | re-sync (s) |');
  log('|---|---|---|---|');
  for (const [db, r] of Object.entries(results).filter(([k]) => k !== 'matcherProductsPerSecond') as [
    string,
    { products: number; firstSyncSeconds: number; resyncSeconds: number },
  ][]) {
    log(`| ${db} | ${r.products} | ${r.firstSyncSeconds.toFixed(2)} | ${r.resyncSeconds.toFixed(2)} |`);
  }
  return results;
}
