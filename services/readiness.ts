import { count, eq } from 'drizzle-orm';
import type { CatalogReadiness } from '../contracts/widget.ts';
import type { DbOrTx } from '../db/client.ts';
import { merchantProducts, merchants } from '../schema/index.ts';

/** How much of a merchant's synced catalog can be recommended. */
export async function catalogReadiness(db: DbOrTx, merchantId: string): Promise<CatalogReadiness> {
  const [rows, [merchant]] = await Promise.all([
    db
      .select({ status: merchantProducts.matchStatus, n: count() })
      .from(merchantProducts)
      .where(eq(merchantProducts.merchantId, merchantId))
      .groupBy(merchantProducts.matchStatus),
    db.select({ syncedAt: merchants.catalogSyncedAt }).from(merchants).where(eq(merchants.id, merchantId)),
  ]);
  const byStatus = { matched: 0, partial: 0, unmatched: 0, pending: 0 };
  for (const r of rows) byStatus[r.status] = Number(r.n);
  const total = byStatus.matched + byStatus.partial + byStatus.unmatched + byStatus.pending;
  return {
    total,
    ...byStatus,
    ready: byStatus.matched + byStatus.partial > 0,
    last_synced_at: merchant?.syncedAt ? merchant.syncedAt.toISOString() : null,
  };
}
