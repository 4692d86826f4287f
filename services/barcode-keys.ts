/**
 * The barcodes the shelves taught (services/learning.ts), looked up for products being matched:
 * a sync's, a rematch's, an inline catalog's.
 */

import { sql } from 'drizzle-orm';
import type { CatalogSnapshot } from '../catalog/store.ts';
import { type DbOrTx, rowsOf } from '../db/client.ts';
import { applyBarcodeKeys, type BarcodeKey } from '../matching/barcodes.ts';
import { barcodeKeysOf } from '../matching/listing.ts';
import type { RecognisedProduct } from '../matching/recognise.ts';
import { learntBarcodes } from '../schema/index.ts';

/** Barcodes looked up or learnt in one statement. */
export const LEARN_BATCH = 500;

/** The learnt keys among `keys` (status key), in LEARN_BATCH statements. */
export async function learntKeys(db: DbOrTx, keys: readonly string[]): Promise<Map<string, BarcodeKey>> {
  const found = new Map<string, BarcodeKey>();
  const unique = [...new Set(keys)];
  for (let i = 0; i < unique.length; i += LEARN_BATCH) {
    const batch = unique.slice(i, i + LEARN_BATCH);
    const rows = await db.execute(sql`
      select barcode, perfume_id, shops from ${learntBarcodes}
      where status = 'key' and barcode = any(${`{${batch.join(',')}}`}::text[])`);
    for (const r of rowsOf<{ barcode: string; perfume_id: string; shops: number }>(rows))
      found.set(r.barcode, { perfumeId: r.perfume_id, shops: Number(r.shops) });
  }
  return found;
}

/** The learnt keys a merchant's recognised products can use: none when it does not learn. */
export async function learntKeysForProducts(
  db: DbOrTx,
  merchant: { learns: boolean },
  recognised: readonly RecognisedProduct[],
): Promise<Map<string, BarcodeKey>> {
  if (!merchant.learns) return new Map();
  const keys = recognised.flatMap((r) => barcodeKeysOf(r.listing));
  return keys.length ? learntKeys(db, keys) : new Map();
}

/** `recognised`, each matched by its barcodes where its name does not match confidently (matching/barcodes.ts). */
export async function withBarcodeKeys(
  db: DbOrTx,
  snapshot: CatalogSnapshot,
  merchant: { learns: boolean },
  recognised: readonly RecognisedProduct[],
): Promise<RecognisedProduct[]> {
  return applyBarcodeKeys(recognised, await learntKeysForProducts(db, merchant, recognised), snapshot);
}
