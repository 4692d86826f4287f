import fp from 'fastify-plugin';
import { type ErasureStart, eraseMerchantRows, erasingMerchants, startErasure } from '../../services/erasure.ts';

declare module 'fastify' {
  interface FastifyInstance {
    erasure: {
      /**
       * Erases a merchant (`confirm`: its slug): refused everywhere at once, its rows deleted in the
       * background (`merchants.erase`), then what it taught learnt again
       */
      start(idOrSlug: string, confirm: string | undefined): Promise<ErasureStart>;
    };
  }
}

/** How often the erasure job looks for merchants marked erased whose rows are still there (a run lost with its instance). */
export const ERASE_DISPATCH_MINUTES = 10;

/**
 * A merchant's erasure (services/erasure.ts, docs/admin.md): the request marks it, revokes its keys
 * (dropped by every instance's key cache: here at once, elsewhere through Redis) and sends
 * `merchants.erase`, background work (plugins/app/jobs.ts) that deletes the rows of every merchant
 * marked erased, ERASE_BATCH_ROWS a statement, then sends each one's `learning.barcodes`: what its
 * shelf taught goes. The job also comes back by itself every ERASE_DISPATCH_MINUTES, so an erasure
 * interrupted (an instance stopped) is finished.
 */
export default fp(
  async (app) => {
    app.jobs.define('merchants.erase', {
      async run(_data, closing) {
        for (const id of await erasingMerchants(app.db)) {
          const summary = await eraseMerchantRows(app.db, id, closing);
          if (!summary.done) return;
          app.merchantProducts.invalidate(id);
          // its part in learnt barcodes and profiles goes (the dispatch sends it too, within a minute)
          app.learning.soon(id);
          app.log.info({ merchant: id, deleted: summary.deleted, statements: summary.statements }, 'merchant erased');
        }
      },
      everyMinutes: ERASE_DISPATCH_MINUTES,
      expireMinutes: 60,
      retries: 3,
      // what failed is the merchant's rows still there: tried again soon, not a minute later
      retryDelaySeconds: 10,
    });
    app.decorate('erasure', {
      async start(idOrSlug: string, confirm: string | undefined) {
        const started = await startErasure(app.db, idOrSlug, confirm);
        const id = started.merchant.id;
        for (const hash of started.keyHashes) await app.keyStore.invalidate(hash);
        app.merchantProducts.invalidate(id);
        if (started.started) {
          app.log.info({ merchant: id, slug: started.merchant.slug }, 'merchant erasure started');
          // it no longer teaches: what it taught is learnt again now, not after its rows are gone
          app.learning.soon(id);
        }
        await app.jobs.send('merchants.erase', {}, 'erase').catch((err) => {
          // marked erased and refused already: the job's own schedule deletes its rows
          app.log.warn({ err, merchant: id }, 'erasure not sent; the next scheduled run does it');
        });
        return started;
      },
    });
  },
  {
    name: 'erasure',
    dependencies: ['database', 'jobs', 'learning', 'merchant-products', 'widget-key'],
  },
);
