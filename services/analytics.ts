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
  // sessions in range per answer: an answer's quiz and products shown are stored once
  const answersInRange = sql`
    select ${widgetSessions.answerId} as answer_id, count(*) as n from ${widgetSessions}
    where ${sessionsInRange} group by 1`;
  const [counts, sessions, attributed, purchased, shown, clicked, accords, loved] = await Promise.all([
    db.execute(
      sql`select ${events.type} as type, count(*) as n from ${events} where ${inRange} group by ${events.type}`,
    ),
    db.execute(sql`
      select count(*) as n from ${widgetSessions} where ${sessionsInRange}`),
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
      select s.item->>'merchant_product_id' as id, sum(c.n) as n
      from (${answersInRange}) c join ${widgetAnswers} a on a.id = c.answer_id
        cross join lateral json_array_elements(a.shown) as s(item)
      where s.item->>'list' = 'recommendations'
      group by 1 order by 2 desc, 1 limit 10`),
    db.execute(sql`
      select ${events.data}->>'merchant_product_id' as id, count(*) as n from ${events}
      where ${inRange} and ${events.type} in ('recommendation_clicked', 'also_explore_clicked')
      group by 1 order by 2 desc, 1 limit 10`),
    db.execute(sql`
      select r.item->>0 as accord, r.item->>1 as rating, sum(c.n) as n
      from (${answersInRange}) c join ${widgetAnswers} a on a.id = c.answer_id
        cross join lateral json_array_elements(a.quiz->'ratings') as r(item)
      where r.item->>1 in ('love', 'avoid')
      group by 1, 2 order by 3 desc, 1`),
    // the perfumes shoppers named as loved (quiz.loved_perfumes): what they already know they like
    db.execute(sql`
      select l.id as id, sum(c.n) as n
      from (${answersInRange}) c join ${widgetAnswers} a on a.id = c.answer_id
        cross join lateral json_array_elements_text(coalesce(a.quiz->'loved', '[]'::json)) as l(id)
      group by 1 order by 2 desc, 1 limit 10`),
  ]);

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
  const accordRows = rowsOf<{ accord: string; rating: string; n: unknown }>(accords);
  const top = (rating: string) =>
    accordRows
      .filter((r) => r.rating === rating)
      .slice(0, 10)
      .map((r) => ({ accord: r.accord, sessions: num(r.n) }));
  return {
    merchant: { id: merchant.id, slug: merchant.slug, name: merchant.name },
    from,
    to,
    traffic: o.test ? ('test' as const) : ('live' as const),
    funnel: { ...funnel, purchased: ordersAttributed },
    scored_sessions: num(rowsOf<{ n: unknown }>(sessions)[0]?.n),
    click_through_rate: rate(funnel.recommendation_clicked, funnel.results_viewed || funnel.quiz_completed),
    conversion_rate: rate(ordersAttributed, funnel.quiz_completed),
    orders: { total: num(rowsOf<{ orders: unknown }>(purchased)[0]?.orders), attributed: ordersAttributed },
    attributed_revenue: attributedOrders,
    top_recommended: rowsOf<{ id: string; n: unknown }>(shown).map((r) => ({
      merchant_product_id: r.id,
      times: num(r.n),
    })),
    top_clicked: rowsOf<{ id: string; n: unknown }>(clicked).map((r) => ({
      merchant_product_id: r.id,
      clicks: num(r.n),
    })),
    loved_accords: top('love'),
    avoided_accords: top('avoid'),
    loved_perfumes: rowsOf<{ id: string; n: unknown }>(loved).map((r) => ({
      sillage_perfume_id: r.id,
      sessions: num(r.n),
    })),
    attribution_window_days: o.attributionWindowDays,
  };
}
