/**
 * Fixed-window counters shared by several instances through one store
 * (Redis), without a round trip per request: each hit is counted here at once
 * and answered from what this instance knows — the shared total as of its last
 * reconciliation plus its own hits since — and every `flushMs` the hits of all
 * counters touched are sent together in one call, which answers each
 * counter's new shared total and the time its window has left.
 *
 * The bound (docs/operations.md): an instance does not see the hits another
 * instance counted since their last reconciliations, so across N instances a
 * client can be admitted above its limit by at most what it is admitted at the
 * other N − 1 instances within one interval (`flushMs` plus the store's answer
 * time), and never by more than (N − 1) × the limit in one window. A counter
 * already past its limit is refused here without asking the store.
 *
 * When the store fails, the hits stay counted here and are sent with the next
 * reconciliation: counting degrades to per instance, never to no limit.
 */
import { Cache } from './cache.ts';

/** What one counter's reconciliation sends: its store key, the hits since the last, its window. */
export interface CounterDelta {
  key: string;
  hits: number;
  windowMs: number;
}
/** What the store answers for it: the shared total in the window, and the window's time left (ms). */
export interface CounterTotal {
  total: number;
  ttlMs: number;
}

/** Sends the deltas in one call; answers one total per delta, in order. */
export type ReconcileFn = (deltas: readonly CounterDelta[]) => Promise<CounterTotal[]>;

interface Counter {
  /** the store key */
  key: string;
  windowMs: number;
  /** the shared total when last reconciled (this instance's hits sent until then included) */
  shared: number;
  /** hits sent in the reconciliation under way */
  sending: number;
  /** hits not yet sent */
  unsent: number;
  /** when the window ends (the store's, once reconciled) */
  resetAt: number;
}

export interface SharedCounterOptions {
  name: string;
  reconcile: ReconcileFn;
  /** the longest a hit waits before it is sent */
  flushMs: number;
  /**
   * counters remembered (an LRU), and the most with hits waiting to be sent: while the store is
   * away, past this many the oldest waiting are dropped from the next reconciliation (their hits
   * stay counted here while the LRU keeps them), so a client inventing keys cannot grow memory
   */
  maxCounters: number;
  /** counters sent in one call at most; more are sent in further calls of the same reconciliation */
  maxPerCall?: number;
  /** after a failed reconciliation, the next waits this long */
  retryMs: number;
  /**
   * a counter with this many hits not yet sent starts the reconciliation at once (or as soon as the
   * one under way is answered) instead of at the end of the interval: a client sending a burst is
   * told the shared total within a round trip, not an interval
   */
  hotHits?: number;
  onError?: (err: Error) => void;
  now?: () => number;
}

export interface CounterView {
  /** hits in the window as far as this instance knows, this one included (for `hit`) */
  current: number;
  /** ms until the window ends */
  ttl: number;
}

