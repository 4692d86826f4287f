/**
 * What one shop's shelf teaches every shop (docs/learning.md): barcodes, and perfumes' notes as shops
 * describe them, learnt from the products merchants sync. Only derived facts cross between merchants (a barcode's perfume), never a
 * merchant's text, prices or name; a merchant that does not teach is never read, one that does not
 * learn is never answered from what others taught.
 *
 * Learning runs as background work (`learning.barcodes`, plugins/app/learning.ts) after a merchant's
 * products change, and looks only at the barcodes that merchant carries or carried: its cost is
 * bounded by that merchant's shelf, never by the whole service's.
 */

import { createHash } from 'node:crypto';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { CatalogSnapshot } from '../catalog/store.ts';
import { type Db, type DbOrTx, rowsOf, textArray } from '../db/client.ts';
import { slicer } from '../lib/turns.ts';
import { type ProductAnswer, type Proposal, proposalOf } from '../matching/answers.ts';
import {
  type BarcodeVerdict,
  type BarcodeWitness,
  barcodeVerdicts,
  CONFIDENT_MATCH,
  reviewedVerdicts,
  type SpellingReview,
} from '../matching/barcodes.ts';
import { inProcessMatcher, type Learnt, type ListingMatcher } from '../matching/recognise.ts';
import {
  type AgreedNotes,
  agreedNotes,
  type ShopNotes,
  type ShopProfile,
  type ShopVoice,
  shopNotesOf,
  shopsProfile,
  textPrint,
} from '../matching/shop-notes.ts';
import {
  identityProposals,
  learntBarcodes,
  learntProfiles,
  merchantProducts,
  merchants,
  proposals,
} from '../schema/index.ts';
import { learnIdentities } from './identities.ts';
import { LEARN_BATCH, learntOf, learntProfileOf } from './learnt.ts';
import { rematchProducts, reprofileProducts } from './products.ts';

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
  /** the merchant's descriptions read for their notes (only those new or changed since the last run) */
  descriptionsRead: number;
  /** perfumes whose notes were learnt again */
  perfumesChecked: number;
  /** of them, those with a profile as shops describe them now */
  profiles: number;
  /** perfumes whose profile from shops came, changed or went */
  profilesChanged: number;
  /** products given (or relieved of) a profile from shops because of it */
  reprofiled: number;
  /** rows read to learn the profiles: one per product described (at most MAX_VOICE_ROWS a perfume) */
  voices: number;
  /** new perfumes the merchant's unknown listings propose with other shops' (services/identities.ts) */
  identitiesProposed: number;
  /** listings read for them: one per spelling and shop */
  identityListings: number;
}

