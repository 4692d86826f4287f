/**
 * New identities from shelves (docs/learning.md "New identities"): a house and line the catalog
 * does not know, spelt the same way by the listings of at least two independent shops, is
 * proposed to the operator with those listings as its evidence (matching/identities.ts reads
 * them). Learning keeps a waiting proposal current (services/learning.ts learnFromMerchant calls
 * learnIdentities for each merchant it learns from); the operator approves one (a catalog record
 * is created from it, and every shelf is matched again against the catalog) or rejects it, with why.
 *
 * Only teaching merchants' listings count, and only listings with a page to cite; what crosses to
 * the operator is the listings' pages and titles (public storefront pages), never a merchant's name,
 * prices or anything else of its own.
 */

import { createHash } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { readEvidence } from '../catalog/evidence.ts';
import type { PerfumeRecord } from '../catalog/schema.ts';
import type { CatalogSnapshot } from '../catalog/store.ts';
import type { Db, DbOrTx } from '../db/client.ts';
import { rowsOf, textArray } from '../db/client.ts';
import { AppError, badRequest, conflict, notFound } from '../lib/errors.ts';
import { normalizeText } from '../lib/text.ts';
import { type IdentityProposal, type IdentityWitness, identityProposalOf } from '../matching/identities.ts';
import { identityProposals, merchantProducts, merchants } from '../schema/index.ts';
import type { IdentityStatus } from '../schema/learning.ts';
import { importCatalog } from './catalog-import.ts';

/** Spellings read a statement, and shops' listings read a spelling at most. */
export const IDENTITY_BATCH = 100;
export const MAX_IDENTITY_WITNESSES = 20;

type Row = typeof identityProposals.$inferSelect;

/** The proposal's id in the admin API: a short digest of its spelling. */
export const identityIdOf = (spelling: string) =>
  createHash('sha256').update(spelling).digest('base64url').slice(0, 16).replace(/[-_]/g, 'x');

/** What learning one merchant's unknown listings did to identity proposals: its work, counted. */
export interface IdentitySummary {
  spellings: number;
  /** listings read, one per spelling and shop (at most MAX_IDENTITY_WITNESSES a spelling) */
  listings: number;
  proposed: number;
  withdrawn: number;
  statements: number;
}

/**
 * Learns again what the listings of one merchant's unknown products propose: its spellings that no
 * perfume of ours matches, and those of the waiting proposals it was counted in. Work: one
 * statement for the spellings, then for each IDENTITY_BATCH of them one read (at most
 * MAX_IDENTITY_WITNESSES listings a spelling), one read of their proposals, and at most one write
 * and one delete.
 */
