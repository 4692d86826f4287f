import { randomUUID } from 'node:crypto';
import { and, asc, count, eq, inArray, isNotNull, isNull, type SQL, sql } from 'drizzle-orm';
import type { CatalogSnapshot } from '../catalog/store.ts';
import { type Db, type DbOrTx, textArray } from '../db/client.ts';
import { AppError, badRequest, notFound } from '../lib/errors.ts';
import { slicer, turnAt } from '../lib/turns.ts';
import { checkAnswer } from '../matching/answers.ts';
import { CONFIDENT_MATCH } from '../matching/barcodes.ts';
import { PRODUCT_KINDS, type ProductKind } from '../matching/kind.ts';
import { listingKeysOf, type ProductInput } from '../matching/listing.ts';
import {
  explainListing,
  inProcessMatcher,
  type Learnt,
  type ListingExplanation,
  type ListingMatcher,
  type RecognisedListings,
  type RecognisedProduct,
  recogniseProduct,
  type StoredDecision,
  scoringProductOf,
} from '../matching/recognise.ts';
import { type MatchStatus, merchantProducts, merchants } from '../schema/index.ts';
import type { ScoringProduct } from '../scoring/products.ts';
import { storedAnswers, withAnswers, withLearnt, withProfiles } from './learnt.ts';
import { getMerchant } from './merchants.ts';

export const MAX_FEED_PRODUCTS = 50_000;
/**
 * Rows a sync writes in one statement. Each statement's rows go as one JSON value (`upsertRows`):
 * it is built in a few milliseconds of the event loop, where 500 rows as 11,000 bound values took
 * 120–220 ms of it, a stall of every shop's requests each time, and PGlite, which runs one
 * transaction at a time, is held for a shorter store step (docs/benchmarks.md, "A feed pull's
 * store step").
 */
export const UPSERT_BATCH = 100;

export interface SyncRejection {
  index: number;
  merchant_product_id?: string;
  reason: string;
}

export interface SyncSummary {
  merchant_id: string;
  received: number;
  upserted: number;
  removed: number;
  matched: number;
  partial: number;
  unmatched: number;
  /** of matched: recognised, with no scent profile from any evidence yet (never recommended) */
  without_profile: number;
  rejected: number;
  /** the first 1,000 rejected rows, with their position in the feed and the reason */
  rejections: SyncRejection[];
  /** barcodes sent that were not read (malformed, a failed check digit…): the products are stored without them */
  barcodes_ignored: number;
  /** the first 1,000 of them, each with its product and why */
  barcode_issues: { merchant_product_id: string; reason: string }[];
  catalog_version: number;
}

type Row = typeof merchantProducts.$inferInsert;

/** The columns a sync writes, as the table names them (the JSON keys of `upsertRows`). */
const SYNCED_COLUMNS = [
  'merchant_id',
  'merchant_product_id',
  'name',
  'house',
  'price',
  'currency',
  'image_url',
  'product_url',
  'accords',
  'notes',
  'description',
  'available',
  'sale_price',
  'sizes',
  'barcode',
  'barcode_keys',
  'feed_source_id',
  'match_status',
  'sillage_perfume_id',
  'match_confidence',
  'match_reason',
  'match_sibling',
  'match_key',
  'profile',
  'profile_shops',
  'learnt_inspired',
  'sync_id',
] as const;
/** What an operator decided by hand: a pinned product keeps these through every re-sync. */
const PINNED_COLUMNS = new Set([
  'match_status',
  'sillage_perfume_id',
  'match_confidence',
  'match_reason',
  'match_sibling',
  'match_key',
  'profile',
  'profile_shops',
  'learnt_inspired',
]);

/** Text as PostgreSQL stores it: an unpaired surrogate (which JSON carries as an escape it refuses) as U+FFFD. */
const wellFormed = (_key: string, value: unknown) =>
  typeof value === 'string' ? (value as string & { toWellFormed(): string }).toWellFormed() : value;

/**
 * One statement upserting `rows` by (merchant, merchant_product_id), the rows sent as one JSON
 * array read back with the table's own column types; a pinned product keeps its match.
 */
