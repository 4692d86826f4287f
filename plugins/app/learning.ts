import fp from 'fastify-plugin';
import { learnMerchant, learnReviewed, merchantsToLearn } from '../../services/learning.ts';

declare module 'fastify' {
  interface FastifyInstance {
    learning: {
      /** learns from a merchant's shelf soon (after a sync): a run already waiting for it is the one that happens */
      soon(merchantId: string): void;
      /** learns these perfumes again soon (after an operator's review of what answers propose) */
      perfumes(perfumeIds: readonly string[]): void;
      /** sends every learning due and waits until the background work is done (tests; the dispatch's work) */
      runDue(): Promise<void>;
    };
  }
}

/** How often the dispatch looks for shelves changed since they were last learnt from (once for all instances). */
export const LEARN_DISPATCH_MINUTES = 1;

/**
 * What one shop's shelf teaches every shop (services/learning.ts, docs/learning.md), as background
 * work (plugins/app/jobs.ts), never on a request: every minute one `learning.dispatch` sends a
 * `learning.barcodes` per merchant whose products changed since they were last learnt from (or that
 * was erased), keyed by the merchant, so a burst of syncs learns once. A sync through the admin API
 * sends its merchant's at once.
 */
export default fp(
  async (app) => {
    app.jobs.define<{ merchantId: string }>('learning.barcodes', {
      async run({ merchantId }) {
        const summary = await learnMerchant(app.db, app.catalog.current(), merchantId, app.inlineMatcher);
        for (const id of summary.merchants) app.merchantProducts.invalidate(id);
        if (summary.changed)
          app.log.info(
            { merchant: merchantId, keys: summary.keys, conflicts: summary.conflicts, changed: summary.changed },
            'barcodes learnt',
          );
      },
      expireMinutes: 15,
    });
    app.jobs.define<{ perfumeIds: string[] }>('learning.perfumes', {
      async run({ perfumeIds }) {
        const summary = await learnReviewed(app.db, app.catalog.current(), perfumeIds, app.inlineMatcher);
        for (const id of summary.merchants) app.merchantProducts.invalidate(id);
      },
      expireMinutes: 15,
    });
    const dispatch = async () => {
      for (const id of await merchantsToLearn(app.db)) await app.jobs.send('learning.barcodes', { merchantId: id }, id);
    };
    app.jobs.define('learning.dispatch', { run: dispatch, everyMinutes: LEARN_DISPATCH_MINUTES });
    app.decorate('learning', {
      soon(merchantId: string) {
        app.jobs.send('learning.barcodes', { merchantId }, merchantId).catch((err) => {
          // the dispatch sends it again within a minute
          app.log.warn({ err, merchant: merchantId }, 'learning not sent');
        });
      },
      perfumes(perfumeIds: readonly string[]) {
        const ids = [...new Set(perfumeIds)].sort();
        app.jobs.send('learning.perfumes', { perfumeIds: ids }, ids.join(',').slice(0, 200)).catch((err) => {
          // the perfume's next learning (a sync of a shop that sells it) applies it
          app.log.warn({ err, perfumes: ids.length }, 'learning not sent');
        });
      },
      async runDue() {
        await app.jobs.send('learning.dispatch', {}, 'now');
        await app.jobs.drain();
      },
    });
  },
  {
    name: 'learning',
    dependencies: ['database', 'catalog', 'merchant-products', 'jobs', 'inline-matcher'],
  },
);
