import { count, eq, sql } from 'drizzle-orm';
import type { CatalogReadiness } from '../contracts/widget.ts';
import type { DbOrTx } from '../db/client.ts';
import { merchantProducts, merchants } from '../schema/index.ts';

/**
 * How much of a merchant's synced catalog can be recommended: products by match status, and of
 * the matched ones those recognised without a scent profile from any evidence yet (their stored
 * profile is null), which are never recommended. Ready: a partial product, or a matched one with a
 * profile.
 */
export async function catalogReadiness(db: DbOrTx, merchantId: string): Promise<CatalogReadiness> {
  const [rows, [merchant]] = await Promise.all([
    db
      .select({
        status: merchantProducts.matchStatus,
        profiled: sql<boolean>`${merchantProducts.profile} is not null`,
        n: count(),
      })
      .from(merchantProducts)
      .where(eq(merchantProducts.merchantId, merchantId))
      .groupBy(merchantProducts.matchStatus, sql`${merchantProducts.profile} is not null`),
    db.select({ syncedAt: merchants.catalogSyncedAt }).from(merchants).where(eq(merchants.id, merchantId)),
  ]);
  const byStatus = { matched: 0, partial: 0, unmatched: 0, pending: 0 };
  let withoutProfile = 0;
  let recommendable = 0;
  for (const r of rows) {
    const n = Number(r.n);
    byStatus[r.status] += n;
    if (r.status === 'matched' && !r.profiled) withoutProfile += n;
    // a partial product is one with a profile from the shop's words; a matched one may have none
    if (r.status === 'partial' || (r.status === 'matched' && r.profiled)) recommendable += n;
  }
  const total = byStatus.matched + byStatus.partial + byStatus.unmatched + byStatus.pending;
  return {
    total,
    ...byStatus,
    without_profile: withoutProfile,
    ready: recommendable > 0,
    last_synced_at: merchant?.syncedAt ? merchant.syncedAt.toISOString() : null,
  };
}
