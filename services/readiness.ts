import { count, eq, max } from 'drizzle-orm';
import type { CatalogReadiness } from '../contracts/widget.ts';
import type { DbOrTx } from '../db/client.ts';
import { merchantProducts } from '../schema/index.ts';

/** How much of a merchant's synced catalog can be recommended. */
export async function catalogReadiness(db: DbOrTx, merchantId: string): Promise<CatalogReadiness> {
  const rows = await db
    .select({
      status: merchantProducts.matchStatus,
      n: count(),
      last: max(merchantProducts.updatedAt),
    })
    .from(merchantProducts)
    .where(eq(merchantProducts.merchantId, merchantId))
    .groupBy(merchantProducts.matchStatus);
  const byStatus = { matched: 0, partial: 0, unmatched: 0, pending: 0 };
  let last: Date | null = null;
  for (const r of rows) {
    byStatus[r.status] = Number(r.n);
    const at = r.last === null ? null : new Date(r.last as unknown as string);
    if (at && (!last || at > last)) last = at;
  }
  const total = byStatus.matched + byStatus.partial + byStatus.unmatched + byStatus.pending;
  return {
    total,
    ...byStatus,
    ready: byStatus.matched + byStatus.partial > 0,
    last_synced_at: last ? last.toISOString() : null,
  };
}
