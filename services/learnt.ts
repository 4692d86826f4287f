/**
 * What the shelves taught (services/learning.ts), looked up for products being recognised: a
 * sync's, a rematch's, an inline catalog's. The barcodes that are match keys, and the profiles of
 * perfumes as shops describe them.
 */

import { inArray, sql } from 'drizzle-orm';
import type { CatalogSnapshot } from '../catalog/store.ts';
import { type DbOrTx, rowsOf } from '../db/client.ts';
import { applyBarcodeKeys, type BarcodeKey } from '../matching/barcodes.ts';
import { barcodeKeysOf } from '../matching/listing.ts';
import { type Learnt, type RecognisedProduct, recogniseProduct } from '../matching/recognise.ts';
import { type ShopProfile, shopsProfile } from '../matching/shop-notes.ts';
import { learntBarcodes, learntProfiles } from '../schema/index.ts';

/** Barcodes looked up or learnt in one statement. */
export const LEARN_BATCH = 100;

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

/** The profiles shops taught for these perfumes (those that have one), in LEARN_BATCH statements. */
export async function learntProfilesOf(db: DbOrTx, perfumeIds: readonly string[]): Promise<Map<string, ShopProfile>> {
  const found = new Map<string, ShopProfile>();
  const unique = [...new Set(perfumeIds)];
  for (let i = 0; i < unique.length; i += LEARN_BATCH) {
    const batch = unique.slice(i, i + LEARN_BATCH);
    const rows = await db
      .select({ perfumeId: learntProfiles.perfumeId, notes: learntProfiles.notes, shops: learntProfiles.shops })
      .from(learntProfiles)
      .where(inArray(learntProfiles.perfumeId, batch));
    for (const r of rows)
      found.set(r.perfumeId, { profile: shopsProfile({ notes: r.notes, shops: r.shops }), shops: r.shops });
  }
  return found;
}

/** A product that can take a profile shops taught: matched to our perfume (not a sibling version), which has none of its own. */
const wantsShopsProfile = (r: RecognisedProduct) => r.perfume !== null && !r.perfume.grade && !r.sibling;

/**
 * `recognised` with what the shelves taught, for a merchant that learns: each product matched by its
 * barcodes where its name does not match confidently (matching/barcodes.ts), then each matched to a
 * perfume without a profile of its own given the one shops agree on, if any. Work: one statement
 * per LEARN_BATCH barcodes and per LEARN_BATCH perfumes.
 */
export async function withLearnt(
  db: DbOrTx,
  snapshot: CatalogSnapshot,
  merchant: { learns: boolean },
  recognised: readonly RecognisedProduct[],
): Promise<RecognisedProduct[]> {
  const matched = applyBarcodeKeys(recognised, await learntKeysForProducts(db, merchant, recognised), snapshot);
  if (!merchant.learns) return matched;
  const want = matched.filter(wantsShopsProfile).map((r) => (r.perfume as { id: string }).id);
  if (want.length === 0) return matched;
  const learnt: Learnt = { profiles: await learntProfilesOf(db, want) };
  if (learnt.profiles.size === 0) return matched;
  return matched.map((r) => (wantsShopsProfile(r) ? withProfiles(r, snapshot, learnt) : r));
}

/** A recognised product again, its match kept, with `learnt`'s profiles. */
export function withProfiles(r: RecognisedProduct, snapshot: CatalogSnapshot, learnt: Learnt): RecognisedProduct {
  const again = recogniseProduct(
    r.listing,
    snapshot,
    {
      status: r.perfume ? 'matched' : r.status,
      perfumeId: r.perfume?.id ?? null,
      confidence: r.match.confidence,
      reason: r.match.reason,
      pinned: r.pinned,
      sibling: r.sibling,
    },
    learnt,
  );
  return { ...again, match: r.match, ...(r.matchKey ? { matchKey: r.matchKey } : {}) };
}
