import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import fp from 'fastify-plugin';
import type { CatalogSnapshot } from '../../catalog/store.ts';
import { merchantProducts, merchants } from '../../schema/index.ts';
import { CompiledCatalog, lineOf, type ScoringProduct } from '../../scoring/catalog.ts';

declare module 'fastify' {
  interface FastifyInstance {
    merchantCatalogs: {
      /** the merchant's recommendable products, compiled; loaded once per catalog version */
      get(merchantId: string): Promise<CompiledCatalog>;
      /** the merchant's compiled catalog when it is loaded here now (no waiting), else undefined */
      cached(merchantId: string): CompiledCatalog | undefined;
      /** drops the merchant's compiled catalog here (a sync or pin on this instance) */
      invalidate(merchantId: string): void;
      /** reads the cached merchants' versions now and drops the changed ones (also run every MERCHANT_POLL_MS) */
      checkVersions(): Promise<void>;
    };
  }
}

/** How often an instance checks whether another one changed a cached merchant's products. */
export const MERCHANT_POLL_MS = 500;
const MAX_MERCHANTS = 1000;

export function toScoringProduct(
  row: typeof merchantProducts.$inferSelect,
  snapshot: CatalogSnapshot,
): ScoringProduct | null {
  if (!row.profile || (row.matchStatus !== 'matched' && row.matchStatus !== 'partial')) return null;
  const perfume =
    row.matchStatus === 'matched' && row.sillagePerfumeId ? snapshot.byId.get(row.sillagePerfumeId) : undefined;
  return {
    merchantProductId: row.merchantProductId,
    perfumeId: row.matchStatus === 'matched' ? row.sillagePerfumeId : null,
    name: row.name,
    house: row.house,
    price: row.price,
    currency: row.currency,
    productUrl: row.productUrl,
    imageUrl: row.imageUrl ?? perfume?.imageUrl ?? null,
    quality: row.matchStatus === 'matched' ? 'full' : 'partial',
    profile: row.profile,
    line: perfume ? lineOf(perfume.house, perfume.name) : `merchant|${lineOf(row.house, row.name)}`,
    lineHouse: perfume?.house ?? row.house,
  };
}

/**
 * Keeps each merchant's recommendable products compiled in memory, so a
 * score request reads no product rows. Every MERCHANT_POLL_MS one query reads
 * the catalog versions of the cached merchants; a changed version (a sync or a
 * pin on any instance) drops the entry, and the next request reloads it.
 */
export default fp(
  async (app) => {
    const cache = new Map<string, CompiledCatalog>();
    const loading = new Map<string, Promise<CompiledCatalog>>();

    async function load(merchantId: string): Promise<CompiledCatalog> {
      const [m] = await app.db
        .select({ version: merchants.catalogVersion })
        .from(merchants)
        .where(eq(merchants.id, merchantId));
      const rows = await app.db
        .select()
        .from(merchantProducts)
        .where(
          and(
            eq(merchantProducts.merchantId, merchantId),
            inArray(merchantProducts.matchStatus, ['matched', 'partial']),
            isNotNull(merchantProducts.profile),
          ),
        )
        .orderBy(merchantProducts.merchantProductId);
      const snapshot = app.catalog.current();
      const products = rows.map((r) => toScoringProduct(r, snapshot)).filter((p): p is ScoringProduct => p !== null);
      return new CompiledCatalog(m?.version ?? 0, products);
    }

    async function get(merchantId: string): Promise<CompiledCatalog> {
      const hit = cache.get(merchantId);
      if (hit) return hit;
      let pending = loading.get(merchantId);
      if (!pending) {
        pending = load(merchantId)
          .then((compiled) => {
            if (cache.size >= MAX_MERCHANTS) {
              const oldest = cache.keys().next().value;
              if (oldest !== undefined) cache.delete(oldest);
            }
            cache.set(merchantId, compiled);
            return compiled;
          })
          .finally(() => loading.delete(merchantId));
        loading.set(merchantId, pending);
      }
      return pending;
    }

    async function checkVersions(): Promise<void> {
      if (cache.size === 0) return;
      const ids = [...cache.keys()];
      const rows = await app.db
        .select({ id: merchants.id, version: merchants.catalogVersion })
        .from(merchants)
        .where(inArray(merchants.id, ids));
      const current = new Map(rows.map((r) => [r.id, r.version]));
      for (const id of ids) {
        if (current.get(id) !== cache.get(id)?.version) cache.delete(id);
      }
    }

    const timer = setInterval(() => {
      checkVersions().catch((err) =>
        app.log.warn({ err }, 'merchant catalog version check failed; cached catalogs kept'),
      );
    }, MERCHANT_POLL_MS);
    timer.unref();
    app.addHook('onClose', async () => clearInterval(timer));

    app.decorate('merchantCatalogs', {
      get,
      cached: (id: string) => cache.get(id),
      invalidate: (id: string) => void cache.delete(id),
      checkVersions,
    });
  },
  { name: 'merchant-catalogs', dependencies: ['database', 'catalog'] },
);
