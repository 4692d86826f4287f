import fp from 'fastify-plugin';
import { rematchAllMerchants } from '../../services/products.ts';

declare module 'fastify' {
  interface FastifyInstance {
    catalogUpgrade: {
      /** the start-up rematch after a new shipped catalog, or null when this start loaded none */
      done(): Promise<{ merchants: number; checked: number; changed: number } | null>;
    };
  }
}

/**
 * A release that ships a changed catalog reaches merchants on its first start:
 * once the new catalog is loaded (the records it withdraws removed, their
 * products waiting, services/catalog.ts), every merchant's products are matched
 * again against it, in the background, one merchant at a time, pins kept — a
 * product of a perfume the catalog now holds is recommended as that perfume, a
 * sibling becomes the product itself when its concentration is added. The
 * admin product list says what changed (`match_change`). Only the instance that
 * loaded the catalog does this; its log says how many products changed.
 */
export default fp(
  async (app) => {
    let closing = false;
    let run: Promise<{ merchants: number; checked: number; changed: number } | null> = Promise.resolve(null);
    app.addHook('onReady', async () => {
      if (!app.catalog.loadedShipped()) return;
      run = (async () => {
        try {
          const snapshot = await app.catalog.refresh();
          const total = await rematchAllMerchants(
            app.db,
            snapshot,
            (s) => {
              if (s.changed > 0) app.merchantProducts.invalidate(s.merchant_id);
            },
            () => closing,
          );
          if (closing)
            app.log.warn(total, 'stopped matching products again: closing; run products:rematch for the rest');
          else app.log.info(total, "merchants' products matched again against the new catalog");
          return total;
        } catch (err) {
          app.log.warn({ err }, 'matching products again after the catalog upgrade failed; run products:rematch');
          return null;
        }
      })();
    });
    app.decorate('catalogUpgrade', { done: () => run });
    // a closing instance finishes the merchant in hand (one transaction) and stops: products:rematch does the rest
    app.addHook('preClose', async () => {
      closing = true;
      await run;
    });
  },
  { name: 'catalog-upgrade', dependencies: ['catalog', 'merchant-products'] },
);
