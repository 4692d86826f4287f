import fp from 'fastify-plugin';
import { AppError } from '../../lib/errors.ts';
import {
  claimSource,
  dueSourceIds,
  feedPageFetcher,
  type PageFetcher,
  pullSource,
  type pullView,
} from '../../services/feeds.ts';

declare module 'fastify' {
  interface FastifyInstance {
    feeds: {
      /** one page of a shop's feed, through the SSRF guard and the caps (services/feed-fetch.ts) */
      fetchPage: PageFetcher;
      /** pulls a source now (the admin API's "pull now") and answers its record */
      pullNow(sourceId: string, o?: { force?: boolean }): Promise<ReturnType<typeof pullView>>;
      /** sends what is due to be pulled, and waits until the background work is done (tests; the dispatch job's work) */
      runDue(): Promise<void>;
    };
  }
}

/** How often the dispatch looks for feeds due (once for all instances). */
export const FEED_DISPATCH_MINUTES = 1;
/** How long a claim holds a source against other pulls: longer than any pull's reading and storing. */
export const FEED_CLAIM_MS = 15 * 60_000;

/**
 * Pulls merchants' feeds when they are due (docs/feeds.md), as background jobs (plugins/app/jobs.ts):
 * every minute one `feeds.dispatch` run (one for all instances) sends a `feeds.pull` per source due,
 * keyed by the source, which one instance takes; the pull claims its source again in the database
 * (only while it is still due and nobody pulls it), so a pull sent twice, or racing an operator's
 * "pull now", happens once. A pull that stores products drops the merchant's compiled products here
 * (other instances see the new version at their next check).
 */
export default fp(
  async (app) => {
    // pages of a platform's API within its limit on calls per store (Zid's 60 a minute)
    const fetchPage = app.platforms.paced(feedPageFetcher(app.config.feeds.allowPrivateHosts));

    const pull = async (sourceId: string, o: { force?: boolean } = {}) => {
      const { pull, merchantId } = await pullSource(
        app.db,
        app.catalog.current(),
        app.leadCipher,
        sourceId,
        fetchPage,
        // a platform store's source reads with the store's access token (plugins/app/platforms.ts);
        // its products are matched on the matcher's worker thread, never on the event loop
        { ...o, access: app.platforms.access, match: app.inlineMatcher },
      );
      if (pull.status === 'applied') app.merchantProducts.invalidate(merchantId);
      app.log.info({ feed: sourceId, status: pull.status, added: pull.added, removed: pull.removed }, 'feed pulled');
      return pull;
    };
    const pullNow = async (sourceId: string, o: { force?: boolean } = {}) => {
      if (!(await claimSource(app.db, sourceId, FEED_CLAIM_MS))) {
        throw new AppError(409, 'feed_busy', 'A pull of this feed is under way: its record shows when it ends');
      }
      return pull(sourceId, o);
    };

    app.jobs.define<{ sourceId: string }>('feeds.pull', {
      async run({ sourceId }) {
        try {
          if (await claimSource(app.db, sourceId, FEED_CLAIM_MS, { due: true })) await pull(sourceId);
        } catch (err) {
          // removed meanwhile: nothing to pull
          if (err instanceof AppError && err.statusCode === 404) return;
          throw err;
        }
      },
      expireMinutes: FEED_CLAIM_MS / 60_000,
    });
    const dispatch = async () => {
      for (const id of await dueSourceIds(app.db)) await app.jobs.send('feeds.pull', { sourceId: id }, id);
    };
    app.jobs.define('feeds.dispatch', { run: dispatch, everyMinutes: FEED_DISPATCH_MINUTES });

    const runDue = async () => {
      await app.jobs.send('feeds.dispatch', {}, 'now');
      await app.jobs.drain();
    };
    app.decorate('feeds', { fetchPage, pullNow, runDue });
  },
  {
    name: 'feed-runner',
    dependencies: ['database', 'catalog', 'leads', 'merchant-products', 'jobs', 'platforms', 'inline-matcher'],
  },
);
