import { randomUUID } from 'node:crypto';
import { inArray, sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../db/client.ts';
import type { NormalizedEvent } from '../events/validate.ts';
import type { CommitGuard } from '../lib/deadline.ts';
import { timeOrderedId } from '../lib/ids.ts';
import type { LeadCipher } from '../privacy/lead-crypto.ts';
import { events, leadDeliveries, leads, merchants, purchases } from '../schema/index.ts';
import { attributePurchases } from './purchase-attribution.ts';

/** One request's events */
export interface EventBatch {
  merchantId: string;
  keyId: string;
  test: boolean;
  events: NormalizedEvent[];
}

export interface StoredEvents {
  accepted: number;
  duplicates: number;
}

export interface WriteEventsOptions {
  cipher: Pick<LeadCipher, 'encrypt' | 'emailLookup' | 'phoneLookup'>;
  attributionWindowDays: number;
  /** a lead with an email queues the shopper's picks email (SMTP is configured) */
  emailPicks?: boolean;
  /** when given, the transaction rolls back instead of committing if its waiter gave up on it */
  guard?: CommitGuard;
}

/**
 * Stores several requests' events in one transaction and answers, for each
 * request in order, how many were new and how many duplicates. Duplicates (the
 * same event_id, or a purchase's order_id, per merchant) are stored once;
 * within the transaction the first in `batch` order wins. A new lead event
 * stores its contact details encrypted; purchases and clicks recompute the
 * attribution of their sessions' purchases. Rejects, having stored nothing,
 * when the transaction fails.
 */
export async function writeEvents(
  db: Db,
  batch: readonly EventBatch[],
  { cipher, attributionWindowDays, emailPicks = false, guard }: WriteEventsOptions,
): Promise<StoredEvents[]> {
  type Ref = { p: number; e: number };
  const eventRows: Record<string, unknown>[] = [];
  const eventRefs: Ref[] = [];
  const purchaseRows: Record<string, unknown>[] = [];
  const purchaseRefs: Ref[] = [];
  const ids: string[][] = batch.map((b) => b.events.map((e) => e.eventId ?? timeOrderedId()));
  for (const [p, b] of batch.entries()) {
    for (const [i, e] of b.events.entries()) {
      if (e.purchase) {
        purchaseRows.push({
          merchant_id: b.merchantId,
          session_id: e.sessionId,
          test: b.test,
          order_id: e.purchase.orderId,
          event_id: ids[p]?.[i],
          total: e.purchase.total,
          currency: e.purchase.currency,
          items: e.purchase.items,
          occurred_at: e.occurredAt.toISOString(),
        });
        purchaseRefs.push({ p, e: i });
      }
    }
  }
  const accepted = batch.map((b) => b.events.map(() => false));

  await db.transaction(async (tx) => {
    // a transaction that waited for a connection past its deadline does no work at all
    guard?.stillWanted();
    const dupPurchase = new Set<string>();
    if (purchaseRows.length) {
      const inserted = rowsOf<{ merchant_id: string; test: boolean; order_id: string }>(
        await tx.execute(sql`
          insert into ${purchases} (merchant_id, session_id, test, order_id, event_id, total, currency, items, occurred_at)
          select merchant_id, session_id, test, order_id, event_id, total, currency, items, occurred_at
          from jsonb_to_recordset(${JSON.stringify(purchaseRows)}::jsonb) as x(
            merchant_id uuid, session_id uuid, test boolean, order_id text, event_id text,
            total numeric, currency text, items jsonb, occurred_at timestamptz)
          on conflict (merchant_id, test, order_id) do update
            set session_id = excluded.session_id, event_id = coalesce(${purchases}.event_id, excluded.event_id)
            -- an order the shop's platform reported first (no session: services/platforms.ts) takes the
            -- browser's session, so that its attribution is computed; any other is a duplicate
            where ${purchases}.session_id is null and excluded.session_id is not null
          returning merchant_id, test, order_id`),
      );
      const fresh = new Set(inserted.map((r) => `${r.merchant_id}|${r.test}|${r.order_id}`));
      purchaseRows.forEach((r, k) => {
        const key = `${r.merchant_id}|${r.test}|${r.order_id}`;
        const ref = purchaseRefs[k] as Ref;
        // first of the batch takes the order; a resent one (even with another event_id) is a duplicate
        if (fresh.delete(key)) return;
        dupPurchase.add(`${ref.p}:${ref.e}`);
      });
    }
    for (const [p, b] of batch.entries()) {
      for (const [i, e] of b.events.entries()) {
        if (dupPurchase.has(`${p}:${i}`)) continue;
        eventRows.push({
          merchant_id: b.merchantId,
          key_id: b.keyId,
          session_id: e.sessionId,
          test: b.test,
          type: e.type,
          event_id: ids[p]?.[i],
          occurred_at: e.occurredAt.toISOString(),
          data: e.data,
        });
        eventRefs.push({ p, e: i });
      }
    }
    if (eventRows.length === 0) return;
    const inserted = rowsOf<{ merchant_id: string; test: boolean; event_id: string }>(
      await tx.execute(sql`
        insert into ${events} (merchant_id, key_id, session_id, test, type, event_id, occurred_at, data)
        select merchant_id, key_id, session_id, test, type, event_id, occurred_at, data
        from jsonb_to_recordset(${JSON.stringify(eventRows)}::jsonb) as x(
          merchant_id uuid, key_id uuid, session_id uuid, test boolean, type text, event_id text,
          occurred_at timestamptz, data jsonb)
        on conflict (merchant_id, test, event_id) where event_id is not null do nothing
        returning merchant_id, test, event_id`),
    );
    // event ids are deduplicated per merchant and per kind of key: a test key's never shadow a live one's
    const fresh = new Set(inserted.map((r) => `${r.merchant_id}|${r.test}|${r.event_id}`));
    const leadRows: Record<string, unknown>[] = [];
    const deliveryRows: Record<string, unknown>[] = [];
    const emailRows: Record<string, unknown>[] = [];
    eventRows.forEach((r, k) => {
      const ref = eventRefs[k] as Ref;
      if (!fresh.delete(`${r.merchant_id}|${r.test}|${r.event_id}`)) return;
      (accepted[ref.p] as boolean[])[ref.e] = true;
      const b = batch[ref.p] as EventBatch;
      const lead = b.events[ref.e]?.lead;
      if (lead) {
        leadRows.push({
          merchant_id: b.merchantId,
          session_id: r.session_id,
          test: b.test,
          email_encrypted: lead.email ? cipher.encrypt(lead.email) : null,
          phone_encrypted: lead.phone ? cipher.encrypt(lead.phone) : null,
          email_lookup: lead.email ? cipher.emailLookup(lead.email) : null,
          phone_lookup: lead.phone ? cipher.phoneLookup(lead.phone) : null,
          consent_at: r.occurred_at,
          consent_version: lead.consentVersion,
          picks: lead.picks ?? [],
          locale: lead.locale ?? null,
        });
        // its lead.created post, if the merchant has a webhook (services/webhooks.ts): the body is
        // made here, once, so every attempt sends the same bytes under a fresh signature
        const id = randomUUID();
        deliveryRows.push({
          id,
          merchant_id: b.merchantId,
          test: b.test,
          body: cipher.encrypt(
            JSON.stringify({
              id,
              type: 'lead.created',
              created_at: new Date().toISOString(),
              test: b.test,
              data: {
                email: lead.email,
                phone: lead.phone,
                consent_at: r.occurred_at,
                consent_version: lead.consentVersion,
                session_id: r.session_id ?? null,
                locale: lead.locale ?? null,
                picks: lead.picks ?? [],
              },
            }),
          ),
        });
        if (emailPicks && lead.email) {
          const mail = randomUUID();
          emailRows.push({
            id: mail,
            merchant_id: b.merchantId,
            test: b.test,
            body: cipher.encrypt(
              JSON.stringify({ to: lead.email, locale: lead.locale ?? null, picks: lead.picks ?? [] }),
            ),
          });
        }
      }
    });
    // attribution: purchases of the sessions this batch touched (a new purchase, or a click
    // arriving after its purchase) take the value of their items clicked as recommendations
    const touched = new Map<string, Set<string>>();
    for (const r of eventRows) {
      if (!r.session_id) continue;
      if (r.type === 'purchase_completed' || r.type === 'recommendation_clicked' || r.type === 'also_explore_clicked') {
        const set = touched.get(r.merchant_id as string) ?? new Set<string>();
        set.add(r.session_id as string);
        touched.set(r.merchant_id as string, set);
      }
    }
    for (const [merchantId, sessions] of touched) {
      await attributePurchases(tx, merchantId, [...sessions], attributionWindowDays);
    }
    if (leadRows.length) {
      // one lead per contact and merchant: a shopper who leaves the same email or phone again renews
      // the consent of the lead already there (and adds the contact it lacked) instead of a duplicate
      await tx.execute(sql`
        with x as (
          select distinct on (merchant_id, test, coalesce(email_lookup, ''), coalesce(phone_lookup, '')) *
          from jsonb_to_recordset(${JSON.stringify(leadRows)}::jsonb) as x(
            merchant_id uuid, session_id uuid, test boolean, email_encrypted text, phone_encrypted text,
            email_lookup text, phone_lookup text, consent_at timestamptz, consent_version text,
            picks jsonb, locale text)
          order by merchant_id, test, coalesce(email_lookup, ''), coalesce(phone_lookup, ''), consent_at desc
        ), renewed as (
          update ${leads} l set
            consent_at = greatest(l.consent_at, x.consent_at),
            consent_version = x.consent_version,
            picks = x.picks,
            locale = coalesce(x.locale, l.locale),
            session_id = coalesce(x.session_id, l.session_id),
            email_encrypted = coalesce(l.email_encrypted, x.email_encrypted),
            email_lookup = coalesce(l.email_lookup, x.email_lookup),
            phone_encrypted = coalesce(l.phone_encrypted, x.phone_encrypted),
            phone_lookup = coalesce(l.phone_lookup, x.phone_lookup)
          from x
          where l.merchant_id = x.merchant_id and l.test = x.test
            and ((x.email_lookup is not null and l.email_lookup = x.email_lookup)
              or (x.phone_lookup is not null and l.phone_lookup = x.phone_lookup))
          returning x.merchant_id, x.test, x.email_lookup, x.phone_lookup
        )
        insert into ${leads} (merchant_id, session_id, test, email_encrypted, phone_encrypted, email_lookup, phone_lookup, consent_at, consent_version, picks, locale)
        select merchant_id, session_id, test, email_encrypted, phone_encrypted, email_lookup, phone_lookup, consent_at, consent_version, picks, locale
        from x
        where not exists (
          select 1 from renewed r
          where r.merchant_id = x.merchant_id and r.test = x.test
            and r.email_lookup is not distinct from x.email_lookup and r.phone_lookup is not distinct from x.phone_lookup)`);
      // queued with the lead, in its transaction: a lead stored is a delivery recorded
      await tx.execute(queueDeliveries('lead.created', deliveryRows, true));
      if (emailRows.length) await tx.execute(queueDeliveries('picks.email', emailRows, false));
    }
    guard?.beforeCommit();
  });
  return batch.map((b, p) => {
    const n = (accepted[p] as boolean[]).filter(Boolean).length;
    return { accepted: n, duplicates: b.events.length - n };
  });
}

/** a merchant's webhook deliveries waiting to be sent, at most: beyond, a new lead's is recorded as dropped */
export const MAX_PENDING_DELIVERIES = 1000;

/** Events deleted per statement of a purge: a long backlog is removed in short transactions. */
const PURGE_BATCH = 10_000;

/**
 * Deletes widget events received more than `retentionDays` ago, in batches;
 * returns how many. Purchases, leads (their own retention) and the merchants'
 * counts already attributed are kept.
 */
export async function purgeExpiredEvents(db: Db, retentionDays: number): Promise<number> {
  let total = 0;
  for (;;) {
    const old = db
      .select({ id: events.id })
      .from(events)
      .where(sql`${events.receivedAt} < now() - make_interval(days => ${retentionDays})`)
      .limit(PURGE_BATCH);
    const gone = await db.delete(events).where(inArray(events.id, old)).returning({ id: events.id });
    total += gone.length;
    if (gone.length < PURGE_BATCH) return total;
  }
}

/**
 * Queues deliveries (a merchant's webhook, or a picks email) as pending, or as dropped past
 * MAX_PENDING_DELIVERIES waiting for that merchant; `webhookOnly`: only for merchants with a webhook URL.
 */
function queueDeliveries(
  event: 'lead.created' | 'picks.email',
  rows: readonly Record<string, unknown>[],
  webhookOnly: boolean,
) {
  return sql`
    insert into ${leadDeliveries} (id, merchant_id, event, test, status, last_error, body_encrypted)
    select x.id, x.merchant_id, ${event}, x.test,
      case when q.waiting >= ${MAX_PENDING_DELIVERIES} then 'dropped' else 'pending' end,
      case when q.waiting >= ${MAX_PENDING_DELIVERIES}
        then ${`queue full: ${MAX_PENDING_DELIVERIES} deliveries already waiting`} end,
      x.body
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(id uuid, merchant_id uuid, test boolean, body text)
    ${webhookOnly ? sql`join ${merchants} m on m.id = x.merchant_id and m.webhook_url is not null` : sql``}
    cross join lateral (
      select count(*) as waiting from ${leadDeliveries} d where d.merchant_id = x.merchant_id and d.status = 'pending'
    ) q`;
}