export async function learnIdentities(db: Db, snapshot: CatalogSnapshot, merchantId: string): Promise<IdentitySummary> {
  const summary: IdentitySummary = { spellings: 0, listings: 0, proposed: 0, withdrawn: 0, statements: 0 };
  const spellings = rowsOf<{ k: string }>(
    await db.execute(sql`
      select distinct k from ${merchantProducts} p cross join lateral unnest(p.barcode_keys) as k
      where p.merchant_id = ${merchantId} and k like 's:%' and p.sillage_perfume_id is null
        and not p.match_pinned and p.match_status in ('unmatched', 'partial') and p.product_url is not null
      union
      select spelling as k from ${identityProposals}
      where merchant_ids @> array[${merchantId}]::uuid[] and status <> 'approved'`),
  )
    .map((r) => r.k)
    .sort();
  summary.statements++;
  for (let i = 0; i < spellings.length; i += IDENTITY_BATCH) {
    const batch = spellings.slice(i, i + IDENTITY_BATCH);
    summary.spellings += batch.length;
    const rows = rowsOf<{ k: string; merchant_id: string; url: string; name: string; house: string }>(
      await db.execute(sql`
        select k, merchant_id, url, name, house from (
          select k, merchant_id, url, name, house, row_number() over (partition by k order by merchant_id) as n
          from (
            select distinct on (k, p.merchant_id) k, p.merchant_id, p.product_url as url, p.name, p.house
            from ${merchantProducts} p
            join ${merchants} m on m.id = p.merchant_id and m.teaches and m.erased_at is null
            cross join lateral unnest(p.barcode_keys) as k
            where p.barcode_keys && ${textArray(batch)} and k = any(${textArray(batch)})
              and p.sillage_perfume_id is null and not p.match_pinned
              and p.match_status in ('unmatched', 'partial') and p.product_url is not null
            order by k, p.merchant_id, p.product_url
          ) one_a_shop
        ) firsts
        where n <= ${MAX_IDENTITY_WITNESSES}`),
    );
    summary.statements++;
    summary.listings += rows.length;
    const bySpelling = new Map<string, IdentityWitness[]>();
    for (const r of rows) {
      const list = bySpelling.get(r.k) ?? [];
      list.push({ merchantId: r.merchant_id, url: r.url, name: r.name, house: r.house });
      bySpelling.set(r.k, list);
    }
    const proposed: IdentityProposal[] = [];
    for (const k of batch) {
      const p = identityProposalOf(k, bySpelling.get(k) ?? [], snapshot.index);
      if (p) proposed.push(p);
    }
    const kept = new Set(proposed.map((p) => p.key));
    const gone = batch.filter((k) => !kept.has(k));
    await db.transaction(async (tx) => {
      if (proposed.length) {
        // a reviewed proposal keeps its review; its counts follow the shelves
        await tx
          .insert(identityProposals)
          .values(
            proposed.map((p) => ({
              id: identityIdOf(p.key),
              spelling: p.key,
              house: p.house,
              name: p.name,
              concentration: p.concentration,
              gender: p.gender,
              shops: p.shops,
              merchantIds: p.merchantIds,
              evidence: p.evidence,
            })),
          )
          .onConflictDoUpdate({
            target: identityProposals.spelling,
            set: {
              house: sql`excluded.house`,
              name: sql`excluded.name`,
              concentration: sql`excluded.concentration`,
              gender: sql`excluded.gender`,
              shops: sql`excluded.shops`,
              merchantIds: sql`excluded.merchant_ids`,
              evidence: sql`excluded.evidence`,
              updatedAt: sql`now()`,
            },
            setWhere: sql`${identityProposals.status} <> 'approved'`,
          });
        summary.statements++;
      }
      if (gone.length) {
        // fewer than two shops now: a waiting proposal goes; a rejected one keeps its review with
        // the shops still listing it (and goes once none does)
        const left = gone.map((k) => {
          const ws = bySpelling.get(k) ?? [];
          return { k, merchants: [...new Set(ws.map((w) => w.merchantId))].sort(), urls: ws.map((w) => w.url) };
        });
        const withdrawn = rowsOf<{ id: string }>(
          await tx.execute(sql`
            with left_now as (
              select x.k, x.merchants, x.urls from jsonb_to_recordset(${JSON.stringify(left)}::jsonb)
                as x(k text, merchants uuid[], urls text[])),
            kept as (
              update ${identityProposals} p set merchant_ids = l.merchants, shops = cardinality(l.merchants),
                evidence = coalesce((select jsonb_agg(e) from jsonb_array_elements(p.evidence) e
                  where e->>'url' = any(l.urls)), '[]'::jsonb), updated_at = now()
              from left_now l
              where p.spelling = l.k and p.status = 'rejected' and cardinality(l.merchants) > 0
                and p.merchant_ids is distinct from l.merchants)
            delete from ${identityProposals} p using left_now l
            where p.spelling = l.k and (p.status = 'waiting' or (p.status = 'rejected' and cardinality(l.merchants) = 0))
            returning p.id`),
        );
        summary.withdrawn += withdrawn.length;
        summary.statements++;
      }
    });
    summary.proposed += proposed.length;
  }
  // a merchant that no longer teaches (or is erased) is no longer counted in any proposal, approved ones included
  await db.execute(sql`
    update ${identityProposals} set merchant_ids = array_remove(merchant_ids, ${merchantId}::uuid)
    where merchant_ids @> array[${merchantId}]::uuid[]
      and not exists (select 1 from ${merchants} m where m.id = ${merchantId} and m.teaches and m.erased_at is null)`);
  summary.statements++;
  return summary;
}

export const IDENTITY_LIST_STATUSES = ['waiting', 'approved', 'rejected', 'all'] as const;

/** A proposal as the operator reads it: what the listings say, and the listings themselves. */
export function identityView(row: Row) {
  return {
    id: row.id,
    house: row.house,
    name: row.name,
    concentration: row.concentration,
    gender: row.gender,
    shops: row.shops,
    evidence: row.evidence.map((e) => ({ url: e.url, shop: e.owner, title: e.title })),
    status: row.status,
    sillage_perfume_id: row.perfumeId,
    why: row.why,
    reviewed_at: row.reviewedAt?.toISOString() ?? null,
    updated_at: row.updatedAt.toISOString(),
  };
}