function upsertRows(rows: readonly Row[]): SQL {
  const json = JSON.stringify(
    rows.map((r) => ({
      merchant_id: r.merchantId,
      merchant_product_id: r.merchantProductId,
      name: r.name,
      house: r.house,
      price: r.price ?? null,
      currency: r.currency,
      image_url: r.imageUrl ?? null,
      product_url: r.productUrl ?? null,
      accords: r.accords ?? null,
      notes: r.notes ?? null,
      description: r.description ?? null,
      available: r.available,
      sale_price: r.salePrice ?? null,
      sizes: r.sizes ?? null,
      barcode: r.barcode ?? null,
      barcode_keys: r.barcodeKeys ?? [],
      feed_source_id: r.feedSourceId ?? null,
      match_status: r.matchStatus,
      sillage_perfume_id: r.sillagePerfumeId ?? null,
      match_confidence: r.matchConfidence ?? null,
      match_reason: r.matchReason ?? null,
      match_sibling: r.matchSibling,
      match_key: r.matchKey ?? null,
      profile: r.profile ?? null,
      profile_shops: r.profileShops ?? null,
      learnt_inspired: r.learntInspired ?? null,
      sync_id: r.syncId,
    })),
    wellFormed,
  );
  const columns = sql.raw(SYNCED_COLUMNS.join(', '));
  const set = sql.raw(
    SYNCED_COLUMNS.filter((c) => c !== 'merchant_id' && c !== 'merchant_product_id')
      .map((c) =>
        PINNED_COLUMNS.has(c)
          ? // a match pinned by an operator survives every re-sync
            `${c} = case when merchant_products.match_pinned then merchant_products.${c} else excluded.${c} end`
          : `${c} = excluded.${c}`,
      )
      .concat('updated_at = now()')
      .join(', '),
  );
  return sql`insert into ${merchantProducts} (${columns})
    select ${columns} from json_populate_recordset(null::merchant_products, ${json}::json)
    on conflict (merchant_id, merchant_product_id) do update set ${set}`;
}

export type ProductRow = typeof merchantProducts.$inferSelect;

/** A stored product as the listing the merchant sent. */
function listingOf(row: ProductRow): ProductInput {
  return {
    merchantProductId: row.merchantProductId,
    name: row.name,
    house: row.house,
    price: row.price,
    currency: row.currency,
    imageUrl: row.imageUrl,
    productUrl: row.productUrl,
    accords: row.accords,
    notes: row.notes,
    description: row.description,
    available: row.available,
    salePrice: row.salePrice,
    sizes: row.sizes,
    barcode: row.barcode,
    barcodeIssues: [],
    answer: row.answer,
    kindOverride: row.kindOverride,
  };
}

/** What was decided for a stored product: the match made at its sync, or an operator's pin. */
function decisionOf(row: ProductRow): StoredDecision {
  return {
    status: row.matchStatus,
    perfumeId: row.sillagePerfumeId,
    confidence: row.matchConfidence,
    reason: row.matchReason,
    pinned: row.matchPinned,
    sibling: row.matchSibling,
  };
}

/**
 * A stored product, recognised from its stored decision (the matcher is not run again), with the
 * profile shops taught it when it was stored with one (learning keeps it current).
 */
export function recogniseStored(row: ProductRow, snapshot: CatalogSnapshot): RecognisedProduct {
  const id = row.sillagePerfumeId;
  const learnt: Learnt | undefined =
    id && ((row.profileShops && row.profile) || row.learntInspired)
      ? {
          profiles:
            row.profileShops && row.profile
              ? new Map([[id, { profile: row.profile, shops: row.profileShops }]])
              : new Map(),
          ...(row.learntInspired ? { inspired: new Map([[id, row.learntInspired]]) } : {}),
        }
      : undefined;
  return recogniseProduct(listingOf(row), snapshot, decisionOf(row), learnt);
}

/** The columns a recognition sets on a stored product. */
const matchColumns = (r: RecognisedProduct) => ({
  matchStatus: r.status,
  sillagePerfumeId: r.match.perfumeId,
  matchConfidence: r.match.confidence,
  matchReason: r.match.reason,
  matchSibling: r.sibling,
  matchKey: r.matchKey ?? null,
  profile: r.profile,
  profileShops: r.quality === 'shops' ? (r.shops ?? null) : null,
  learntInspired: learntInspiredOf(r),
});

/** The original a product takes its profile from because merchants' answers in force say so; null otherwise. */
const learntInspiredOf = (r: RecognisedProduct) =>
  r.quality === 'inspired' && r.inspiredFrom === 'shops' ? (r.inspiredBy?.id ?? null) : null;

/**
 * Stores a merchant's feed and matches every product. Bad rows are reported
 * and skipped; good rows are upserted by merchant_product_id in one
 * transaction, so a failed sync changes nothing. A product pinned by hand
 * keeps its pin. With `replace`, products absent from the feed are removed; with a `sourceId` (a
 * pulled feed, services/feeds.ts) the rows are that source's, and `replace` removes only its own.
 * The rows are recognised by `match`: in the service, the matcher's worker thread
 * (`app.inlineMatcher`), never the event loop; here in process when none is given (a command-line
 * tool, the tests).
 */
