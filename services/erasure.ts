/**
 * A merchant's erasure (docs/admin.md, "Erasing a merchant"): everything the service holds about it
 * goes, and what its shelf taught other shops goes with it (docs/learning.md).
 *
 * Two steps. `startErasure`, on the operator's request, does a fixed number of statements whatever
 * the merchant's size: the merchant is marked (`erased_at`: every read takes it as gone from then
 * on), stops teaching and learning, its keys are revoked, its feeds paused, its platform installs
 * uninstalled (their tokens forgotten), its lead webhook dropped. `eraseMerchantRows`, background
 * work, deletes its rows table by table, at most ERASE_BATCH_ROWS a statement, then the merchant's
 * row itself.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Db, DbOrTx } from '../db/client.ts';
import { rowsOf } from '../db/client.ts';
import { badRequest, notFound, pgErrorCode } from '../lib/errors.ts';
import {
  apiKeys,
  consoleSessions,
  consoleTickets,
  consoleUsers,
  events,
  feedPulls,
  feedSources,
  keySightings,
  leadDeliveries,
  leads,
  merchantProducts,
  merchants,
  platformInstalls,
  platformWebhooks,
  purchases,
  widgetAnswers,
  widgetSessions,
} from '../schema/index.ts';
import { findMerchant, type Merchant } from './merchants.ts';

/** Rows deleted at most by one statement of an erasure: a big merchant's erasure is many short statements. */
export const ERASE_BATCH_ROWS = 5_000;

/** What the request did: the merchant (as marked), the hashes of its keys (to be dropped by every key cache). */
export interface ErasureStart {
  merchant: Merchant;
  keyHashes: string[];
  /** false when it was being erased already (the request sends the work again, changes nothing) */
  started: boolean;
  /** statements run: a fixed number, whatever the merchant holds */
  statements: number;
}

/**
 * Marks a merchant erased, refusing it at once everywhere; its rows stay for `eraseMerchantRows`.
 * `confirm` must be its slug: a wrong or missing one is `400 confirm_mismatch`, nothing changed.
 */