const emptySummary = (): LearnSummary => ({
  checked: 0,
  keys: 0,
  conflicts: 0,
  changed: 0,
  rematched: 0,
  merchants: [],
  witnesses: 0,
  statements: 0,
  descriptionsRead: 0,
  perfumesChecked: 0,
  profiles: 0,
  profilesChanged: 0,
  reprofiled: 0,
  voices: 0,
  identitiesProposed: 0,
  identityListings: 0,
});

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
  const summary = emptySummary();
  const unique = [...new Set(keys)].filter((k) => /^\d{14}$/.test(k) || k.startsWith('s:')).sort();
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
          -- a spelling is taught by a pin alone: a name matched confidently matches as well everywhere
          and (p.match_pinned or (p.match_confidence >= ${CONFIDENT_MATCH} and k not like 's:%'))
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
    const verdicts = reviewedVerdicts(barcodeVerdicts(witnesses), witnesses, await spellingReview(db, batch, summary));
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
          -- a shelf being erased is left to its erasure
          and not exists (select 1 from ${merchants} m where m.id = merchant_id and m.erased_at is not null)
          and (match_key is not null or match_status <> 'matched' or coalesce(match_confidence, 0) < ${CONFIDENT_MATCH})`),
    );
    summary.statements++;
    for (const { merchant_id } of owners) {
      const r = await rematchProducts(db, snapshot, merchant_id, match, { barcodes: changed, fromLearning: true });
      summary.rematched += r.changed;
      if (r.changed) summary.merchants.push(merchant_id);
      summary.statements += 2;
    }
  }
  return summary;
}

/** A spelling key's item in a perfume's proposal, and back. */
export const spellingItem = (key: string) => `spelling:${key.slice(2)}`;
export const spellingKeyOf = (item: string) => `s:${item.slice('spelling:'.length)}`;

/** The operator's review of the spellings among `keys` (one statement, none without spellings). */
async function spellingReview(db: DbOrTx, keys: readonly string[], summary: LearnSummary): Promise<SpellingReview> {
  const items = keys.filter((k) => k.startsWith('s:')).map(spellingItem);
  const review = { approved: new Map<string, string>(), rejected: new Map<string, Set<string>>() };
  if (items.length === 0) return review;
  const rows = await db
    .select({ perfumeId: proposals.perfumeId, approved: proposals.approved, rejected: proposals.rejected })
    .from(proposals)
    .where(sql`${proposals.approved} && ${textArray(items)} or ${proposals.rejected} && ${textArray(items)}`);
  summary.statements++;
  const wanted = new Set(items);
  for (const r of rows) {
    for (const i of r.approved) if (wanted.has(i)) review.approved.set(spellingKeyOf(i), r.perfumeId);
    for (const i of r.rejected)
      if (wanted.has(i)) {
        const k = spellingKeyOf(i);
        review.rejected.set(k, (review.rejected.get(k) ?? new Set()).add(r.perfumeId));
      }
  }
  return review;
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
      select distinct k from ${merchantProducts} p cross join lateral unnest(p.barcode_keys) as k
      -- a spelling is taught by a pin alone: an unpinned product's is never learnt from it
      where p.merchant_id = ${merchantId} and (p.match_pinned or k not like 's:%')
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
  await learnProfiles(db, snapshot, merchantId, summary);
  const identities = await learnIdentities(db, snapshot, merchantId);
  summary.identitiesProposed = identities.proposed;
  summary.identityListings = identities.listings;
  summary.statements += identities.statements;
  return summary;
}

/** Rows of products describing one perfume read at most, per learning of it. */
export const MAX_VOICE_ROWS = 40;
/**
 * Perfumes learnt (and their products given their profile) a statement: at most 2,000 rows of
 * notes read at once, so no statement holds the database, nor its answer the event loop, for long.
 */
export const PROFILE_BATCH = 50;

const inputsOf = (description: string | null, notes: unknown) =>
  createHash('sha1')
    .update(JSON.stringify([description, notes ?? null]))
    .digest('base64url');

/**
 * What a merchant's descriptions teach: its products' notes read again where their description
 * or notes changed (for a merchant that teaches), then the notes shops agree on learnt again for
 * every perfume its products are matched to (or were counted for before), and the products of
 * every merchant matched to a perfume whose profile from shops changed given it. Work: the
 * merchant's changed descriptions read once each (at most 4,000 characters); LEARN_BATCH
 * perfumes a statement, at most MAX_VOICE_ROWS rows each.
 */
export async function learnProfiles(
  db: Db,
  snapshot: CatalogSnapshot,
  merchantId: string,
  summary: LearnSummary = emptySummary(),
): Promise<LearnSummary> {
  const [merchant] = await db
    .select({ teaches: merchants.teaches })
    .from(merchants)
    .where(eq(merchants.id, merchantId));
  summary.statements++;
  if (merchant?.teaches) {
    const stale = await db
      .select({
        id: merchantProducts.id,
        description: merchantProducts.description,
        notes: merchantProducts.notes,
        of: merchantProducts.shopNotesOf,
      })
      .from(merchantProducts)
      .where(
        and(
          eq(merchantProducts.merchantId, merchantId),
          sql`(${merchantProducts.description} is not null or ${merchantProducts.notes} is not null or ${merchantProducts.shopNotesOf} is not null)`,
        ),
      );
    summary.statements++;
    const changes: { id: string; notes: ShopNotes | null; print: number[] | null; of: string | null }[] = [];
    // a description read costs up to a millisecond: requests are answered between stretches of TURN_MS
    const slice = slicer();
    for (const p of stale) {
      await slice();
      const of = p.description === null && p.notes === null ? null : inputsOf(p.description, p.notes);
      if (of === p.of) continue;
      summary.descriptionsRead++;
      changes.push({
        id: p.id,
        notes: of ? shopNotesOf({ description: p.description, notes: p.notes }) : null,
        print: of ? textPrint(p.description) : null,
        of,
      });
    }
    for (let i = 0; i < changes.length; i += LEARN_BATCH) {
      const json = JSON.stringify(changes.slice(i, i + LEARN_BATCH));
      await db.execute(sql`update ${merchantProducts} p set shop_notes = c.notes, text_print = c.print, shop_notes_of = c.of
        from json_to_recordset(${json}::json) as c(id uuid, notes jsonb, print integer[], of text)
        where p.id = c.id`);
      summary.statements++;
    }
  }
  const perfumes = rowsOf<{ id: string }>(
    await db.execute(sql`
      select distinct sillage_perfume_id as id from ${merchantProducts}
      where merchant_id = ${merchantId} and match_status = 'matched' and sillage_perfume_id is not null
      union
      select perfume_id as id from ${learntProfiles} where merchant_ids @> array[${merchantId}]::uuid[]
      union
      select perfume_id as id from ${proposals} where merchant_ids @> array[${merchantId}]::uuid[]`),
  )
    .map((r) => r.id)
    .sort();
  summary.statements++;
  return learnPerfumes(db, snapshot, perfumes, summary);
}

/** What learning holds of one perfume: the notes and accords shops agree on, the original answers name. */
interface LearntEntry {
  notes: AgreedNotes['notes'];
  accords: string[];
  inspiredBy: string | null;
  shops: number;
  merchantIds: string[];
}

const entryKey = (e: Pick<LearntEntry, 'notes' | 'accords' | 'inspiredBy' | 'shops'> | undefined) =>
  e ? JSON.stringify([e.notes, e.accords, e.inspiredBy, e.shops]) : undefined;

/**
 * What shops teach of these perfumes, learnt again: the notes their descriptions agree on
 * (matching/shop-notes.ts) and what merchants' own answers propose (matching/answers.ts, under the
 * operator's review), stored as each perfume's learnt profile and proposal; then the products of
 * every merchant matched to a perfume whose learnt profile changed given it. Work: per PROFILE_BATCH
 * perfumes, four reads (at most MAX_VOICE_ROWS rows a perfume each) and at most four writes.
 */
export async function learnPerfumes(
  db: Db,
  snapshot: CatalogSnapshot,
  perfumes: readonly string[],
  summary: LearnSummary = emptySummary(),
): Promise<LearnSummary> {
  const changed = new Map<string, LearntEntry | null>();
  for (let i = 0; i < perfumes.length; i += PROFILE_BATCH) {
    const batch = perfumes.slice(i, i + PROFILE_BATCH);
    const ids = textArray(batch);
    summary.perfumesChecked += batch.length;
    // a product teaches when its merchant teaches and it is the perfume: matched confidently by its
    // name, or pinned, never as a sibling version nor by a barcode (what it was taught)
    const teaching = sql`p.match_status = 'matched' and not p.match_sibling and p.match_key is null
      and (p.match_pinned or p.match_confidence >= ${CONFIDENT_MATCH})`;
    const rows = rowsOf<{
      perfume_id: string;
      merchant_id: string;
      shop_notes: ShopNotes;
      text_print: number[] | null;
    }>(
      await db.execute(sql`
        select perfume_id, merchant_id, shop_notes, text_print from (
          select p.sillage_perfume_id as perfume_id, p.merchant_id, p.shop_notes, p.text_print,
            row_number() over (partition by p.sillage_perfume_id order by p.merchant_id, p.id) as n
          from ${merchantProducts} p
          join ${merchants} m on m.id = p.merchant_id and m.teaches
          where p.sillage_perfume_id = any(${ids}) and ${teaching} and p.shop_notes is not null
        ) v where n <= ${MAX_VOICE_ROWS}`),
    );
    const answered = rowsOf<{ perfume_id: string; merchant_id: string; answer: ProductAnswer }>(
      await db.execute(sql`
        select perfume_id, merchant_id, answer from (
          select p.sillage_perfume_id as perfume_id, p.merchant_id, p.answer,
            row_number() over (partition by p.sillage_perfume_id order by p.merchant_id, p.id) as n
          from ${merchantProducts} p
          join ${merchants} m on m.id = p.merchant_id and m.teaches
          where p.sillage_perfume_id = any(${ids}) and ${teaching} and p.answer is not null
        ) v where n <= ${MAX_VOICE_ROWS}`),
    );
    // the spellings of products pinned to them by hand: a pin is a merchant's word that a listing is the perfume
    const pinned = rowsOf<{ perfume_id: string; merchant_id: string; spelling: string }>(
      await db.execute(sql`
        select perfume_id, merchant_id, spelling from (
          select p.sillage_perfume_id as perfume_id, p.merchant_id, k as spelling,
            row_number() over (partition by p.sillage_perfume_id order by p.merchant_id, p.id) as n
          from ${merchantProducts} p
          join ${merchants} m on m.id = p.merchant_id and m.teaches
          cross join lateral unnest(p.barcode_keys) as k
          where p.sillage_perfume_id = any(${ids}) and p.match_pinned and p.match_status = 'matched'
            and k like 's:%'
        ) v where n <= ${MAX_VOICE_ROWS}`),
    );
    const reviews = await db
      .select({ id: proposals.perfumeId, approved: proposals.approved, rejected: proposals.rejected })
      .from(proposals)
      .where(inArray(proposals.perfumeId, batch));
    summary.statements += 4;
    summary.voices += rows.length + answered.length + pinned.length;
    const voices = new Map<string, ShopVoice[]>();
    for (const r of rows) {
      const list = voices.get(r.perfume_id) ?? [];
      list.push({ merchantId: r.merchant_id, notes: r.shop_notes, print: r.text_print });
      voices.set(r.perfume_id, list);
    }
    const answers = new Map<string, { merchantId: string; answer?: ProductAnswer; items?: string[] }[]>();
    const add = (perfumeId: string, voice: { merchantId: string; answer?: ProductAnswer; items?: string[] }) =>
      answers.set(perfumeId, [...(answers.get(perfumeId) ?? []), voice]);
    for (const r of answered) add(r.perfume_id, { merchantId: r.merchant_id, answer: r.answer });
    for (const r of pinned) add(r.perfume_id, { merchantId: r.merchant_id, items: [spellingItem(r.spelling)] });
    const reviewOf = new Map(reviews.map((r) => [r.id, r]));
    const entries = new Map<string, LearntEntry>();
    const proposed = new Map<string, { proposal: Proposal; merchantIds: string[] }>();
    for (const id of batch) {
      const vs = voices.get(id) ?? [];
      const as = answers.get(id) ?? [];
      const agreed = vs.length ? agreedNotes(vs) : null;
      const proposal = as.length ? proposalOf(as, reviewOf.get(id)) : null;
      if (proposal) proposed.set(id, { proposal, merchantIds: [...new Set(as.map((a) => a.merchantId))].sort() });
      const entry = learntEntry(agreed, proposal);
      if (!entry) continue;
      entry.merchantIds = [...new Set([...vs, ...as].map((v) => v.merchantId))].sort();
      entries.set(id, entry);
    }
    const before = await db
      .select({
        id: learntProfiles.perfumeId,
        notes: learntProfiles.notes,
        accords: learntProfiles.accords,
        inspiredBy: learntProfiles.inspiredBy,
        shops: learntProfiles.shops,
      })
      .from(learntProfiles)
      .where(inArray(learntProfiles.perfumeId, batch));
    summary.statements++;
    const was = new Map(before.map((b) => [b.id, entryKey(b)]));
    for (const id of batch) {
      const e = entries.get(id);
      if (was.get(id) !== entryKey(e)) changed.set(id, e ?? null);
    }
    summary.profiles += [...entries.values()].filter((e) => learntProfileOf(e)).length;
    await db.transaction(async (tx) => {
      const gone = batch.filter((id) => was.has(id) && !entries.has(id));
      if (gone.length) {
        await tx.delete(learntProfiles).where(inArray(learntProfiles.perfumeId, gone));
        summary.statements++;
      }
      if (entries.size) {
        const json = JSON.stringify(
          [...entries].map(([id, e]) => ({
            perfume_id: id,
            notes: e.notes,
            accords: e.accords,
            inspired_by: e.inspiredBy,
            shops: e.shops,
            merchant_ids: e.merchantIds,
          })),
        );
        await tx.execute(sql`insert into ${learntProfiles} (perfume_id, notes, accords, inspired_by, shops, merchant_ids)
          select perfume_id, notes, accords, inspired_by, shops, merchant_ids
          from json_populate_recordset(null::learnt_profiles, ${json}::json)
          on conflict (perfume_id) do update set notes = excluded.notes, accords = excluded.accords,
            inspired_by = excluded.inspired_by, shops = excluded.shops,
            merchant_ids = excluded.merchant_ids, updated_at = now()`);
        summary.statements++;
      }
      // proposals: a perfume no answer speaks of any longer has none, its review gone with it
      const unanswered = batch.filter((id) => !proposed.has(id) && reviewOf.has(id));
      if (unanswered.length) {
        await tx.delete(proposals).where(inArray(proposals.perfumeId, unanswered));
        summary.statements++;
      }
      if (proposed.size) {
        const json = JSON.stringify(
          [...proposed].map(([id, { proposal, merchantIds }]) => ({
            perfume_id: id,
            votes: proposal.votes,
            shops: proposal.shops,
            in_force: proposal.inForce,
            merchant_ids: merchantIds,
          })),
        );
        await tx.execute(sql`insert into ${proposals} (perfume_id, votes, shops, in_force, merchant_ids)
          select perfume_id, votes, shops, in_force, merchant_ids
          from json_populate_recordset(null::proposals, ${json}::json)
          on conflict (perfume_id) do update set votes = excluded.votes, shops = excluded.shops,
            in_force = excluded.in_force, merchant_ids = excluded.merchant_ids,
            updated_at = case when proposals.votes = excluded.votes and proposals.in_force = excluded.in_force
              then proposals.updated_at else now() end`);
        summary.statements++;
      }
    });
  }
  summary.profilesChanged += changed.size;
  if (changed.size) {
    const profiles = new Map<string, ShopProfile>();
    const inspired = new Map<string, string>();
    for (const [id, e] of changed) {
      const profile = e && learntProfileOf(e);
      if (profile) profiles.set(id, profile);
      if (e?.inspiredBy) inspired.set(id, e.inspiredBy);
    }
    const learnt: Learnt = { profiles, inspired };
    const ids = [...changed.keys()];
    for (let i = 0; i < ids.length; i += PROFILE_BATCH) {
      const r = await reprofileProducts(db, snapshot, ids.slice(i, i + PROFILE_BATCH), learnt);
      summary.reprofiled += r.changed;
      for (const m of r.merchants) if (!summary.merchants.includes(m)) summary.merchants.push(m);
      summary.statements += 1 + 2 * r.merchants.length;
    }
  }
  return summary;
}

/**
 * After an operator's review of these perfumes' proposals: the perfumes learnt again, and the
 * spellings pins proposed for them (a spelling approved is a key on one shop's pin, one rejected is
 * none). Work: learnPerfumes, one read of the proposals, learnBarcodes of their spellings.
 */
export async function learnReviewed(
  db: Db,
  snapshot: CatalogSnapshot,
  perfumeIds: readonly string[],
  match?: ListingMatcher,
): Promise<LearnSummary> {
  const summary = await learnPerfumes(db, snapshot, perfumeIds);
  const rows = await db
    .select({ votes: proposals.votes, approved: proposals.approved, rejected: proposals.rejected })
    .from(proposals)
    .where(inArray(proposals.perfumeId, [...perfumeIds]));
  summary.statements++;
  const keys = new Set<string>();
  for (const r of rows)
    for (const i of [...Object.keys(r.votes), ...r.approved, ...r.rejected])
      if (i.startsWith('spelling:')) keys.add(spellingKeyOf(i));
  if (keys.size === 0) return summary;
  const spelt = await learnBarcodes(db, snapshot, [...keys], match);
  summary.statements += spelt.statements;
  summary.changed += spelt.changed;
  summary.rematched += spelt.rematched;
  for (const m of spelt.merchants) if (!summary.merchants.includes(m)) summary.merchants.push(m);
  return summary;
}

/**
 * One perfume's learnt entry: the notes descriptions agree on, with the notes and accords of the
 * answers' proposal in force (a note in no tier where descriptions do not place it), and the original
 * in force; shops, the most independent voices either rests on. Null when neither gives anything.
 */
export function learntEntry(agreed: AgreedNotes | null, proposal: Proposal | null): LearntEntry | null {
  const notes: AgreedNotes['notes'] = agreed
    ? {
        top: [...agreed.notes.top],
        heart: [...agreed.notes.heart],
        base: [...agreed.notes.base],
        flat: [...agreed.notes.flat],
      }
    : { top: [], heart: [], base: [], flat: [] };
  const placed = new Set([...notes.top, ...notes.heart, ...notes.base, ...notes.flat]);
  for (const n of proposal?.profile?.notes ?? []) if (!placed.has(n)) notes.flat.push(n);
  const accords = proposal?.profile?.accords ?? [];
  const inspiredBy = proposal?.inspiredBy ?? null;
  if (!agreed && !proposal?.profile && !inspiredBy) return null;
  const answering = proposal && (proposal.profile || inspiredBy) ? proposal.shops : 0;
  return { notes, accords, inspiredBy, shops: Math.max(agreed?.shops ?? 0, answering), merchantIds: [] };
}

/** The learnt barcodes, for the operator: conflicts (or keys), most shops first, a page at a time. */
export async function listLearntBarcodes(
  db: DbOrTx,
  opts: { status: 'key' | 'conflict'; limit: number; offset: number },
) {
  // spellings (a pin's, `s:`) are reviewed as proposals, not listed as barcodes
  const where = and(eq(learntBarcodes.status, opts.status), sql`${learntBarcodes.barcode} not like 's:%'`);
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
      (select m.id from (
          select unnest(merchant_ids) as id from ${learntBarcodes}
          union select unnest(merchant_ids) as id from ${learntProfiles}
          union select unnest(merchant_ids) as id from ${proposals}
          union select unnest(merchant_ids) as id from ${identityProposals}
        ) m
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
        // only the keys shelves taught can move a match
        sql`select distinct k from ${merchantProducts} p cross join lateral unnest(p.barcode_keys) as k
          join ${learntBarcodes} l on l.barcode = k and l.status = 'key'
          where p.merchant_id = ${merchantId}`,
      ),
    ).map((r) => r.k);
    summary.statements++;
    if (own.length) {
      const r = await rematchProducts(db, snapshot, merchantId, match, { barcodes: own });
      summary.statements += 2;
      summary.rematched += r.changed;
      if (r.changed && !summary.merchants.includes(merchantId)) summary.merchants.push(merchantId);
    }
    // and the profiles shops taught for the perfumes its products are (or no longer, if it stopped learning)
    const perfumes = rowsOf<{ id: string }>(
      await db.execute(sql`select distinct p.sillage_perfume_id as id from ${merchantProducts} p
        join ${learntProfiles} l on l.perfume_id = p.sillage_perfume_id
        where p.merchant_id = ${merchantId} and p.match_status = 'matched'
        union
        select distinct sillage_perfume_id as id from ${merchantProducts}
        where merchant_id = ${merchantId} and (profile_shops is not null or learnt_inspired is not null)`),
    ).map((r) => r.id);
    summary.statements++;
    if (perfumes.length) {
      const r = await reprofileProducts(db, snapshot, perfumes, await learntOf(db, perfumes), merchantId);
      summary.statements += 2 + r.merchants.length;
      summary.reprofiled += r.changed;
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