export async function syncProducts(
  db: Db,
  snapshot: CatalogSnapshot,
  merchantIdOrSlug: string,
  feed: readonly unknown[],
  opts: {
    replace?: boolean;
    sourceId?: string;
    /** the feed already recognised by the caller (a pull compares it with what is stored first) */
    recognised?: RecognisedListings;
    /** what recognises the rows (the service's matcher worker); in process when none is given */
    match?: ListingMatcher;
    /** with a `sourceId`: these of its products are removed in the same transaction (a pull's own diff) */
    remove?: readonly string[];
  } = {},
): Promise<SyncSummary> {
  const merchant = await getMerchant(db, merchantIdOrSlug);
  const counts = { matched: 0, partial: 0, unmatched: 0, without_profile: 0 };
  const syncId = randomUUID();

  const found = opts.recognised ?? (await (opts.match ?? inProcessMatcher(snapshot)).listings(merchant.id, feed));
  const { problems } = found;
  // the merchant's own answers and corrections of kinds, kept through syncs, given to the products they are for
  const recognised = await withLearnt(
    db,
    snapshot,
    merchant,
    withAnswers(
      withKinds(found.recognised, await storedKinds(db, merchant.id), snapshot),
      await storedAnswers(db, merchant.id),
      snapshot,
    ),
  );
  const rejected = problems.length;
  const rejections: SyncRejection[] = problems
    .slice(0, 1000)
    .map((p) => ({ index: p.index, merchant_product_id: p.merchantProductId, reason: p.message }));
  const barcodeIssues = recognised.flatMap((r) =>
    r.listing.barcodeIssues.map((reason) => ({ merchant_product_id: r.listing.merchantProductId, reason })),
  );
  const rows: Row[] = recognised.map((r) => ({
    merchantId: merchant.id,
    merchantProductId: r.listing.merchantProductId,
    name: r.listing.name,
    house: r.listing.house,
    price: r.listing.price,
    currency: r.listing.currency,
    imageUrl: r.listing.imageUrl,
    productUrl: r.listing.productUrl,
    accords: r.listing.accords,
    notes: r.listing.notes,
    description: r.listing.description,
    available: r.listing.available,
    salePrice: r.listing.salePrice,
    sizes: r.listing.sizes,
    barcode: r.listing.barcode,
    barcodeKeys: listingKeysOf(r.listing, r.spelling),
    feedSourceId: opts.sourceId ?? null,
    ...matchColumns(r),
    syncId,
  }));

  return db.transaction(async (tx) => {
    const list = rows;
    for (let i = 0; i < list.length; i += UPSERT_BATCH) await tx.execute(upsertRows(list.slice(i, i + UPSERT_BATCH)));
    let removed = 0;
    if (opts.replace) {
      const gone = await tx
        .delete(merchantProducts)
        .where(
          and(
            eq(merchantProducts.merchantId, merchant.id),
            sql`${merchantProducts.syncId} is distinct from ${syncId}`,
            opts.sourceId ? eq(merchantProducts.feedSourceId, opts.sourceId) : undefined,
          ),
        )
        .returning({ id: merchantProducts.id });
      removed = gone.length;
    }
    if (opts.remove?.length && opts.sourceId) {
      for (let i = 0; i < opts.remove.length; i += UPSERT_BATCH) {
        const gone = await tx
          .delete(merchantProducts)
          .where(
            and(
              eq(merchantProducts.merchantId, merchant.id),
              eq(merchantProducts.feedSourceId, opts.sourceId),
              inArray(merchantProducts.merchantProductId, opts.remove.slice(i, i + UPSERT_BATCH) as string[]),
            ),
          )
          .returning({ id: merchantProducts.id });
        removed += gone.length;
      }
    }
    // counts as stored: pinned products count as matched whatever the matcher said this time
    const profiled = sql<boolean>`${merchantProducts.profile} is not null`;
    const stored = await tx
      .select({ status: merchantProducts.matchStatus, profiled, n: count() })
      .from(merchantProducts)
      .where(and(eq(merchantProducts.merchantId, merchant.id), eq(merchantProducts.syncId, syncId)))
      .groupBy(merchantProducts.matchStatus, profiled);
    for (const s of stored) {
      if (s.status === 'pending') continue;
      counts[s.status] += Number(s.n);
      if (s.status === 'matched' && !s.profiled) counts.without_profile += Number(s.n);
    }
    const version = await touchMerchantCatalog(tx, merchant.id, true);
    return {
      merchant_id: merchant.id,
      received: feed.length,
      upserted: list.length,
      removed,
      ...counts,
      rejected,
      rejections,
      barcodes_ignored: barcodeIssues.length,
      barcode_issues: barcodeIssues.slice(0, 1000),
      catalog_version: version,
    };
  });
}

/**
 * A merchant's products changed by learning alone (what other shelves taught): its shelf teaches
 * nothing new by it, so a merchant learnt from at `before` is learnt from at `after` too, and the
 * dispatch does not send it again for this.
 */
