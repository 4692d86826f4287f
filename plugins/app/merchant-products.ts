import fp from 'fastify-plugin';
import { Cache } from '../../lib/cache.ts';
import { databaseTimeout, withDeadline } from '../../lib/deadline.ts';
import { CompiledProducts } from '../../scoring/products.ts';
import { loadScoringProducts, productVersions } from '../../services/products.ts';

declare module 'fastify' {
  interface FastifyInstance {
    merchantProducts: {
      /** the merchant's recommendable products, compiled; loaded once per catalog version */
      get(merchantId: string): Promise<CompiledProducts>;
      /** the merchant's compiled catalog when it is loaded here now (no waiting), else undefined */
      cached(merchantId: string): CompiledProducts | undefined;
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

/**
 * Keeps each merchant's recommendable products compiled in memory, so a
 * score request reads no product rows. Every MERCHANT_POLL_MS one query reads
 * the catalog versions of the cached merchants; a changed version (a sync or a
 * pin on any instance) drops the entry, and the next request reloads it. A
 * change of our catalog drops them all (their profiles come from it).
 */
export default fp(
  async (app) => {
    const cache = new Cache<string, CompiledProducts>({
      name: 'merchant-products',
      max: MAX_MERCHANTS,
      invalidatedBy:
        "a sync, pin, unpin or rematch of the merchant's products (here at once; on other instances at their next version check, every 500 ms) and any change of our catalog",
    });
    const loading = new Map<string, Promise<CompiledProducts>>();
    let catalogVersion = app.catalog.current().version;

    /** compiled products carry profiles from our catalog: a new catalog outdates them all */
    function current(merchantId: string): CompiledProducts | undefined {
      const version = app.catalog.current().version;
      if (version !== catalogVersion) {
        catalogVersion = version;
        cache.clear();
        return undefined;
      }
      return cache.get(merchantId);
    }

    async function load(merchantId: string): Promise<CompiledProducts> {
      const { version, products } = await loadScoringProducts(app.db, app.catalog.current(), merchantId);
      return new CompiledProducts(version, products, { imageBase: app.config.publicBaseUrl });
    }

    async function get(merchantId: string): Promise<CompiledProducts> {
      const hit = current(merchantId);
      if (hit) return hit;
      let pending = loading.get(merchantId);
      if (!pending) {
        const loadedWith = app.catalog.current().version;
        pending = load(merchantId)
          .then((compiled) => {
            // an invalidation while loading would otherwise be undone by this older load
            if (loading.get(merchantId) === pending && app.catalog.current().version === loadedWith) {
              cache.set(merchantId, compiled);
            }
            return compiled;
          })
          .finally(() => {
            if (loading.get(merchantId) === pending) loading.delete(merchantId);
          });
        loading.set(merchantId, pending);
      }
      // the load goes on (its result is cached when it comes); the request does not wait for ever
      return withDeadline(pending, app.config.dbTimeoutMs, () => databaseTimeout('Score'));
    }

    async function checkVersions(): Promise<void> {
      const ids = cache.keys();
      if (ids.length === 0) return;
      const versions = await productVersions(app.db, ids);
      for (const id of ids) {
        if (versions.get(id) !== cache.get(id)?.version) cache.delete(id);
      }
    }

    // one check at a time: a database that does not answer gets no pile of them
    let checking = false;
    const timer = setInterval(() => {
      if (checking) return;
      checking = true;
      checkVersions()
        .catch((err) => app.log.warn({ err }, 'merchant catalog version check failed; cached catalogs kept'))
        .finally(() => {
          checking = false;
        });
    }, MERCHANT_POLL_MS);
    timer.unref();
    app.addHook('onClose', async () => clearInterval(timer));

    app.decorate('merchantProducts', {
      get,
      cached: current,
      invalidate(id: string) {
        cache.delete(id);
        loading.delete(id);
      },
      checkVersions,
    });
  },
  { name: 'merchant-products', dependencies: ['database', 'catalog'] },
);
