import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { ShelfFilter } from '../console/views.ts';
import { type DbOrTx, rowsOf } from '../db/client.ts';
import type { LeadCipher } from '../privacy/lead-crypto.ts';
import {
  apiKeys,
  events,
  keySightings,
  leads,
  merchantProducts,
  purchases,
  widgetAnswers,
  widgetSessions,
} from '../schema/index.ts';

/**
 * What the merchant console reads beyond the admin API's analytics: the day-by-day series, what
 * shoppers asked for, product names, where the widget's keys were seen, and leads one by one.
 * Every query is bounded by a merchant and, where events are read, a period.
 */

export interface Period {
  merchantId: string;
  from: Date;
  to: Date;
  test: boolean;
}

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));

export interface DayFigures {
  /** YYYY-MM-DD (UTC) */
  day: string;
  quizzes: number;
  clicks: number;
  orders: number;
  revenue: number;
}

/** Per day of the period (UTC): quizzes completed, recommendation clicks, attributed orders and revenue. */
export async function dailyActivity(db: DbOrTx, p: Period): Promise<DayFigures[]> {
  const from = p.from.toISOString();
  const to = p.to.toISOString();
  const [ev, orders] = await Promise.all([
    db.execute(sql`
      select to_char(d.day, 'YYYY-MM-DD') as day, d.quizzes, d.clicks
      from (
        select date_trunc('day', ${events.occurredAt} at time zone 'UTC') as day,
          count(*) filter (where ${events.type} = 'quiz_completed') as quizzes,
          count(*) filter (where ${events.type} <> 'quiz_completed') as clicks
        from ${events}
        where ${events.merchantId} = ${p.merchantId} and ${events.test} = ${p.test}
          and ${events.type} in ('quiz_completed', 'recommendation_clicked', 'also_explore_clicked')
          and ${events.occurredAt} >= ${from} and ${events.occurredAt} < ${to}
        group by 1) d`),
    db.execute(sql`
      select to_char(date_trunc('day', ${purchases.occurredAt} at time zone 'UTC'), 'YYYY-MM-DD') as day,
        count(*) as orders, sum(${purchases.attributedRevenue}) as revenue
      from ${purchases}
      where ${purchases.merchantId} = ${p.merchantId} and ${purchases.test} = ${p.test}
        and ${purchases.occurredAt} >= ${from} and ${purchases.occurredAt} < ${to} and ${purchases.attributed}
      group by 1`),
  ]);
  const byDay = new Map<string, DayFigures>();
  const dayOf = (day: string) => {
    let d = byDay.get(day);
    if (!d) {
      d = { day, quizzes: 0, clicks: 0, orders: 0, revenue: 0 };
      byDay.set(day, d);
    }
    return d;
  };
  for (const r of rowsOf<{ day: string; quizzes: unknown; clicks: unknown }>(ev)) {
    const d = dayOf(r.day);
    d.quizzes = num(r.quizzes);
    d.clicks = num(r.clicks);
  }
  for (const r of rowsOf<{ day: string; orders: unknown; revenue: unknown }>(orders)) {
    const d = dayOf(r.day);
    d.orders = num(r.orders);
    d.revenue = Math.round(num(r.revenue) * 100) / 100;
  }
  // every day of the period, the quiet ones too (a chart with gaps reads as a rising line)
  const out: DayFigures[] = [];
  const start = Date.UTC(p.from.getUTCFullYear(), p.from.getUTCMonth(), p.from.getUTCDate());
  for (let t = start; t < p.to.getTime() && out.length < 366; t += 86_400_000) {
    const day = new Date(t).toISOString().slice(0, 10);
    out.push(byDay.get(day) ?? { day, quizzes: 0, clicks: 0, orders: 0, revenue: 0 });
  }
  return out;
}

export interface Asked {
  families: { value: string; sessions: number }[];
  seasons: { value: string; sessions: number }[];
  occasions: { value: string; sessions: number }[];
  bought: { merchant_product_id: string; quantity: number }[];
}

/**
 * What shoppers chose in the period (families, season, occasion; the accords and perfumes are in
 * the analytics) and what they bought after clicking it among the widget's picks.
 */