async function carryLearnt(tx: DbOrTx, merchantId: string, before: number, after: number) {
  await tx.execute(sql`update ${merchants} set learnt_version = ${after}
    where id = ${merchantId} and learnt_version = ${before} and catalog_version = ${after}`);
}

/**
 * The products of every merchant matched to these perfumes given the profile shops now agree on
 * (or none, when they no longer do, or the merchant does not learn), where it changed: after
 * learning changed what shops say of the perfumes. Work: one read of those products, one write per
 * product changed, per merchant one version bump.
 */
export async function reprofileProducts(
  db: Db,
  snapshot: CatalogSnapshot,
  perfumeIds: readonly string[],
  learnt: Learnt,
  /** only this merchant's products */
  merchantId?: string,
): Promise<{ changed: number; merchants: string[] }> {
  if (perfumeIds.length === 0) return { changed: 0, merchants: [] };
  const rows = await db
    .select({ row: merchantProducts, learns: merchants.learns, version: merchants.catalogVersion })
    .from(merchantProducts)
    .innerJoin(merchants, eq(merchants.id, merchantProducts.merchantId))
    .where(
      and(
        inArray(merchantProducts.sillagePerfumeId, [...perfumeIds]),
        eq(merchantProducts.matchStatus, 'matched'),
        eq(merchantProducts.matchSibling, false),
        merchantId ? eq(merchantProducts.merchantId, merchantId) : undefined,
        // a shelf being erased is left to its erasure (its rows go; writing them would contend with it)
        isNull(merchants.erasedAt),
      ),
    );
  const byMerchant = new Map<
    string,
    { version: number; changes: { id: string; r: RecognisedProduct; read: Date }[] }
  >();
  // a product recognised again may read its description: requests are answered between stretches of TURN_MS
  const slice = slicer();
  for (const { row, learns, version } of rows) {
    await slice();
    const r = recogniseProduct(listingOf(row), snapshot, decisionOf(row), learns ? learnt : undefined);
    const shops = r.quality === 'shops' ? (r.shops ?? null) : null;
    if (
      shops === row.profileShops &&
      learntInspiredOf(r) === row.learntInspired &&
      canonical(r.profile) === canonical(row.profile)
    )
      continue;
    const m = byMerchant.get(row.merchantId) ?? { version, changes: [] };
    m.changes.push({ id: row.id, r, read: row.updatedAt });
    byMerchant.set(row.merchantId, m);
  }
  let changed = 0;
  for (const [merchantId, { version, changes }] of byMerchant) {
    await db.transaction(async (tx) => {
      for (const { id, r, read } of changes) {
        await tx
          .update(merchantProducts)
          .set({
            matchStatus: r.status,
            profile: r.profile,
            profileShops: r.quality === 'shops' ? (r.shops ?? null) : null,
            learntInspired: learntInspiredOf(r),
            updatedAt: sql`now()`,
          })
          // a product synced, pinned or matched again since it was read here is left as that left it
          .where(
            and(
              eq(merchantProducts.id, id),
              sql`date_trunc('milliseconds', ${merchantProducts.updatedAt}) = ${read.toISOString()}::timestamptz`,
            ),
          );
      }
      const after = await touchMerchantCatalog(tx, merchantId, false);
      await carryLearnt(tx, merchantId, version, after);
    });
    changed += changes.length;
  }
  return { changed, merchants: [...byMerchant.keys()] };
}

/**
 * The ids of a feed source's products that are one of `ids` or match one of its `%` patterns
 * (a platform's product is one row per concentration: `123`, `123:edt`).
 */
export async function productsOfSource(db: DbOrTx, sourceId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ id: merchantProducts.merchantProductId })
    .from(merchantProducts)
    .where(
      and(
        eq(merchantProducts.feedSourceId, sourceId),
        sql`${merchantProducts.merchantProductId} like any (${sql`array[${sql.join(
          ids.map((i) => sql`${i}`),
          sql`, `,
        )}]::text[]`})`,
      ),
    );
  return rows.map((r) => r.id);
}

/** Marks the merchant's products changed (score caches key on the version); a sync also records its time. */
export async function touchMerchantCatalog(db: DbOrTx, merchantId: string, synced: boolean): Promise<number> {
  const [row] = await db
    .update(merchants)
    .set({
      catalogVersion: sql`${merchants.catalogVersion} + 1`,
      ...(synced ? { catalogSyncedAt: sql`now()` } : {}),
    })
    .where(eq(merchants.id, merchantId))
    .returning({ version: merchants.catalogVersion });
  return row?.version ?? 0;
}

