import fp from 'fastify-plugin';
import { AppError } from '../../lib/errors.ts';
import {
  claimDueSource,
  claimSource,
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
      /** pulls what is due, one source after another, until none is (the timer's work; tests call it) */
      runDue(): Promise<number>;
    };
  }
}

/** How often an instance looks for feeds due. */
export const FEED_POLL_MS = 30_000;
/** How long a claim holds a source against other instances: longer than any pull's reading and storing. */
export const FEED_CLAIM_MS = 15 * 60_000;

/**
 * Pulls merchants' feeds when they are due (docs/feeds.md). Every instance looks every
 * FEED_POLL_MS and claims one due source at a time with SKIP LOCKED (services/feeds.ts), so with
 * several instances on one PostgreSQL each feed is pulled once per interval; on the embedded
 * database the one process does it. A pull that stores products drops the merchant's compiled
 * products here (other instances see the new version at their next check).
 */
export default fp(
  async (app) => {
    const fetchPage = feedPageFetcher(app.config.feeds.allowPrivateHosts);

    const pull = async (sourceId: string, o: { force?: boolean } = {}) => {
      const { pull, merchantId } = await pullSource(
        app.db,
        app.catalog.current(),
        app.leadCipher,
        sourceId,
        fetchPage,
        o,
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

    let running: Promise<number> | null = null;
    const runDue = () => {
      running ??= (async () => {
        let n = 0;
        try {
          for (
            let id = await claimDueSource(app.db, FEED_CLAIM_MS);
            id;
            id = await claimDueSource(app.db, FEED_CLAIM_MS)
          ) {
            await pull(id);
            n++;
          }
        } catch (err) {
          app.log.warn({ err }, 'feed runner: could not claim or pull; next try later');
        } finally {
          running = null;
        }
        return n;
      })();
      return running;
    };

    app.decorate('feeds', { fetchPage, pullNow, runDue });
    const timer = setInterval(() => void runDue(), FEED_POLL_MS);
    timer.unref();
    app.addHook('onClose', async () => {
      clearInterval(timer);
      await running;
    });
  },
  { name: 'feed-runner', dependencies: ['database', 'catalog', 'leads', 'merchant-products'] },
);
