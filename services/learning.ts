/**
 * What one shop's shelf teaches every shop (docs/learning.md): barcodes, learnt from the products
 * merchants sync. Only derived facts cross between merchants (a barcode's perfume), never a
 * merchant's text, prices or name; a merchant that does not teach is never read, one that does not
 * learn is never answered from what others taught.
 *
 * Learning runs as background work (`learning.barcodes`, plugins/app/learning.ts) after a merchant's
 * products change, and looks only at the barcodes that merchant carries or carried: its cost is
 * bounded by that merchant's shelf, never by the whole service's.
 */

import { and, eq, sql } from 'drizzle-orm';
import type { CatalogSnapshot } from '../catalog/store.ts';
import { type Db, type DbOrTx, rowsOf } from '../db/client.ts';
import { type BarcodeVerdict, type BarcodeWitness, barcodeVerdicts, CONFIDENT_MATCH } from '../matching/barcodes.ts';
import { inProcessMatcher, type ListingMatcher } from '../matching/recognise.ts';
import { learntBarcodes, merchantProducts, merchants } from '../schema/index.ts';
import { LEARN_BATCH } from './barcode-keys.ts';
import { rematchProducts } from './products.ts';

/** What one learning run did: `witnesses` and `statements` are its work, counted. */
export interface LearnSummary {
  /** barcodes looked at again */
  checked: number;
  keys: number;
  conflicts: number;
  /** barcodes whose verdict changed (became a key or a conflict, or stopped being one) */
  changed: number;
  /** products matched again because a barcode they carry changed */
  rematched: number;
  /** the merchants whose products those are (their compiled products are stale) */
  merchants: string[];
  /** rows read: one per barcode, merchant and perfume */
  witnesses: number;
  statements: number;
}

const textArray = (xs: readonly string[]) => sql`${`{${xs.join(',')}}`}::text[]`;

/**
 * Learns again what the barcodes in `keys` say, from every teaching merchant's products, and stores
 * the verdicts (matching/barcodes.ts barcodeVerdicts); products carrying a barcode whose verdict
 * changed are matched again. Work: LEARN_BATCH barcodes a statement, one row per barcode, merchant
 * and perfume read.
 */
export async function learnBarcodes(
  db: Db,
  snapshot: CatalogSnapshot,
  keys: readonly string[],
  match: ListingMatcher = inProcessMatcher(snapshot),
): Promise<LearnSummary> {
  const summary: LearnSummary = {
    checked: 0,
    keys: 0,
    conflicts: 0,
    changed: 0,
    rematched: 0,
    merchants: [],
    witnesses: 0,
    statements: 0,
  };
  const unique = [...new Set(keys)].filter((k) => /^\d{14}$/.test(k)).sort();
  const changed: string[] = [];
  for (let i = 0; i < unique.length; i += LEARN_BATCH) {
    const batch = unique.slice(i, i + LEARN_BATCH);
    summary.checked += batch.length;
    const rows = rowsOf<{ barcode: string; merchant_id: string; perfume_id: string; teaches: boolean }>(
      await db.execute(sql`
        select k as barcode, p.merchant_id, p.sillage_perfume_id as perfume_id,
          bool_or(p.match_pinned or not p.match_sibling) as teaches
        from ${merchantProducts} p
        join ${merchants} m on m.id = p.merchant_id and m.teaches
        cross join lateral unnest(p.barcode_keys) as k
        where p.barcode_keys && ${textArray(batch)} and k = any(${textArray(batch)})
          and p.match_status = 'matched' and p.sillage_perfume_id is not null and p.match_key is null
          and (p.match_pinned or p.match_confidence >= ${CONFIDENT_MATCH})
        group by 1, 2, 3`),
    );
    summary.statements++;
    summary.witnesses += rows.length;
    const witnesses: BarcodeWitness[] = rows.map((r) => ({
      barcode: r.barcode,
      merchantId: r.merchant_id,
      perfumeId: r.perfume_id,
      teaches: r.teaches === true,
    }));
    const verdicts = barcodeVerdicts(witnesses);
    const before = await db
      .select({ barcode: learntBarcodes.barcode, status: learntBarcodes.status, perfumeId: learntBarcodes.perfumeId })
      .from(learntBarcodes)
      .where(sql`${learntBarcodes.barcode} = any(${textArray(batch)})`);
    summary.statements++;
    const was = new Map(before.map((b) => [b.barcode, `${b.status}:${b.perfumeId ?? ''}`]));
    const now = new Map(verdicts.map((v) => [v.barcode, `${v.status}:${v.perfumeId ?? ''}`]));
    for (const k of batch) if (was.get(k) !== now.get(k)) changed.push(k);
    for (const v of verdicts) summary[v.status === 'key' ? 'keys' : 'conflicts']++;
    await db.transaction(async (tx) => {
      const gone = batch.filter((k) => !now.has(k) && was.has(k));
      if (gone.length) {
        await tx.delete(learntBarcodes).where(sql`${learntBarcodes.barcode} = any(${textArray(gone)})`);
        summary.statements++;
      }
      if (verdicts.length) {
        await tx.execute(upsertVerdicts(verdicts));
        summary.statements++;
      }
    });
  }
  summary.changed = changed.length;
  if (changed.length) {
    // the products of any merchant whose match a changed barcode can move: matched by a barcode, or not confidently by name
    const owners = rowsOf<{ merchant_id: string }>(
      await db.execute(sql`
        select distinct merchant_id from ${merchantProducts}
        where barcode_keys && ${textArray(changed)} and not match_pinned
          and (match_key is not null or match_status <> 'matched' or coalesce(match_confidence, 0) < ${CONFIDENT_MATCH})`),
    );
    summary.statements++;
    for (const { merchant_id } of owners) {
      const r = await rematchProducts(db, snapshot, merchant_id, match, { barcodes: changed });
      summary.rematched += r.changed;
      if (r.changed) summary.merchants.push(merchant_id);
      summary.statements += 2;
    }
  }
  return summary;
}