/** The admin view of a stored product: what the service makes of it now, and why. */
/** A product as the admin API answers it (AdminProductSchema, in its order: the CLI prints either the same). */
export function productView(
  p: ProductRow,
  snapshot: CatalogSnapshot,
  /** the listing explained (a page of products: by the matcher's worker, `ListingMatcher.explain`); here when not given */
  explanation: ListingExplanation = explainListing(p, snapshot),
) {
  const r = recogniseStored(p, snapshot);
  return {
    merchant_product_id: p.merchantProductId,
    name: p.name,
    house: p.house,
    price: p.price,
    currency: p.currency,
    image_url: r.imageUrl,
    product_url: p.productUrl,
    accords: p.accords,
    notes: p.notes,
    description: p.description,
    available: p.available,
    sale_price: p.salePrice,
    sizes: p.sizes,
    barcode: p.barcode,
    status: p.matchStatus === 'pending' ? p.matchStatus : r.status,
    quality: r.quality,
    explanation,
    profile: r.profile
      ? {
          // what the profile was built from: a perfume of ours (the matched one, or the original it is inspired by), or the merchant's own words
          basis:
            r.profile.source === 'catalog'
              ? ['catalog' as const]
              : r.profile.source === 'shops'
                ? ['shops' as const]
                : (r.profile.basis ?? []),
          accords: r.profile.accords.slice(0, 8),
          families: r.profile.families,
        }
      : null,
    inspired_by: r.inspiredBy
      ? {
          sillage_perfume_id: r.inspiredBy.id,
          name: r.inspiredBy.name,
          house: r.inspiredBy.house,
          said_by: r.inspiredFrom ?? 'catalog',
        }
      : null,
    answer: p.answer ?? null,
    kind_override: p.kindOverride ?? null,
    described_by_shops: r.quality === 'shops' ? (r.shops ?? null) : null,
    to_recommend: toRecommend(r, explanation),
    sillage_perfume_id: r.perfume?.id ?? null,
    matched_perfume: r.perfume
      ? {
          name: r.perfume.name,
          name_ar: r.perfume.nameAr,
          house: r.perfume.house,
          concentration: r.perfume.concentration,
          grade: r.perfume.grade,
          inspired_by: r.perfume.inspiredBy,
        }
      : null,
    confidence: p.matchConfidence,
    reason: p.matchReason,
    pinned: p.matchPinned,
    matched_by: !r.perfume
      ? null
      : p.matchPinned
        ? ('pin' as const)
        : p.matchKey
          ? p.matchKey.startsWith('s:')
            ? ('spelling' as const)
            : ('barcode' as const)
          : ('name' as const),
    // what the last rematch (after a catalog upgrade or an import) or a withdrawn record changed
    match_change: p.matchChangedAt
      ? { previous_perfume_id: p.previousPerfumeId, at: p.matchChangedAt.toISOString() }
      : null,
    updated_at: p.updatedAt.toISOString(),
  };
}

/**
 * What would give a product with no scent profile one (never recommended until then): the shop's
 * description naming its notes (never for a listing that is not a perfume); for a product matched
 * to an identity of ours, that record naming the perfume it is inspired by; for one not matched, a
 * pin to the perfume it is. Null when it has a profile.
 */
export function toRecommend(
  r: Pick<RecognisedProduct, 'profile' | 'perfume'>,
  explanation: Pick<ListingExplanation, 'parsed'>,
): ('description' | 'inspired_by' | 'match')[] | null {
  if (r.profile) return null;
  const describe = explanation.parsed.not_perfume === null ? (['description'] as const) : [];
  return r.perfume ? [...describe, 'inspired_by'] : ['match', ...describe];
}

/** A merchant's products the engine can score, with the version of the merchant's products they were read at. */
export async function loadScoringProducts(
  db: DbOrTx,
  snapshot: CatalogSnapshot,
  merchantId: string,
): Promise<{ version: number; products: ScoringProduct[] }> {
  const [m] = await db
    .select({ version: merchants.catalogVersion })
    .from(merchants)
    .where(eq(merchants.id, merchantId));
  const rows = await db
    .select()
    .from(merchantProducts)
    .where(
      and(
        eq(merchantProducts.merchantId, merchantId),
        inArray(merchantProducts.matchStatus, ['matched', 'partial']),
        isNotNull(merchantProducts.profile),
        // sold out: never recommended
        eq(merchantProducts.available, true),
      ),
    )
    .orderBy(merchantProducts.merchantProductId);
  const products: ScoringProduct[] = [];
  for (const row of rows) {
    const p = scoringProductOf(recogniseStored(row, snapshot));
    if (p) products.push(p);
  }
  return { version: m?.version ?? 0, products };
}

