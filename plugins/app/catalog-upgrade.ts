import fp from 'fastify-plugin';
import { rematchAllMerchants } from '../../services/products.ts';

type Total = { merchants: number; checked: number; changed: number };

declare module 'fastify' {
  interface FastifyInstance {
    catalogUpgrade: {
      /**
       * Waits for the background work, then answers what this instance's rematch after a new shipped
       * catalog found, or null when this start loaded none (or another instance did the rematch).
       */
      done(): Promise<Total | null>;
    };
  }
}

/**
 * A release that ships a changed catalog reaches merchants on its first start:
 * once the new catalog is loaded (the records it withdraws removed, their
 * products waiting, services/catalog.ts), every merchant's products are matched
 * again against it, one merchant at a time, pins kept — a product of a perfume
 * the catalog now holds is recommended as that perfume, a sibling becomes the
 * product itself when its concentration is added. The admin product list says
 * what changed (`match_change`).
 *
 * The instance that loaded the catalog sends the background job
 * `catalog.rematch` (plugins/app/jobs.ts), keyed by the catalog's version; one
 * instance takes it. A closing instance finishes the merchant in hand (one
 * transaction) and stops: on PostgreSQL the job is tried again a minute later
 * on an instance still running (what was done is found already done); on the
 * embedded database `products:rematch` does the rest. The log says how many
 * products changed.
 */
export default fp(
  async (app) => {
    let last: Total | null = null;
    let sent = false;
    app.jobs.define<{ version: number }>('catalog.rematch', {
      async run({ version }, closing) {
        const snapshot = await app.catalog.refresh();
        const total = await rematchAllMerchants(
          app.db,
          snapshot,
          (s) => {
            if (s.changed > 0) app.merchantProducts.invalidate(s.merchant_id);
          },
          closing,
          // on the matcher's worker thread, a slice at a time: the service answers all the while
          app.inlineMatcher,
        );
        if (closing()) {
          app.log.warn(
            total,
            app.jobs.kind === 'pg-boss'
              ? 'stopped matching products again: closing; another instance takes it over'
              : 'stopped matching products again: closing; run products:rematch for the rest',
          );
          throw new Error(`matching products again against catalog ${version} stopped: closing`);
        }
        app.log.info({ ...total, version }, "merchants' products matched again against the new catalog");
        last = total;
      },
      expireMinutes: 60,
      retries: 5,
    });
    app.addHook('onReady', async () => {
      if (!app.catalog.loadedShipped()) return;
      const { version } = app.catalog.current();
      sent = true;
      // not awaited: the runner may wait for the database (plugins/app/jobs.ts)
      void app.jobs.send('catalog.rematch', { version }, String(version)).catch((err) => {
        app.log.warn(
          { err },
          'matching products again after the catalog upgrade could not be sent; run products:rematch',
        );
      });
    });
    app.decorate('catalogUpgrade', {
      async done() {
        if (!sent) return null;
        await app.jobs.drain();
        return last;
      },
    });
  },
  { name: 'catalog-upgrade', dependencies: ['catalog', 'merchant-products', 'jobs', 'inline-matcher'] },
);
