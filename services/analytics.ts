import { sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../db/client.ts';
import { events, purchases, widgetAnswers, widgetSessions } from '../schema/index.ts';
import { getMerchant } from './merchants.ts';

export const FUNNEL = [
  'widget_loaded',
  'widget_opened',
  'quiz_started',
  'quiz_completed',
  'results_viewed',
  'recommendation_clicked',
] as const;

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));
const rate = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 10_000) / 10_000 : null);

/** The gift quizzes, in all and by recipient (quiz.gender men: him, women: her, none: anyone). */
function giftSessions(rows: readonly { k: string; n: number }[]) {
  const of = (gender: string) => rows.find((r) => r.k === gender)?.n ?? 0;
  const him = of('men');
  const her = of('women');
  const anyone = of('');
  return { total: him + her + anyone, him, her, anyone };
}

export interface AnalyticsOptions {
  from: Date;
  to: Date;
  test: boolean;
  attributionWindowDays: number;
}

/**
 * What the widget did for a merchant over a period, live or test traffic
 * (never mixed): the funnel, click-through and conversion, orders and revenue
 * attributed to it (docs/analytics.md gives the rule), the products it showed
 * and that shoppers clicked, and the accords shoppers love and avoid.
 */
export async function merchantAnalytics(db: DbOrTx, merchantIdOrSlug: string, o: AnalyticsOptions) {
  const merchant = await getMerchant(db, merchantIdOrSlug);
  const m = merchant.id;
  const from = o.from.toISOString();
  const to = o.to.toISOString();
  const inRange = sql`${events.merchantId} = ${m} and ${events.test} = ${o.test} and ${events.occurredAt} >= ${from} and ${events.occurredAt} < ${to}`;

  const sessionsInRange = sql`${widgetSessions.merchantId} = ${m} and ${widgetSessions.test} = ${o.test}
    and ${widgetSessions.createdAt} >= ${from} and ${widgetSessions.createdAt} < ${to}`;
  const [counts, answered, attributed, purchased, clicked] = await Promise.all([
    db.execute(
      sql`select ${events.type} as type, count(*) as n from ${events} where ${inRange} group by ${events.type}`,
    ),
    // what the period's scored sessions were asked and shown, in one pass over them: sessions in range
    // per answer (an answer's quiz and products shown are stored once), then the sessions, the products
    // recommended, the accords loved and avoided, and the perfumes shoppers named as loved
    // (quiz.loved: what they already know they like), each kind in rows of its own
    db.execute(sql`
      with c as (
        select ${widgetSessions.answerId} as answer_id, count(*) as n from ${widgetSessions}
        where ${sessionsInRange} group by 1),
      j as (select a.quiz, a.shown, c.n from c join ${widgetAnswers} a on a.id = c.answer_id)
      select 'sessions' as kind, null as k, null as rating, coalesce(sum(c.n), 0) as n from c
      union all
      (select 'gift', j.quiz->>'gender', null, sum(j.n) from j where (j.quiz->>'gift') = 'true' group by 2)
      union all
      (select 'shown', s.item->>'merchant_product_id', null, sum(j.n)
        from j cross join lateral json_array_elements(j.shown) as s(item)
        where s.item->>'list' = 'recommendations'
        group by 2 order by 4 desc, 2 limit 10)
      union all
      (select 'accord', r.item->>0, r.item->>1, sum(j.n)
        from j cross join lateral json_array_elements(j.quiz->'ratings') as r(item)
        where r.item->>1 in ('love', 'avoid')
        group by 2, 3)
      union all
      (select 'loved', l.id, null, sum(j.n)
        from j cross join lateral json_array_elements_text(coalesce(j.quiz->'loved', '[]'::json)) as l(id)
        group by 2 order by 4 desc, 2 limit 10)`),
    // attribution is computed when purchases and clicks are stored (services/events.ts, services/purchase-attribution.ts)
    db.execute(sql`
      select currency, count(*) as orders, sum(attributed_revenue) as revenue from ${purchases}
      where ${purchases.merchantId} = ${m} and ${purchases.test} = ${o.test}
        and ${purchases.occurredAt} >= ${from} and ${purchases.occurredAt} < ${to} and ${purchases.attributed}
      group by currency order by currency`),
    db.execute(sql`
      select count(*) as orders from ${purchases} p
      where p.merchant_id = ${m} and p.test = ${o.test} and p.occurred_at >= ${from} and p.occurred_at < ${to}`),
    db.execute(sql`
      select ${events.data}->>'merchant_product_id' as id, count(*) as n from ${events}
      where ${inRange} and ${events.type} in ('recommendation_clicked', 'also_explore_clicked')
      group by 1 order by 2 desc, 1 limit 10`),
  ]);

  // each kind's rows most first, then by name (the order the union's parts were asked in is not kept)
  const answeredRows = rowsOf<{ kind: string; k: string | null; rating: string | null; n: unknown }>(answered)
    .map((r) => ({ kind: r.kind, k: r.k ?? '', rating: r.rating, n: num(r.n) }))
    .sort((a, b) => b.n - a.n || (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  const ofKind = (kind: string) => answeredRows.filter((r) => r.kind === kind);
  const byType = new Map(rowsOf<{ type: string; n: unknown }>(counts).map((r) => [r.type, num(r.n)]));
  const attributedOrders = rowsOf<{ currency: string; orders: unknown; revenue: unknown }>(attributed).map((r) => ({
    currency: r.currency,
    orders: num(r.orders),
    revenue: Math.round(num(r.revenue) * 100) / 100,
  }));
  const ordersAttributed = attributedOrders.reduce((a, r) => a + r.orders, 0);
  const funnel = Object.fromEntries(FUNNEL.map((t) => [t, byType.get(t) ?? 0])) as Record<
    (typeof FUNNEL)[number],
    number
  >;
  const top = (rating: string) =>
    ofKind('accord')
      .filter((r) => r.rating === rating)
      .slice(0, 10)
      .map((r) => ({ accord: r.k, sessions: r.n }));
  return {
    merchant: { id: merchant.id, slug: merchant.slug, name: merchant.name },
    from,
    to,
    traffic: o.test ? ('test' as const) : ('live' as const),
    funnel: { ...funnel, purchased: ordersAttributed },
    scored_sessions: ofKind('sessions')[0]?.n ?? 0,
    // the gift path's quizzes (quiz.gift), by recipient: him, her, or anyone (no gender said)
    gift_sessions: giftSessions(ofKind('gift')),
    click_through_rate: rate(funnel.recommendation_clicked, funnel.results_viewed || funnel.quiz_completed),
    conversion_rate: rate(ordersAttributed, funnel.quiz_completed),
    orders: { total: num(rowsOf<{ orders: unknown }>(purchased)[0]?.orders), attributed: ordersAttributed },
    attributed_revenue: attributedOrders,
    top_recommended: ofKind('shown').map((r) => ({ merchant_product_id: r.k, times: r.n })),
    top_clicked: rowsOf<{ id: string; n: unknown }>(clicked).map((r) => ({
      merchant_product_id: r.id,
      clicks: num(r.n),
    })),
    loved_accords: top('love'),
    avoided_accords: top('avoid'),
    loved_perfumes: ofKind('loved').map((r) => ({ sillage_perfume_id: r.k, sessions: r.n })),
    attribution_window_days: o.attributionWindowDays,
  };
}