/** The current version of each merchant's products (a sync or a pin moves it on). */
export async function productVersions(db: DbOrTx, merchantIds: readonly string[]): Promise<Map<string, number>> {
  if (merchantIds.length === 0) return new Map();
  const rows = await db
    .select({ id: merchants.id, version: merchants.catalogVersion })
    .from(merchants)
    .where(inArray(merchants.id, [...merchantIds]));
  return new Map(rows.map((r) => [r.id, r.version]));
}

export async function listProducts(
  db: DbOrTx,
  merchantIdOrSlug: string,
  opts: { status?: MatchStatus; limit: number; offset: number },
): Promise<{ rows: ProductRow[]; total: number }> {
  const merchant = await getMerchant(db, merchantIdOrSlug);
  const where = opts.status
    ? and(eq(merchantProducts.merchantId, merchant.id), eq(merchantProducts.matchStatus, opts.status))
    : eq(merchantProducts.merchantId, merchant.id);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(merchantProducts)
      .where(where)
      .orderBy(asc(merchantProducts.merchantProductId))
      .limit(opts.limit)
      .offset(opts.offset),
    db.select({ n: count() }).from(merchantProducts).where(where),
  ]);
  return { rows, total: Number(total?.n ?? 0) };
}

async function getProduct(db: DbOrTx, merchantId: string, merchantProductId: string): Promise<ProductRow> {
  const [row] = await db
    .select()
    .from(merchantProducts)
    .where(and(eq(merchantProducts.merchantId, merchantId), eq(merchantProducts.merchantProductId, merchantProductId)))
    .limit(1);
  if (!row) throw notFound('product_not_found', `The merchant has no product "${merchantProductId.slice(0, 200)}"`);
  return row;
}

/** Pins a product to a perfume by hand; the pin survives re-syncs until it is removed. */
export async function pinMatch(
  db: Db,
  snapshot: CatalogSnapshot,
  merchantIdOrSlug: string,
  merchantProductId: string,
  perfumeId: string,
): Promise<ProductRow> {
  const merchant = await getMerchant(db, merchantIdOrSlug);
  const perfume = snapshot.byId.get(perfumeId);
  if (!perfume)
    throw notFound('perfume_not_found', `No perfume "${perfumeId.slice(0, 120)}" in the catalog (find it with lookup)`);
  return db.transaction(async (tx) => {
    const product = await getProduct(tx, merchant.id, merchantProductId);
    // with what shops taught of the perfume, as a synced product is
    const [pinned] = await withLearnt(tx, snapshot, merchant, [
      recogniseProduct(listingOf(product), snapshot, {
        status: 'matched',
        perfumeId: perfume.id,
        confidence: 1,
        reason: `pinned by hand to ${perfume.name} (${perfume.concentration ?? '?'}) by ${perfume.house}`,
        pinned: true,
        sibling: false,
      }),
    ]);
    const [row] = await tx
      .update(merchantProducts)
      .set({ ...matchColumns(pinned as RecognisedProduct), matchPinned: true, updatedAt: sql`now()` })
      .where(eq(merchantProducts.id, product.id))
      .returning();
    await touchMerchantCatalog(tx, merchant.id, false);
    return row as ProductRow;
  });
}

/**
 * Sets (or with nothing in it, clears) a merchant's own answer for one of its products
 * (matching/answers.ts): its main notes and accords, or the catalog perfume it is sold as the answer
 * to. The product is recognised again at once with it, its match kept: it serves this merchant from
 * now on, and learning proposes it to every shop (docs/learning.md). Kept through re-syncs. Work:
 * MAX_ANSWER_NOTES + MAX_ANSWER_ACCORDS lookups, one product recognised, three statements.
 */
export async function answerProduct(
  db: Db,
  snapshot: CatalogSnapshot,
  merchantIdOrSlug: string,
  merchantProductId: string,
  sent: { notes?: readonly string[]; accords?: readonly string[]; inspired_by?: string | null },
): Promise<ProductRow> {
  const merchant = await getMerchant(db, merchantIdOrSlug);
  const checked = checkAnswer(sent, (id) => snapshot.byId.get(id));
  if (!checked.ok) throw badRequest('invalid_answer', checked.message);
  return db.transaction(async (tx) => {
    const product = await getProduct(tx, merchant.id, merchantProductId);
    const listing = { ...listingOf(product), answer: checked.answer };
    const [r] = await withLearnt(tx, snapshot, merchant, [recogniseProduct(listing, snapshot, decisionOf(product))]);
    const [row] = await tx
      .update(merchantProducts)
      .set({ ...matchColumns(r as RecognisedProduct), answer: checked.answer, updatedAt: sql`now()` })
      .where(eq(merchantProducts.id, product.id))
      .returning();
    await touchMerchantCatalog(tx, merchant.id, false);
    return row as ProductRow;
  });
}

const isProductKind = (kind: string): kind is ProductKind => (PRODUCT_KINDS as readonly string[]).includes(kind);

