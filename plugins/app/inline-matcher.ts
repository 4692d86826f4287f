import { Worker } from 'node:worker_threads';
import fp from 'fastify-plugin';
import { AppError } from '../../lib/errors.ts';
import { FairQueue, QueueRefusal } from '../../lib/fair-queue.ts';
import { COMPILED, fromRoot } from '../../lib/root.ts';
import type { ProductInput } from '../../matching/listing.ts';
import {
  type ListingExplanation,
  type ListingMatcher,
  type ListingProblem,
  type RecognisedListings,
  type RecognisedProduct,
  recogniseInSlices,
} from '../../matching/recognise.ts';
import type { WorkerAnswer, WorkerRequest } from './inline-matcher.worker.ts';

/** a request to the worker, before its id is given */
type Job = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

declare module 'fastify' {
  interface FastifyInstance {
    inlineMatcher: {
      /**
       * Recognises an inline catalog's rows (recogniseListings) on a worker
       * thread, so the event loop that answers every other request never
       * waits on it. Rejects 429 when the merchant already has
       * INLINE_PER_MERCHANT catalogs matched or waiting, 503 `overloaded`
       * when INLINE_QUEUE wait.
       *
       * `listings` and `products` (ListingMatcher) recognise many listings the same way: a feed
       * pull's, a product sync's (the admin API, a platform's product webhook), a rematch's; a
       * LISTING_SLICE at a time, each slice as background work of the same queue (never refused,
       * run when no inline catalog waits, the merchants taking turns) within the same share of a
       * core.
       */
      match(
        merchantId: string,
        rows: readonly unknown[],
      ): Promise<{ recognised: RecognisedProduct[]; problems: ListingProblem[] }>;
      /** whether the worker thread is running (it starts with a match and stops after MATCHER_IDLE_MS without one) */
      running(): boolean;
    } & ListingMatcher;
  }
}

/**
 * One worker matches one inline catalog at a time (a core's worth of work at
 * most); INLINE_QUEUE more wait their turn, at most INLINE_PER_MERCHANT of them
 * (running or waiting) a merchant's. Past that: 429 for the merchant, 503 when
 * full. A request answered so is refused before any matching work.
 */
export const INLINE_QUEUE = 16;
export const INLINE_PER_MERCHANT = 2;
/**
 * Under sustained inline load the worker is held to this share of a core (its work over the last
 * second or so, decaying exponentially with INLINE_WINDOW_MS); a match waits until the share is
 * back under it. An occasional inline score never waits: a 2-core machine keeps a core and a half
 * for the requests every shop sends.
 */
export const INLINE_CPU_SHARE = 0.5;
export const INLINE_WINDOW_MS = 1000;
/**
 * Listings of a pull, a sync or a rematch sent to the worker at a time: about 140 ms of its work for
 * the heaviest listings (24 made-up words and 4,000 characters of description each), the longest
 * an inline catalog then waits for one.
 */
export const LISTING_SLICE = 50;
/** the worker's heap: an inline catalog is at most 200 rows, a slice LISTING_SLICE; its caches are bounded */
const WORKER_HEAP_MB = 256;
/**
 * The worker stops after this long without a request: it holds its own copy of the catalog and its
 * own heap (about 60 MB, docs/operations.md "Footprint"), which a shop whose scores name no inline
 * catalog and whose feeds are quiet never needs. The next match starts it again (about 0.3 s).
 */
export const MATCHER_IDLE_MS = 60_000;