export async function askedFor(db: DbOrTx, p: Period): Promise<Asked> {
  const from = p.from.toISOString();
  const to = p.to.toISOString();
  const answersInRange = sql`
    select ${widgetSessions.answerId} as answer_id, count(*) as n from ${widgetSessions}
    where ${widgetSessions.merchantId} = ${p.merchantId} and ${widgetSessions.test} = ${p.test}
      and ${widgetSessions.createdAt} >= ${from} and ${widgetSessions.createdAt} < ${to}
    group by 1`;
  // the families chosen and the (season, occasion) pairs, in one pass over the period's sessions
  const [chosen, bought] = await Promise.all([
    db.execute(sql`
      with c as (${answersInRange}),
      j as (select a.quiz, c.n from c join ${widgetAnswers} a on a.id = c.answer_id)
      (select 'family' as kind, f.value as value, null as occasion, sum(j.n) as n
        from j cross join lateral json_array_elements_text(coalesce(j.quiz->'families', '[]'::json)) as f(value)
        group by 2 order by 4 desc, 2 limit 20)
      union all
      (select 'choice', j.quiz->>'season', j.quiz->>'occasion', sum(j.n) from j group by 2, 3)`),
    db.execute(sql`
      select it.merchant_product_id as id, sum(it.quantity) as n
      from ${purchases} p cross join lateral jsonb_to_recordset(p.items) as it(merchant_product_id text, quantity int)
      where p.merchant_id = ${p.merchantId} and p.test = ${p.test} and p.attributed
        and p.occurred_at >= ${from} and p.occurred_at < ${to}
        and exists (
          select 1 from ${events} e
          where e.merchant_id = p.merchant_id and e.session_id = p.session_id and e.test = p.test
            and e.type in ('recommendation_clicked', 'also_explore_clicked')
            and (e.data->>'merchant_product_id') = it.merchant_product_id)
      group by 1 order by 2 desc, 1 limit 10`),
  ]);
  const rows = rowsOf<{ kind: string; value: string | null; occasion: string | null; n: unknown }>(chosen);
  const choices = rows.filter((r) => r.kind === 'choice').map((r) => ({ ...r, season: r.value }));
  const tally = (key: 'season' | 'occasion') => {
    const m = new Map<string, number>();
    for (const r of choices) {
      const v = r[key];
      if (v) m.set(v, (m.get(v) ?? 0) + num(r.n));
    }
    return [...m]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([value, sessions]) => ({ value, sessions }));
  };
  return {
    // most first, then by name (the order the union's parts were asked in is not kept)
    families: rows
      .filter((r) => r.kind === 'family')
      .map((r) => ({ value: r.value ?? '', sessions: num(r.n) }))
      .sort((a, b) => b.sessions - a.sessions || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0)),
    seasons: tally('season'),
    occasions: tally('occasion'),
    bought: rowsOf<{ id: string; n: unknown }>(bought).map((r) => ({ merchant_product_id: r.id, quantity: num(r.n) })),
  };
}

/** The names of a merchant's products by id (at most 200 asked at once); an id it no longer has is absent. */
export async function productNames(
  db: DbOrTx,
  merchantId: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const wanted = [...new Set(ids)].slice(0, 200);
  if (wanted.length === 0) return new Map();
  const rows = await db
    .select({ id: merchantProducts.merchantProductId, name: merchantProducts.name })
    .from(merchantProducts)
    .where(and(eq(merchantProducts.merchantId, merchantId), inArray(merchantProducts.merchantProductId, wanted)));
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** Where a merchant's keys were used from, newest first (at most 50). */
export async function keySightingsOf(db: DbOrTx, merchantId: string) {
  return db
    .select({
      keyId: keySightings.keyId,
      prefix: apiKeys.prefix,
      mode: apiKeys.mode,
      origin: keySightings.origin,
      widgetVersion: keySightings.widgetVersion,
      outcome: keySightings.outcome,
      requests: keySightings.requests,
      lastSeenAt: keySightings.lastSeenAt,
    })
    .from(keySightings)
    .innerJoin(apiKeys, eq(apiKeys.id, keySightings.keyId))
    .where(eq(apiKeys.merchantId, merchantId))
    .orderBy(desc(keySightings.lastSeenAt))
    .limit(50);
}

/** The merchant's last events of either kind of key, newest first. */
export async function lastEvents(db: DbOrTx, merchantId: string, limit = 20) {
  return db
    .select({ type: events.type, test: events.test, occurredAt: events.occurredAt, receivedAt: events.receivedAt })
    .from(events)
    .where(eq(events.merchantId, merchantId))
    .orderBy(desc(events.id))
    .limit(limit);
}

export interface ConsoleLead {
  id: string;
  email: string | null;
  phone: string | null;
  test: boolean;
  locale: string | null;
  picks: { merchant_product_id: string; name: string | null }[];
  createdAt: Date;
}

/** Most leads a console page lists (newest first); a search looks through the newest this many. */
export const CONSOLE_LEADS_MAX = 500;

/**
 * A merchant's newest leads, decrypted, optionally only those whose email or phone contains the
 * search text. Contact details are encrypted at rest, so a search decrypts at most CONSOLE_LEADS_MAX.
 */
export async function listLeads(
  db: DbOrTx,
  cipher: LeadCipher,
  merchantId: string,
  search?: string,
): Promise<ConsoleLead[]> {
  const rows = await db
    .select()
    .from(leads)
    .where(eq(leads.merchantId, merchantId))
    .orderBy(desc(leads.createdAt))
    .limit(CONSOLE_LEADS_MAX);
  const q = search?.trim().toLowerCase();
  const digits = q?.replace(/\D/g, '') ?? '';
  const out: ConsoleLead[] = [];
  for (const r of rows) {
    const email = r.emailEncrypted ? cipher.decrypt(r.emailEncrypted) : null;
    const phone = r.phoneEncrypted ? cipher.decrypt(r.phoneEncrypted) : null;
    if (
      q &&
      !(email?.toLowerCase().includes(q) ?? false) &&
      !(digits.length >= 3 && (phone?.replace(/\D/g, '').includes(digits) ?? false))
    )
      continue;
    out.push({
      id: r.id,
      email,
      phone,
      test: r.test,
      locale: r.locale,
      picks: (r.picks as ConsoleLead['picks']) ?? [],
      createdAt: r.createdAt,
    });
  }
  return out;
}

/** Erases one lead of the merchant; false when it has none with this id. */
export async function eraseLead(db: DbOrTx, merchantId: string, leadId: string): Promise<boolean> {
  const gone = await db
    .delete(leads)
    .where(and(eq(leads.merchantId, merchantId), eq(leads.id, leadId)))
    .returning({ id: leads.id });
  return gone.length > 0;
}

/** Leads given in the period. */
export async function leadCount(db: DbOrTx, p: Period): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(leads)
    .where(
      and(
        eq(leads.merchantId, p.merchantId),
        eq(leads.test, p.test),
        sql`${leads.createdAt} >= ${p.from.toISOString()} and ${leads.createdAt} < ${p.to.toISOString()}`,
      ),
    );
  return Number(row?.n ?? 0);
}