export async function startErasure(db: Db, idOrSlug: string, confirm: string | undefined): Promise<ErasureStart> {
  const m = await findMerchant(db, idOrSlug, { erasing: true });
  if (!m) throw notFound('merchant_not_found', `No merchant with id or slug "${idOrSlug}"`);
  if (confirm !== m.slug) {
    throw badRequest('confirm_mismatch', 'To erase a merchant, send its slug as confirm: nothing was erased');
  }
  if (m.erasedAt) return { merchant: m, keyHashes: [], started: false, statements: 1 };
  return db.transaction(async (tx) => {
    const [marked] = await tx
      .update(merchants)
      .set({
        erasedAt: sql`now()`,
        teaches: false,
        learns: false,
        learntVersion: null,
        webhookUrl: null,
        webhookSecretEncrypted: null,
      })
      .where(sql`${merchants.id} = ${m.id} and ${merchants.erasedAt} is null`)
      .returning();
    // a concurrent erasure marked it first: that one revoked and paused
    if (!marked) return { merchant: m, keyHashes: [], started: false, statements: 2 };
    const keys = await tx
      .update(apiKeys)
      .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, now())` })
      .where(sql`${apiKeys.merchantId} = ${m.id}`)
      .returning({ hash: apiKeys.keyHash });
    await tx.update(feedSources).set({ paused: true }).where(sql`${feedSources.merchantId} = ${m.id}`);
    await tx
      .update(platformInstalls)
      .set({
        status: 'uninstalled',
        accessTokenEncrypted: null,
        refreshTokenEncrypted: null,
        authTokenEncrypted: null,
        webhookSecretEncrypted: null,
        publishableKey: null,
        uninstalledAt: sql`coalesce(${platformInstalls.uninstalledAt}, now())`,
        updatedAt: sql`now()`,
      })
      .where(sql`${platformInstalls.merchantId} = ${m.id}`);
    return { merchant: marked, keyHashes: keys.map((k) => k.hash), started: true, statements: 5 };
  });
}

/** Merchants marked erased whose rows are still there, first marked first: what the erasure job works. */
export async function erasingMerchants(db: DbOrTx, limit = 100): Promise<string[]> {
  const rows = await db
    .select({ id: merchants.id })
    .from(merchants)
    .where(sql`${merchants.erasedAt} is not null`)
    .orderBy(merchants.erasedAt)
    .limit(limit);
  return rows.map((r) => r.id);
}

/**
 * Every table that holds a merchant's rows, with how its rows are found: by its `merchant_id`, or
 * through the row they belong to (a key's sightings, a user's sessions, a source's pulls, a store's
 * webhooks). Children before what they belong to; tests/erasure.test.ts holds that every table of
 * schema/ is either here or holds nothing of a merchant.
 */
export const ERASED_TABLES: { name: string; table: PgTable; of: (id: string) => SQL }[] = [
  {
    name: 'key_sightings',
    table: keySightings,
    of: (id) => sql`key_id in (select k.id from ${apiKeys} k where k.merchant_id = ${id})`,
  },
  {
    name: 'console_sessions',
    table: consoleSessions,
    of: (id) => sql`user_id in (select u.id from ${consoleUsers} u where u.merchant_id = ${id})`,
  },
  {
    name: 'console_tickets',
    table: consoleTickets,
    of: (id) => sql`user_id in (select u.id from ${consoleUsers} u where u.merchant_id = ${id})`,
  },
  { name: 'events', table: events, of: (id) => sql`merchant_id = ${id}` },
  { name: 'widget_sessions', table: widgetSessions, of: (id) => sql`merchant_id = ${id}` },
  { name: 'widget_answers', table: widgetAnswers, of: (id) => sql`merchant_id = ${id}` },
  { name: 'purchases', table: purchases, of: (id) => sql`merchant_id = ${id}` },
  { name: 'lead_deliveries', table: leadDeliveries, of: (id) => sql`merchant_id = ${id}` },
  { name: 'leads', table: leads, of: (id) => sql`merchant_id = ${id}` },
  {
    name: 'feed_pulls',
    table: feedPulls,
    of: (id) => sql`source_id in (select s.id from ${feedSources} s where s.merchant_id = ${id})`,
  },
  {
    name: 'platform_webhooks',
    table: platformWebhooks,
    of: (id) =>
      sql`(platform, store_id) in (select i.platform, i.store_id from ${platformInstalls} i where i.merchant_id = ${id})`,
  },
  { name: 'merchant_products', table: merchantProducts, of: (id) => sql`merchant_id = ${id}` },
  { name: 'platform_installs', table: platformInstalls, of: (id) => sql`merchant_id = ${id}` },
  { name: 'feed_sources', table: feedSources, of: (id) => sql`merchant_id = ${id}` },
  { name: 'console_users', table: consoleUsers, of: (id) => sql`merchant_id = ${id}` },
  { name: 'api_keys', table: apiKeys, of: (id) => sql`merchant_id = ${id}` },
];

/** What one erasure run did, counted: `statements` and the rows of each (never more than ERASE_BATCH_ROWS). */
export interface EraseSummary {
  /** the merchant's row is gone: the erasure is done */
  done: boolean;
  statements: number;
  /** rows deleted, by table */
  deleted: Record<string, number>;
  /** the most rows one statement deleted */
  largestBatch: number;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Deletes the rows of a merchant marked erased, ERASE_BATCH_ROWS a statement (each its own short
 * transaction; requests get the database between them), then its row. Stops at a safe point when
 * `closing()` turns true (done: false): the next run goes on where it stopped. A merchant not
 * marked erased is left alone.
 */
/** SQLSTATEs a batch is taken again after: a deadlock, a serialization failure. */
const ERASE_RETRIED = new Set(['40P01', '40001']);

export async function eraseMerchantRows(
  db: Db,
  merchantId: string,
  closing: () => boolean = () => false,
  batch = ERASE_BATCH_ROWS,
): Promise<EraseSummary> {
  const summary: EraseSummary = { done: false, statements: 0, deleted: {}, largestBatch: 0 };
  const [m] = await db
    .select({ erasedAt: merchants.erasedAt })
    .from(merchants)
    .where(sql`${merchants.id} = ${merchantId}`);
  summary.statements++;
  if (!m) return { ...summary, done: true };
  if (!m.erasedAt) return summary;
  for (const t of ERASED_TABLES) {
    summary.deleted[t.name] = 0;
    for (;;) {
      if (closing()) return summary;
      const table = t.table;
      // the rows' addresses first, then those rows: a bounded statement on both engines (a ctid
      // list is read by a TID scan, never by scanning the table)
      const erase = () =>
        db.execute(sql`
          with gone as (
            delete from ${table} where ctid = any(array(
              select ctid from ${table} where ${t.of(merchantId)} limit ${batch}))
            returning 1)
          select count(*)::int as n from gone`);
      const [row] = rowsOf<{ n: number }>(
        await erase().catch(async (err) => {
          // a write to the same rows in another order (a sync, a learning run): the database ends one
          // of the two; this batch is taken again once, not the whole job a retry delay later
          if (!ERASE_RETRIED.has(pgErrorCode(err) ?? '')) throw err;
          summary.statements++;
          await turn();
          return erase();
        }),
      );
      summary.statements++;
      const n = Number(row?.n ?? 0);
      summary.deleted[t.name] = (summary.deleted[t.name] ?? 0) + n;
      summary.largestBatch = Math.max(summary.largestBatch, n);
      if (n < batch) break;
      await turn();
    }
  }
  // what a pull or a webhook may have written meanwhile goes with the row (foreign keys, and the
  // trigger that deletes a deleted merchant's sessions)
  await db.delete(merchants).where(sql`${merchants.id} = ${merchantId} and ${merchants.erasedAt} is not null`);
  summary.statements++;
  return { ...summary, done: true };
}
