/**
 * What the storage benchmarks share. The databases a storage benchmark runs on: in-memory PGlite always, and
 * PostgreSQL (a scratch database, dropped after) when BENCH_DATABASE_URL is set.
 */
import { randomBytes } from 'node:crypto';
import { createDatabase, type Database } from '../db/client.ts';
import { createScratchDatabase } from '../db/scratch.ts';
import { loadSnapshot } from '../services/catalog.ts';
import { createMerchant } from '../services/merchants.ts';
import { loadLabelledListings } from '../tests/listing-fixture.ts';

export async function onBenchDatabases<T>(run: (database: Database) => Promise<T>): Promise<Record<string, T>> {
  const results: Record<string, T> = {};
  const lite = await createDatabase({ database: { kind: 'pglite', dataDir: null } });
  try {
    results.pglite = await run(lite);
  } finally {
    await lite.close();
  }
  const url = process.env.BENCH_DATABASE_URL;
  if (url) {
    const scratch = await createScratchDatabase(url, 'sillage_bench');
    try {
      results.postgres = await run(scratch.database);
    } finally {
      await scratch.database.close();
      await scratch.drop();
    }
  }
  return results;
}

/** A migrated database's catalog snapshot and a new merchant to sync into it. */
export async function benchShop(database: Database) {
  await database.migrate();
  const snapshot = await loadSnapshot(database.db);
  const merchant = await createMerchant(database.db, {
    name: 'Bench',
    slug: `bench-${randomBytes(3).toString('hex')}`,
  });
  return { snapshot, merchant };
}

/** n products named as the labelled real listings are (repeated), each with its own id, and what `extra` adds. */
export function labelledListingFeed(n: number, extra: (i: number) => Record<string, unknown>) {
  const listings = loadLabelledListings().map((l) => ({ name: l.title, house: l.house || 'Unknown' }));
  return Array.from({ length: n }, (_, i) => {
    const l = listings[i % listings.length] as { name: string; house: string };
    return { merchant_product_id: `sku-${i}`, name: l.name, house: l.house, price: 100 + (i % 500), ...extra(i) };
  });
}