export default fp<{ idleMs?: number }>(
  async (app, opts) => {
    const idleMs = opts.idleMs ?? MATCHER_IDLE_MS;
    const queue = new FairQueue({ concurrency: 1, maxQueued: INLINE_QUEUE, perOwner: INLINE_PER_MERCHANT });
    let worker: Worker | null = null;
    /** the catalog version the worker holds */
    let workerVersion = Number.NaN;
    let nextId = 0;
    const waiting = new Map<number, { resolve: (a: WorkerAnswer) => void; reject: (e: unknown) => void }>();

    let closed = false;
    /** stops the worker once nothing was asked of it for idleMs */
    let idleTimer: NodeJS.Timeout | null = null;
    const stopWhenIdle = () => {
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = setTimeout(() => {
        idleTimer = null;
        const w = worker;
        if (!w || waiting.size > 0) return;
        worker = null;
        workerVersion = Number.NaN;
        void w.terminate();
      }, idleMs);
      idleTimer.unref();
    };
    const unavailable = (why: string) =>
      new AppError(503, 'overloaded', `Matching stopped (${why}), retry shortly`, undefined, {
        'retry-after': '1',
      });
    const lost = (why: string) => {
      worker = null;
      workerVersion = Number.NaN;
      for (const w of waiting.values()) w.reject(unavailable(why));
      waiting.clear();
    };

    function start(): Worker {
      // compiled (`npm start`): the worker's own compiled file. From the TypeScript (tests, `npm run
      // dev`): its source through tsx's loader, registered by a small JavaScript entry (a worker's
      // `--import tsx` is not applied to its own entry on Node 20)
      const entry = COMPILED
        ? new URL('./inline-matcher.worker.js', import.meta.url)
        : fromRoot('plugins', 'app', 'inline-matcher.boot.mjs');
      const w = new Worker(entry, {
        resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
      });
      w.on('message', (a: WorkerAnswer) => {
        const caller = waiting.get(a.id);
        waiting.delete(a.id);
        caller?.resolve(a);
      });
      w.on('error', (err) => {
        app.log.error({ err }, 'matcher worker failed; a new one starts with the next match');
        lost('worker error');
      });
      w.on('exit', (code) => {
        if (worker === w) lost(`worker exited with ${code}`);
      });
      // an idle worker does not keep the process alive
      w.unref();
      return w;
    }

    // the worker's recent work, in ms, decayed with INLINE_WINDOW_MS, as of `busyAt`
    let busy = 0;
    let busyAt = performance.now();
    const budget = INLINE_CPU_SHARE * INLINE_WINDOW_MS;
    const decayed = (now: number) => busy * Math.exp(-(now - busyAt) / INLINE_WINDOW_MS);

    /** sends one request to the worker within the share of a core, and answers what it answered */
    async function onWorker(request: Job): Promise<WorkerAnswer> {
      const recent = decayed(performance.now());
      // the wait after which the decayed work is back within the budget
      if (recent > budget) await new Promise((r) => setTimeout(r, INLINE_WINDOW_MS * Math.log(recent / budget)));
      const started = performance.now();
      try {
        return await send(request);
      } finally {
        const ended = performance.now();
        busy = decayed(ended) + (ended - started);
        busyAt = ended;
      }
    }

    async function matchNow(rows: readonly unknown[]): Promise<RecognisedListings> {
      const answer = await onWorker({ type: 'match', rows: rows as unknown[] });
      if (!('result' in answer)) throw new Error('inline matching answered no result');
      return answer.result;
    }

    async function send(request: Job): Promise<WorkerAnswer> {
      if (closed) throw unavailable('closing');
      worker ??= start();
      const snapshot = app.catalog.current();
      if (workerVersion !== snapshot.version) {
        worker.postMessage({
          type: 'catalog',
          version: snapshot.version,
          perfumes: [...snapshot.perfumes],
          houses: [...snapshot.houses],
        } satisfies WorkerRequest);
        workerVersion = snapshot.version;
      }
      const id = ++nextId;
      const w = worker;
      const answer = await new Promise<WorkerAnswer>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        w.postMessage({ ...request, id } as WorkerRequest);
      });
      if (waiting.size === 0) stopWhenIdle();
      if ('error' in answer) throw new Error(`matching failed: ${answer.error}`);
      return answer;
    }

    app.addHook('onClose', async () => {
      closed = true;
      if (idleTimer) clearTimeout(idleTimer);
      const w = worker;
      worker = null;
      if (w) await w.terminate();
      // what was waiting for it will never be answered
      lost('closing');
    });

    /** many listings of a merchant: a slice at a time, as background work of the queue */
    const slice = <T>(merchantId: string, work: () => Promise<T>) => queue.run(merchantId, work, { background: true });
    const matcher: ListingMatcher = {
      listings: (merchantId, rows) =>
        recogniseInSlices(rows, LISTING_SLICE, (part) => slice(merchantId, () => matchNow(part))),
      async products(merchantId, products) {
        const out: RecognisedProduct[] = [];
        for (let from = 0; from < products.length; from += LISTING_SLICE) {
          const part = products.slice(from, from + LISTING_SLICE) as ProductInput[];
          const answer = await slice(merchantId, () => onWorker({ type: 'products', products: part }));
          if (!('products' in answer)) throw new Error('matching answered no products');
          out.push(...answer.products);
        }
        return out;
      },
      async explain(merchantId, listings) {
        const out: ListingExplanation[] = [];
        for (let from = 0; from < listings.length; from += LISTING_SLICE) {
          // name and house only: what an explanation reads
          const part = listings.slice(from, from + LISTING_SLICE).map((l) => ({ name: l.name, house: l.house }));
          const answer = await slice(merchantId, () => onWorker({ type: 'explain', listings: part }));
          if (!('explanations' in answer)) throw new Error('matching answered no explanations');
          out.push(...answer.explanations);
        }
        return out;
      },
    };

    app.decorate('inlineMatcher', {
      ...matcher,
      running: () => worker !== null,
      match(merchantId: string, rows: readonly unknown[]) {
        return queue
          .run(merchantId, () => matchNow(rows))
          .catch((err) => {
            if (!(err instanceof QueueRefusal)) throw err;
            throw err.reason === 'owner'
              ? new AppError(
                  429,
                  'rate_limited',
                  `Too many inline scores at once: at most ${INLINE_PER_MERCHANT} of a merchant's are matched or waiting at a time`,
                  undefined,
                  { 'retry-after': '1' },
                )
              : new AppError(
                  503,
                  'overloaded',
                  'Too many inline catalogs waiting to be matched, retry shortly',
                  undefined,
                  {
                    'retry-after': '1',
                  },
                );
          });
      },
    });
  },
  { name: 'inline-matcher', dependencies: ['catalog'] },
);
