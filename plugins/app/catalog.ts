import fp from 'fastify-plugin';
import { buildSnapshot, type CatalogSnapshot } from '../../catalog/store.ts';
import { catalogVersion, ensureBundledCatalog, loadCatalog } from '../../services/catalog.ts';

declare module 'fastify' {
  interface FastifyInstance {
    catalog: {
      /** the current snapshot: perfumes, houses and the search index */
      current(): CatalogSnapshot;
      /** reloads from the database now if the version changed (after an import on this instance) */
      refresh(): Promise<CatalogSnapshot>;
      /** whether this process loaded a release's new shipped catalog (so merchants' products are matched again) */
      loadedShipped(): boolean;
    };
  }
}

/** How often an instance checks whether another process changed the catalog. */
export const CATALOG_POLL_MS = 2000;

/**
 * Holds the perfume catalog and its search index in memory. On start it loads
 * the shipped catalog into the database if needed, then builds the index; it
 * then checks the catalog version every CATALOG_POLL_MS and rebuilds when an
 * import (here, on another instance or from the CLI) changed it. If the
 * database is unreachable at start, the service still starts (readiness says
 * 503) and the catalog loads as soon as the database answers.
 */
export default fp(
  async (app) => {
    let snapshot = buildSnapshot(-1, [], []);
    let shippedLoaded = false;
    let loadedShipped = false;
    let reloading: Promise<CatalogSnapshot> | null = null;

    async function refresh(): Promise<CatalogSnapshot> {
      if (reloading) return reloading;
      reloading = (async () => {
        try {
          if (!shippedLoaded) {
            const shipped = await ensureBundledCatalog(app.db, app.log);
            if (shipped.loaded) app.log.info(shipped, 'shipped perfume catalog loaded');
            loadedShipped = shipped.loaded;
            shippedLoaded = true;
          }
          const { version } = await catalogVersion(app.db);
          if (version !== snapshot.version) {
            const { perfumes, houses } = await loadCatalog(app.db);
            const started = performance.now();
            snapshot = buildSnapshot(version, perfumes, houses);
            app.log.info(
              { version, perfumes: perfumes.length, ms: Math.round(performance.now() - started) },
              'catalog index built',
            );
          }
          return snapshot;
        } finally {
          reloading = null;
        }
      })();
      return reloading;
    }

    try {
      await refresh();
    } catch (err) {
      app.log.error({ err }, 'catalog not loaded at start-up (database unreachable?); retrying in the background');
    }

    const timer = setInterval(() => {
      refresh().catch((err) => app.log.warn({ err }, 'catalog refresh failed; serving the previous snapshot'));
    }, CATALOG_POLL_MS);
    timer.unref();
    app.addHook('onClose', async () => clearInterval(timer));

    app.decorate('catalog', { current: () => snapshot, refresh, loadedShipped: () => loadedShipped });
  },
  { name: 'catalog', dependencies: ['database'] },
);