/** Below this, a match the matcher made (not a pin) is listed as low confidence. */
export const LOW_CONFIDENCE = 0.9;

const shelfWhere = (filter: ShelfFilter) => {
  switch (filter) {
    case 'unmatched':
      return sql`${merchantProducts.matchStatus} = 'unmatched'`;
    case 'no_profile':
      return sql`${merchantProducts.matchStatus} = 'matched' and ${merchantProducts.profile} is null`;
    case 'partial':
      return sql`${merchantProducts.matchStatus} = 'partial'`;
    case 'sibling':
      return sql`${merchantProducts.matchSibling}`;
    case 'low':
      return sql`${merchantProducts.matchStatus} = 'matched' and not ${merchantProducts.matchPinned} and ${merchantProducts.matchConfidence} < ${LOW_CONFIDENCE}`;
    case 'pinned':
      return sql`${merchantProducts.matchPinned}`;
    default:
      return sql`true`;
  }
};

/** A page of a merchant's products under a filter and an optional search of name, house or id. */
export async function shelfProducts(
  db: DbOrTx,
  merchantId: string,
  o: { filter: ShelfFilter; q: string; limit: number; offset: number },
) {
  const q = o.q.trim().slice(0, 200);
  const like = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const search = q
    ? sql`(${merchantProducts.name} ilike ${like} or ${merchantProducts.house} ilike ${like} or ${merchantProducts.merchantProductId} = ${q})`
    : sql`true`;
  const where = sql`${merchantProducts.merchantId} = ${merchantId} and ${shelfWhere(o.filter)} and ${search}`;
  const [rows, counts] = await Promise.all([
    db
      .select()
      .from(merchantProducts)
      .where(where)
      .orderBy(merchantProducts.name, merchantProducts.merchantProductId)
      .limit(o.limit)
      .offset(o.offset),
    db.execute(sql`
      select count(*) as all,
        count(*) filter (where ${shelfWhere('unmatched')}) as unmatched,
        count(*) filter (where ${shelfWhere('no_profile')}) as no_profile,
        count(*) filter (where ${shelfWhere('partial')}) as partial,
        count(*) filter (where ${shelfWhere('sibling')}) as sibling,
        count(*) filter (where ${shelfWhere('low')}) as low,
        count(*) filter (where ${shelfWhere('pinned')}) as pinned
      from ${merchantProducts} where ${merchantProducts.merchantId} = ${merchantId} and ${search}`),
  ]);
  const c = rowsOf<Record<ShelfFilter, unknown>>(counts)[0];
  const tally = Object.fromEntries(
    (['all', 'unmatched', 'no_profile', 'partial', 'sibling', 'low', 'pinned'] as const).map((f) => [f, num(c?.[f])]),
  ) as Record<ShelfFilter, number>;
  return { rows, counts: tally };
}

/** How many of a merchant's products there are, how many are not recognised, and how many are recognised without a profile. */
export async function shelfHealth(db: DbOrTx, merchantId: string) {
  const [row] = await db
    .select({
      total: sql<number>`count(*)::int`,
      unmatched: sql<number>`(count(*) filter (where ${merchantProducts.matchStatus} = 'unmatched'))::int`,
      withoutProfile: sql<number>`(count(*) filter (where ${shelfWhere('no_profile')}))::int`,
    })
    .from(merchantProducts)
    .where(eq(merchantProducts.merchantId, merchantId));
  return {
    total: Number(row?.total ?? 0),
    unmatched: Number(row?.unmatched ?? 0),
    withoutProfile: Number(row?.withoutProfile ?? 0),
  };
}

/** One product of a merchant by its id, or null. */
export async function findProductRow(db: DbOrTx, merchantId: string, merchantProductId: string) {
  const [row] = await db
    .select()
    .from(merchantProducts)
    .where(and(eq(merchantProducts.merchantId, merchantId), eq(merchantProducts.merchantProductId, merchantProductId)))
    .limit(1);
  return row ?? null;
}