export function createSharedCounter(opts: SharedCounterOptions) {
  const now = opts.now ?? Date.now;
  const maxPerCall = opts.maxPerCall ?? 1000;
  const hotHits = opts.hotHits ?? Number.POSITIVE_INFINITY;
  /** a hot counter is waiting: reconcile again as soon as the call under way is answered */
  let hot = false;
  const counters = new Cache<string, Counter>({
    name: opts.name,
    max: opts.maxCounters,
    // Stryker disable next-line StringLiteral: the cache registry's description, read by people
    invalidatedBy: 'time: a counter counts one window; its shared total is refreshed at each reconciliation',
  });
  /** counters with hits not yet sent: the work of the next reconciliation */
  const dirty = new Map<string, Counter>();
  let timer: NodeJS.Timeout | null = null;
  let inFlight: Promise<void> | null = null;
  let closed = false;
  /** counters dropped from the reconciliation by the cap */
  let dropped = 0;

  const live = (key: string, windowMs: number, t: number): Counter => {
    let c = dirty.get(key) ?? counters.get(key);
    if (!c || c.resetAt <= t) {
      // a new window: hits still being sent belong to the old one and are not carried over
      c = { key, windowMs, shared: 0, sending: 0, unsent: 0, resetAt: t + windowMs };
      counters.set(key, c);
    }
    return c;
  };
  const view = (c: Counter, t: number): CounterView => ({
    current: c.shared + c.sending + c.unsent,
    ttl: Math.max(0, c.resetAt - t),
  });

  function cancelTimer() {
    clearTimeout(timer ?? undefined);
    timer = null;
  }

  function schedule(delay: number) {
    if (timer || closed) return;
    timer = setTimeout(() => {
      timer = null;
      void flush();
    }, delay);
    timer.unref();
  }

  /** Marks a counter as having hits to send, within the cap (oldest dropped first). */
  function markDirty(c: Counter) {
    dirty.set(c.key, c);
    if (dirty.size > opts.maxCounters) {
      const oldest = dirty.keys().next().value as string;
      dirty.delete(oldest);
      dropped++;
    }
  }

  /** A counter whose hits the store did not take: they are sent with the next reconciliation. */
  function requeue(c: Counter) {
    c.unsent += c.sending;
    c.sending = 0;
    markDirty(c);
  }

  /** Sends every counter's hits not yet sent; resolves once the store answered (or failed). */
  async function flush(): Promise<void> {
    // one reconciliation at a time: a second waits for the first, then sends what came meanwhile
    if (inFlight) await inFlight;
    if (dirty.size === 0) return;
    const batch = [...dirty.values()];
    dirty.clear();
    for (const c of batch) {
      c.sending = c.unsent;
      c.unsent = 0;
    }
    let failed = false;
    inFlight = (async () => {
      for (let i = 0; i < batch.length; i += maxPerCall) {
        const part = batch.slice(i, i + maxPerCall);
        try {
          const totals = await opts.reconcile(part.map((c) => ({ key: c.key, hits: c.sending, windowMs: c.windowMs })));
          if (totals.length !== part.length) {
            throw new Error(`the store answered ${totals.length} totals for ${part.length} counters`);
          }
          const t = now();
          part.forEach((c, j) => {
            const r = totals[j] as CounterTotal;
            c.shared = r.total;
            // the store's window is the shared one: align this instance's to it
            c.resetAt = t + Math.min(r.ttlMs, c.windowMs);
            c.sending = 0;
          });
        } catch (err) {
          failed = true;
          for (const c of part) requeue(c);
          opts.onError?.(err as Error);
        }
      }
    })();
    try {
      await inFlight;
    } finally {
      inFlight = null;
    }
    if (dirty.size === 0) return;
    if (hot && !failed && !closed) {
      hot = false;
      cancelTimer();
      void flush();
    } else schedule(failed ? opts.retryMs : opts.flushMs);
  }

  return {
    /** counts one hit on the key's counter and answers the counter as this instance knows it */
    hit(key: string, windowMs: number): CounterView {
      const t = now();
      const c = live(key, windowMs, t);
      c.unsent++;
      markDirty(c);
      if (c.unsent >= hotHits && !closed) {
        if (inFlight) hot = true;
        else {
          cancelTimer();
          void flush();
        }
      } else schedule(opts.flushMs);
      return view(c, t);
    },
    /** the key's counter as this instance knows it, without counting a hit */
    read(key: string): CounterView {
      const t = now();
      const c = dirty.get(key) ?? counters.get(key);
      if (!c || c.resetAt <= t) return { current: 0, ttl: 0 };
      return view(c, t);
    },
    flush,
    /** counters with hits waiting to be sent */
    pending: () => dirty.size,
    /** counters whose waiting hits the cap dropped (the store was away too long for too many) */
    dropped: () => dropped,
    /** sends what is left and stops the timer */
    async close() {
      closed = true;
      cancelTimer();
      await flush();
    },
  };
}

export type SharedCounter = ReturnType<typeof createSharedCounter>;

/**
 * The most a client can be admitted above its limit across instances sharing
 * counters, given when it sent each request and to which instance: for each
 * instance, the most requests it sent there within any span of `staleMs` (one
 * reconciliation interval plus the store's answer time: how long an instance
 * can answer from a total that misses other instances' hits), summed. Used by
 * the tests and the accuracy benchmark to hold the documented bound.
 */
export function overAdmissionBound(sends: readonly { instance: number; at: number }[], staleMs: number): number {
  const byInstance = new Map<number, number[]>();
  for (const s of sends) {
    const list = byInstance.get(s.instance) ?? [];
    list.push(s.at);
    byInstance.set(s.instance, list);
  }
  let bound = 0;
  for (const times of byInstance.values()) {
    times.sort((a, b) => a - b);
    let most = 0;
    for (let lo = 0, hi = 0; hi < times.length; hi++) {
      while ((times[hi] as number) - (times[lo] as number) > staleMs) lo++;
      most = Math.max(most, hi - lo + 1);
    }
    bound += most;
  }
  return bound;
}