/** Proposals, a page at a time, most shops first. */
export async function listIdentities(
  db: DbOrTx,
  opts: { status: IdentityStatus | 'all'; limit: number; offset: number },
): Promise<{ rows: Row[]; total: number }> {
  const where = opts.status === 'all' ? sql`true` : sql`${identityProposals.status} = ${opts.status}`;
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(identityProposals)
      .where(where)
      .orderBy(sql`${identityProposals.shops} desc`, identityProposals.house, identityProposals.name)
      .limit(opts.limit)
      .offset(opts.offset),
    db.select({ n: sql<number>`count(*)::int` }).from(identityProposals).where(where),
  ]);
  return { rows, total: Number(total?.n ?? 0) };
}

/** What the operator may set on approving: the name as it should read, and what the listings do not state. */
export interface IdentityReview {
  decision: 'approve' | 'reject';
  why: string;
  name?: string;
  name_ar?: string;
  concentration?: string;
  gender?: string;
}

const slug = (s: string) =>
  normalizeText(s)
    .replace(/[^a-z0-9 ]/g, '')
    .trim()
    .replace(/ +/g, '-');

/** The catalog record an approval makes: its listings as evidence of its identity (and gender, when they state it). */
export function identityRecord(row: Row, review: IdentityReview): PerfumeRecord {
  const name = review.name?.trim() || row.name;
  const concentration = review.concentration ?? row.concentration;
  if (!concentration)
    throw badRequest('invalid_review', 'The listings state no concentration: give one (edp, edt, parfum, …)');
  const stated = row.gender;
  const gender = review.gender ?? stated;
  if (!gender) throw badRequest('invalid_review', 'The listings state no gender: give one (men, women, unisex)');
  const line = slug(name);
  if (!line) throw badRequest('invalid_review', 'Give the name in Latin letters as well: the record id is made of it');
  const genderStated = stated !== null && stated === gender;
  return {
    id: `${slug(row.house)}-${line}-${concentration}`.slice(0, 120).replace(/-+$/, ''),
    name,
    ...(review.name_ar?.trim() ? { name_ar: review.name_ar.trim() } : {}),
    house: row.house,
    concentration,
    gender,
    evidence: row.evidence.map((e) => ({
      source: e.url,
      kind: 'shop' as const,
      owner: e.owner,
      gave: e.title,
      supports: genderStated ? ['identity' as const, 'gender' as const] : ['identity' as const],
    })),
  };
}

/**
 * The operator's review. A rejection is kept with why (learning keeps its counts current and never
 * proposes it again as new). An approval creates the catalog record (refused when the catalog has
 * the id or the same house, name and concentration, or when its listings no longer back an
 * identity) and answers the new catalog version, for the caller to match every shelf again.
 */
export async function reviewIdentity(
  db: Db,
  snapshot: CatalogSnapshot,
  id: string,
  review: IdentityReview,
): Promise<{ row: Row; catalogVersion: number | null }> {
  const [row] = await db.select().from(identityProposals).where(eq(identityProposals.id, id)).limit(1);
  if (!row) throw notFound('proposal_not_found', `No new perfume is proposed as "${id.slice(0, 40)}"`);
  const why = review.why.trim();
  if (!why) throw badRequest('invalid_review', 'Say why: the reason is kept with the review');
  if (row.status === 'approved')
    throw conflict('already_reviewed', `Approved already: it is perfume ${row.perfumeId ?? ''} of the catalog`);
  if (review.decision === 'reject') {
    const [updated] = await db
      .update(identityProposals)
      .set({ status: 'rejected', why, reviewedAt: sql`now()`, updatedAt: sql`now()` })
      .where(eq(identityProposals.id, id))
      .returning();
    return { row: updated as Row, catalogVersion: null };
  }
  const record = identityRecord(row, review);
  if (snapshot.byId.has(record.id))
    throw conflict(
      'identity_exists',
      `The catalog has a perfume "${record.id}" already: pin the listings to it instead`,
    );
  const reading = readEvidence(record);
  if (!reading.identity)
    throw badRequest(
      'invalid_review',
      `Its listings no longer back an identity (${reading.shops} shop): nothing was added`,
    );
  const summary = await importCatalog(
    db,
    (async function* () {
      yield { row: 1, record };
    })(),
  );
  const refused = summary.rejected[0];
  if (refused) {
    if (/same name, house and concentration/.test(refused.reason))
      throw conflict(
        'identity_exists',
        `The catalog has this perfume already (${refused.reason}): pin the listings to it`,
      );
    throw new AppError(400, 'invalid_review', `The record was refused: ${refused.reason}`);
  }
  const [updated] = await db
    .update(identityProposals)
    .set({ status: 'approved', perfumeId: record.id, why, reviewedAt: sql`now()`, updatedAt: sql`now()` })
    .where(eq(identityProposals.id, id))
    .returning();
  return { row: updated as Row, catalogVersion: summary.catalogVersion };
}