function upsertVerdicts(verdicts: readonly BarcodeVerdict[]) {
  const json = JSON.stringify(
    verdicts.map((v) => ({
      barcode: v.barcode,
      status: v.status,
      perfume_id: v.perfumeId,
      shops: v.shops,
      perfumes: v.perfumes,
      merchant_ids: v.merchantIds,
    })),
  );
  return sql`insert into ${learntBarcodes} (barcode, status, perfume_id, shops, perfumes, merchant_ids)
    select barcode, status, perfume_id, shops, perfumes, merchant_ids
    from json_populate_recordset(null::learnt_barcodes, ${json}::json)
    on conflict (barcode) do update set status = excluded.status, perfume_id = excluded.perfume_id,
      shops = excluded.shops, perfumes = excluded.perfumes, merchant_ids = excluded.merchant_ids, updated_at = now()`;
}

/**
 * Learns again what a merchant's shelf bears on: the barcodes its products carry, and those it
 * was counted for before (products since removed, a merchant erased or no longer teaching).
 */
export async function learnFromMerchant(
  db: Db,
  snapshot: CatalogSnapshot,
  merchantId: string,
  match?: ListingMatcher,
): Promise<LearnSummary> {
  const rows = rowsOf<{ k: string }>(
    await db.execute(sql`
      select distinct unnest(barcode_keys) as k from ${merchantProducts} where merchant_id = ${merchantId}
      union
      select barcode as k from ${learntBarcodes} where merchant_ids @> array[${merchantId}]::uuid[]`),
  );
  const summary = await learnBarcodes(
    db,
    snapshot,
    rows.map((r) => r.k),
    match,
  );
  summary.statements++;
  return summary;
}

/** The learnt barcodes, for the operator: conflicts (or keys), most shops first, a page at a time. */
export async function listLearntBarcodes(
  db: DbOrTx,
  opts: { status: 'key' | 'conflict'; limit: number; offset: number },
) {
  const where = eq(learntBarcodes.status, opts.status);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(learntBarcodes)
      .where(where)
      .orderBy(sql`${learntBarcodes.shops} desc`, learntBarcodes.barcode)
      .limit(opts.limit)
      .offset(opts.offset),
    db.select({ n: sql<number>`count(*)::int` }).from(learntBarcodes).where(and(where)),
  ]);
  return { rows, total: Number(total?.n ?? 0) };
}

/** Merchants learnt from at most this many per dispatch (the rest at the next). */
export const LEARN_DISPATCH_LIMIT = 500;

/**
 * The merchants whose shelves changed since they were last learnt from (their catalog_version moved),
 * and the erased ones that still have a part in a learnt barcode: what the dispatch sends to learn.
 */
export async function merchantsToLearn(db: DbOrTx, limit = LEARN_DISPATCH_LIMIT): Promise<string[]> {
  const rows = rowsOf<{ id: string }>(
    await db.execute(sql`
      (select id from ${merchants} where learnt_version is distinct from catalog_version limit ${limit})
      union
      (select m.id from (select distinct unnest(merchant_ids) as id from ${learntBarcodes}) m
        where not exists (select 1 from ${merchants} x where x.id = m.id) limit ${limit})`),
  );
  return rows.map((r) => r.id);
}

/**
 * Learns from one merchant's shelf (learnFromMerchant) and marks it learnt at the version read
 * before: a sync landing meanwhile leaves the versions apart, and the next dispatch learns again.
 */
export async function learnMerchant(
  db: Db,
  snapshot: CatalogSnapshot,
  merchantId: string,
  match?: ListingMatcher,
): Promise<LearnSummary> {
  const [before] = await db
    .select({ version: merchants.catalogVersion, learnt: merchants.learntVersion })
    .from(merchants)
    .where(eq(merchants.id, merchantId));
  const summary = await learnFromMerchant(db, snapshot, merchantId, match);
  if (before && before.learnt === null) {
    // learnt from for the first time, or its choices changed: its own products take what is known now
    const own = rowsOf<{ k: string }>(
      await db.execute(
        sql`select distinct unnest(barcode_keys) as k from ${merchantProducts} where merchant_id = ${merchantId}`,
      ),
    ).map((r) => r.k);
    summary.statements++;
    if (own.length) {
      const r = await rematchProducts(db, snapshot, merchantId, match, { barcodes: own });
      summary.statements += 2;
      summary.rematched += r.changed;
      if (r.changed && !summary.merchants.includes(merchantId)) summary.merchants.push(merchantId);
    }
  }
  if (before) {
    await db.update(merchants).set({ learntVersion: before.version }).where(eq(merchants.id, merchantId));
    summary.statements += 2;
  }
  return summary;
}

type LearntRow = typeof learntBarcodes.$inferSelect;

/** A learnt barcode as the operator sees it: its perfumes named, its shops counted (never named). */
export function learntBarcodeView(row: LearntRow, snapshot: CatalogSnapshot) {
  const named = (id: string) => {
    const p = snapshot.byId.get(id);
    return { sillage_perfume_id: id, name: p?.name ?? null, house: p?.house ?? null };
  };
  return {
    barcode: row.barcode,
    status: row.status,
    perfume: row.perfumeId ? named(row.perfumeId) : null,
    shops: row.shops,
    perfumes: row.perfumes ? row.perfumes.map((p) => ({ ...named(p.perfume_id), shops: p.shops })) : null,
    updated_at: row.updatedAt.toISOString(),
  };
}