/**
 * Sets (or with null, clears) the merchant's correction of a product's kind (matching/kind.ts
 * PRODUCT_KINDS): from now on the product is scored, filtered and shown as that kind, whatever its
 * listing reads, and is alcohol-free as that kind is (an oil, bakhoor or oud wood) or as its listing
 * says. Kept through re-syncs. The product is recognised again with it, its match kept: a listing the
 * matcher refuses as not a perfume is profiled from its shop's words when corrected to one product
 * worn or burnt for its scent (a spray, an oil, a mist, bakhoor, oud wood), and not when corrected
 * to a set, a sample or another thing. Work: one product recognised, three statements.
 */
export async function setProductKind(
  db: Db,
  snapshot: CatalogSnapshot,
  merchantIdOrSlug: string,
  merchantProductId: string,
  kind: string | null,
): Promise<ProductRow> {
  const merchant = await getMerchant(db, merchantIdOrSlug);
  if (kind !== null && !isProductKind(kind))
    throw badRequest(
      'invalid_kind',
      `No kind of product "${kind.slice(0, 40)}": one of ${PRODUCT_KINDS.join(', ')}, or null to read it from the listing`,
    );
  return db.transaction(async (tx) => {
    const product = await getProduct(tx, merchant.id, merchantProductId);
    const listing = { ...listingOf(product), kindOverride: kind };
    const [r] = await withLearnt(tx, snapshot, merchant, [recogniseProduct(listing, snapshot, decisionOf(product))]);
    const [row] = await tx
      .update(merchantProducts)
      .set({
        ...matchColumns(r as RecognisedProduct),
        // matched by a barcode as before: a stored decision carries no key
        matchKey: product.matchKey,
        kindOverride: kind,
        updatedAt: sql`now()`,
      })
      .where(eq(merchantProducts.id, product.id))
      .returning();
    await touchMerchantCatalog(tx, merchant.id, false);
    return row as ProductRow;
  });
}

/** A merchant's corrections of its products' kinds, by merchant_product_id. */
async function storedKinds(db: DbOrTx, merchantId: string): Promise<Map<string, ProductKind>> {
  const rows = await db
    .select({ id: merchantProducts.merchantProductId, kind: merchantProducts.kindOverride })
    .from(merchantProducts)
    .where(and(eq(merchantProducts.merchantId, merchantId), isNotNull(merchantProducts.kindOverride)));
  return new Map(rows.map((r) => [r.id, r.kind as ProductKind]));
}

/** `recognised` with each product's stored correction of its kind (a sync's listings carry none), recognised again where it has one. */
function withKinds(
  recognised: readonly RecognisedProduct[],
  kinds: ReadonlyMap<string, ProductKind>,
  snapshot: CatalogSnapshot,
): RecognisedProduct[] {
  if (kinds.size === 0) return [...recognised];
  return recognised.map((r) => {
    const kindOverride = kinds.get(r.listing.merchantProductId);
    return kindOverride
      ? withProfiles({ ...r, listing: { ...r.listing, kindOverride } }, snapshot, { profiles: new Map() })
      : r;
  });
}

/** Removes a hand-made pin and lets the matcher decide again. */
export async function unpinMatch(
  db: Db,
  snapshot: CatalogSnapshot,
  merchantIdOrSlug: string,
  merchantProductId: string,
): Promise<ProductRow> {
  const merchant = await getMerchant(db, merchantIdOrSlug);
  return db.transaction(async (tx) => {
    const product = await getProduct(tx, merchant.id, merchantProductId);
    const [r] = await withLearnt(tx, snapshot, merchant, [recogniseProduct(listingOf(product), snapshot)]);
    const [row] = await tx
      .update(merchantProducts)
      .set({ ...matchColumns(r as RecognisedProduct), matchPinned: false, updatedAt: sql`now()` })
      .where(eq(merchantProducts.id, product.id))
      .returning();
    await touchMerchantCatalog(tx, merchant.id, false);
    return row as ProductRow;
  });
}

/** JSON with object keys sorted: jsonb gives keys back in its own order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );
}

export interface RematchSummary {
  merchant_id: string;
  checked: number;
  changed: number;
  matched: number;
  partial: number;
  unmatched: number;
  /** of matched: recognised, with no scent profile from any evidence yet (never recommended) */
  without_profile: number;
  catalog_version: number;
}

/**
 * Matches a merchant's stored products again, after our catalog changed (an
 * import): products pinned by hand are left alone; the others take what the
 * matcher says now. Only rows whose match changed are written.
 */
