import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client.ts';
import { events, purchases } from '../schema/index.ts';
import { getMerchant } from './merchants.ts';

/**
 * The attribution rule (docs/analytics.md): a purchase is attributed to the
 * widget when its session clicked a recommended (or also-explore) product that
 * (a click of the same kind of key: a test key's never counts for a live purchase)
 * is in the order, at most `windowDays` before the purchase; its attributed
 * revenue is the value (quantity × price) of those items only.
 *
 * Recomputes the purchases of the given sessions (all the merchant's when
 * `sessions` is null). The event writer runs it in the transaction that stores
 * a purchase or a click, so a click arriving after its purchase still counts.
 */
export async function attributePurchases(
  db: DbOrTx,
  merchantId: string,
  sessions: readonly string[] | null,
  windowDays: number,
): Promise<void> {
  const which = sessions === null ? sql`true` : sql`p2.session_id = any(${`{${sessions.join(',')}}`}::uuid[])`;
  await db.execute(sql`
    update ${purchases} p set attributed = a.n > 0, attributed_revenue = a.value
    from (
      select p2.id, count(i.merchant_product_id) as n, coalesce(sum(i.quantity * i.price), 0) as value
      from ${purchases} p2
      left join lateral (
        select it.merchant_product_id, it.quantity, it.price
        from jsonb_to_recordset(p2.items) as it(merchant_product_id text, quantity int, price numeric)
        where exists (
          select 1 from ${events} e
          where e.merchant_id = p2.merchant_id and e.session_id = p2.session_id and e.test = p2.test
            and e.type in ('recommendation_clicked', 'also_explore_clicked')
            and (e.data->>'merchant_product_id') = it.merchant_product_id
            and e.occurred_at <= p2.occurred_at
            and e.occurred_at >= p2.occurred_at - make_interval(days => ${windowDays}))
      ) i on true
      where p2.merchant_id = ${merchantId}::uuid and p2.session_id is not null and ${which}
      group by p2.id
    ) a
    where p.id = a.id`);
}

/** Recomputes every purchase of a merchant (after ATTRIBUTION_WINDOW_DAYS changed); says which merchant and window. */
export async function reattributeMerchant(db: DbOrTx, merchantIdOrSlug: string, windowDays: number) {
  const merchant = await getMerchant(db, merchantIdOrSlug);
  await attributePurchases(db, merchant.id, null, windowDays);
  return { merchant_id: merchant.id, slug: merchant.slug, attribution_window_days: windowDays };
}
