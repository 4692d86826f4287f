/**
 * What the shelves taught (services/learning.ts), looked up for products being recognised: a
 * sync's, a rematch's, an inline catalog's. The barcodes that are match keys, and the profiles of
 * perfumes as shops describe them.
 */

import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { CatalogSnapshot } from '../catalog/store.ts';
import { type DbOrTx, rowsOf, textArray } from '../db/client.ts';
import type { ProductAnswer } from '../matching/answers.ts';
import { MIN_ANSWER_ITEMS } from '../matching/answers.ts';
import { applyBarcodeKeys, type BarcodeKey } from '../matching/barcodes.ts';
import { listingKeysOf } from '../matching/listing.ts';
import { type Learnt, type RecognisedProduct, recogniseProduct } from '../matching/recognise.ts';
import { type AgreedNotes, type ShopProfile, shopsProfile } from '../matching/shop-notes.ts';
import { learntBarcodes, learntProfiles, merchantProducts } from '../schema/index.ts';

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
      where status = 'key' and barcode = any(${textArray(batch)})`);
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
  const keys = recognised.flatMap((r) => listingKeysOf(r.listing, r.spelling));
  return keys.length ? learntKeys(db, keys) : new Map();
}

/** A learnt row's profile: none when it holds only an original (its notes and accords too few). */
export function learntProfileOf(r: {
  notes: AgreedNotes['notes'];
  accords: readonly string[];
  shops: number;
}): ShopProfile | null {
  const items =
    r.notes.top.length + r.notes.heart.length + r.notes.base.length + r.notes.flat.length + r.accords.length;
  if (items < MIN_ANSWER_ITEMS) return null;
  return { profile: shopsProfile({ notes: r.notes, shops: r.shops }, r.accords), shops: r.shops };
}

/**
 * What shops taught of these perfumes: the profiles they agree on, and the originals merchants'
 * answers in force name, in LEARN_BATCH statements.
 */
export async function learntOf(db: DbOrTx, perfumeIds: readonly string[]): Promise<Required<Learnt>> {
  const profiles = new Map<string, ShopProfile>();
  const inspired = new Map<string, string>();
  const unique = [...new Set(perfumeIds)];
  for (let i = 0; i < unique.length; i += LEARN_BATCH) {
    const batch = unique.slice(i, i + LEARN_BATCH);
    const rows = await db
      .select({
        perfumeId: learntProfiles.perfumeId,
        notes: learntProfiles.notes,
        accords: learntProfiles.accords,
        inspiredBy: learntProfiles.inspiredBy,
        shops: learntProfiles.shops,
      })
      .from(learntProfiles)
      .where(inArray(learntProfiles.perfumeId, batch));
    for (const r of rows) {
      const profile = learntProfileOf(r);
      if (profile) profiles.set(r.perfumeId, profile);
      if (r.inspiredBy) inspired.set(r.perfumeId, r.inspiredBy);
    }
  }
  return { profiles, inspired };
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
  const learnt = await learntOf(db, want);
  if (learnt.profiles.size === 0 && learnt.inspired.size === 0) return matched;
  return matched.map((r) => (wantsShopsProfile(r) ? withProfiles(r, snapshot, learnt) : r));
}

/** A merchant's own answers for its products, by merchant_product_id: one statement. */
export async function storedAnswers(db: DbOrTx, merchantId: string): Promise<Map<string, ProductAnswer>> {
  const rows = await db
    .select({ id: merchantProducts.merchantProductId, answer: merchantProducts.answer })
    .from(merchantProducts)
    .where(and(eq(merchantProducts.merchantId, merchantId), isNotNull(merchantProducts.answer)));
  return new Map(rows.map((r) => [r.id, r.answer as ProductAnswer]));
}

/** `recognised` with each product's stored answer (a sync's listings carry none), recognised again where it has one. */
export function withAnswers(
  recognised: readonly RecognisedProduct[],
  answers: ReadonlyMap<string, ProductAnswer>,
  snapshot: CatalogSnapshot,
): RecognisedProduct[] {
  if (answers.size === 0) return [...recognised];
  return recognised.map((r) => {
    const answer = answers.get(r.listing.merchantProductId);
    return answer ? withProfiles({ ...r, listing: { ...r.listing, answer } }, snapshot, { profiles: new Map() }) : r;
  });
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
  return {
    ...again,
    match: r.match,
    ...(r.matchKey ? { matchKey: r.matchKey } : {}),
    ...(r.spelling !== undefined ? { spelling: r.spelling } : {}),
  };
}