export async function rematchProducts(
  db: Db,
  snapshot: CatalogSnapshot,
  merchantIdOrSlug: string,
  /** what matches the products again (the service's matcher worker); in process when none is given */
  match: ListingMatcher = inProcessMatcher(snapshot),
  /**
   * only the products carrying one of these barcode keys whose match a barcode can move (matched by
   * a barcode, or not confidently by name): after learning changed what the barcodes say
   */
  opts: { barcodes?: readonly string[]; fromLearning?: boolean } = {},
): Promise<RematchSummary> {
  const merchant = await getMerchant(db, merchantIdOrSlug);
  const byBarcodes = opts.barcodes
    ? sql`${merchantProducts.barcodeKeys} && ${textArray(opts.barcodes)}
        and (${merchantProducts.matchKey} is not null or ${merchantProducts.matchStatus} <> 'matched'
          or coalesce(${merchantProducts.matchConfidence}, 0) < ${CONFIDENT_MATCH})`
    : undefined;
  const rows = await db
    .select()
    .from(merchantProducts)
    .where(and(eq(merchantProducts.merchantId, merchant.id), eq(merchantProducts.matchPinned, false), byBarcodes));
  const counts = { matched: 0, partial: 0, unmatched: 0, without_profile: 0 };
  const changes: { id: string; r: RecognisedProduct; previous: string | null; read: Date }[] = [];
  const recognised = await withLearnt(db, snapshot, merchant, await match.products(merchant.id, rows.map(listingOf)));
  for (const [i, row] of rows.entries()) {
    await turnAt(i);
    const r = recognised[i] as RecognisedProduct;
    counts[r.status]++;
    if (r.status === 'matched' && !r.profile) counts.without_profile++;
    const same =
      r.status === row.matchStatus &&
      r.match.perfumeId === row.sillagePerfumeId &&
      r.sibling === row.matchSibling &&
      (r.matchKey ?? null) === row.matchKey &&
      (r.quality === 'shops' ? (r.shops ?? null) : null) === row.profileShops &&
      canonical(r.profile) === canonical(row.profile);
    if (!same) {
      // the perfume it was matched to before, when that changes (a withdrawn one is kept as it was)
      const moved = r.match.perfumeId !== row.sillagePerfumeId && row.sillagePerfumeId !== null;
      changes.push({ id: row.id, r, previous: moved ? row.sillagePerfumeId : null, read: row.updatedAt });
    }
  }
  return db.transaction(async (tx) => {
    for (const { id, r, previous, read } of changes) {
      await tx
        .update(merchantProducts)
        .set({
          ...matchColumns(r),
          ...(previous ? { previousPerfumeId: previous } : {}),
          matchChangedAt: sql`now()`,
          updatedAt: sql`now()`,
        })
        // a product pinned, synced or matched again since it was read here is left as that left it
        .where(
          and(
            eq(merchantProducts.id, id),
            eq(merchantProducts.matchPinned, false),
            // the column keeps microseconds, a Date milliseconds
            sql`date_trunc('milliseconds', ${merchantProducts.updatedAt}) = ${read.toISOString()}::timestamptz`,
          ),
        );
    }
    const version = changes.length ? await touchMerchantCatalog(tx, merchant.id, false) : merchant.catalogVersion;
    if (opts.fromLearning && changes.length) await carryLearnt(tx, merchant.id, merchant.catalogVersion, version);
    return {
      merchant_id: merchant.id,
      checked: rows.length,
      changed: changes.length,
      ...counts,
      catalog_version: version,
    };
  });
}

/**
 * Every merchant's products matched again against a new catalog, one merchant
 * at a time (each in its own transaction), pins kept: after a release's
 * catalog is loaded (plugins/app/catalog-upgrade.ts) or by an operator.
 */
export async function rematchAllMerchants(
  db: Db,
  snapshot: CatalogSnapshot,
  onMerchant: (summary: RematchSummary) => void = () => {},
  /** asked before each merchant: a closing instance stops between two */
  stop: () => boolean = () => false,
  /** what matches the products again (the service's matcher worker); in process when none is given */
  match: ListingMatcher = inProcessMatcher(snapshot),
): Promise<{ merchants: number; checked: number; changed: number }> {
  const ids = await db
    .selectDistinct({ id: merchantProducts.merchantId })
    .from(merchantProducts)
    .where(eq(merchantProducts.matchPinned, false));
  let checked = 0;
  let changed = 0;
  for (const { id } of ids) {
    if (stop()) break;
    const summary = await rematchProducts(db, snapshot, id, match).catch((err: unknown) => {
      // erased (or being erased) since the list was read: its products go with it, nothing to match
      if (err instanceof AppError && (err.code === 'merchant_not_found' || err.code === 'merchant_erasing'))
        return null;
      throw err;
    });
    if (!summary) continue;
    checked += summary.checked;
    changed += summary.changed;
    onMerchant(summary);
  }
  return { merchants: ids.length, checked, changed };
}
