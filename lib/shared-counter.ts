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
import { randomUUID } from 'node:crypto';
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

/**
 * Which call this is: the instance's id and the call's number. An instance sends its calls in
 * order, and a call that failed is sent again, with the same number, before any later one: the
 * store applies a call only when its number is above the last it applied for the instance, so a
 * call that timed out here after the store ran it is not counted twice.
 */
export interface CallId {
  instance: string;
  seq: number;
}

/** Sends the deltas in one call; answers one total per delta, in order. */
export type ReconcileFn = (deltas: readonly CounterDelta[], call: CallId) => Promise<CounterTotal[]>;

/** One call to the store: its id (the same each time it is sent), its counters and the hits it sends for each. */
interface Call {
  id: CallId;
  part: Counter[];
  hits: number[];
}

interface Counter {
  /** the store key */
  key: string;
  windowMs: number;
  /** the shared total when last reconciled (this instance's hits sent until then included) */
  shared: number;
  /** hits in calls sent and not yet answered (under way, or failed and to be sent again) */
  sending: number;
  /** hits not yet sent */
  unsent: number;
  /** this instance's hits the store has taken in this window (to send again if the store loses them) */
  mine: number;
  /** when the window ends (the store's, once reconciled) */
  resetAt: number;
}

/**
 * A store's total below this instance's own hits is a loss, not a new window, while the window has
 * more than this left here (the window here ends after the store's by at most an answer's time).
 */
const LOSS_MARGIN_MS = 1000;

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
  /**
   * Calls that failed, to be sent again as they were (same number, same hits; counters whose
   * window has ended left out) before any new call: the store may have applied them already,
   * and applies a call's number once, so a hit is never counted twice.
   */
  let unanswered: Call[] = [];
  /** counters in `unanswered` (the cap counts them with `dirty`) */
  let unansweredCounters = 0;
  const instanceId = randomUUID();
  let calls = 0;
  let timer: NodeJS.Timeout | null = null;
  let inFlight: Promise<void> | null = null;
  let closed = false;
  /** the last reconciliation failed: the next waits the retry time, a burst does not start one at once */
  let failing = false;
  /** after a failure, no reconciliation but a forced one (flush(), close) before this time (Date.now()) */
  let retryAt = 0;
  /** counters dropped from the reconciliation by the cap */
  let dropped = 0;

  const live = (key: string, windowMs: number, t: number): Counter => {
    let c = dirty.get(key) ?? counters.get(key);
    if (!c || c.resetAt <= t) {
      // a new window: hits still being sent belong to the old one and are not carried over
      c = { key, windowMs, shared: 0, sending: 0, unsent: 0, mine: 0, resetAt: t + windowMs };
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
      void reconcile(false);
    }, delay);
    timer.unref();
  }

  /** Marks a counter as having hits to send, within the cap (oldest dropped first). */
  function markDirty(c: Counter) {
    dirty.set(c.key, c);
    while (dirty.size > 0 && dirty.size + unansweredCounters > opts.maxCounters) {
      const oldest = dirty.keys().next().value as string;
      dirty.delete(oldest);
      dropped++;
    }
  }

  /** Sends one call; false when it failed (it is then kept to be sent again as it was). */
  async function send(call: Call): Promise<boolean> {
    // a counter whose window has ended here is not sent: its hits would count in the next window
    // (a call sent again may carry fewer counters than before: the store applies its number once)
    const t0 = now();
    if (call.part.some((c) => c.resetAt <= t0)) {
      const part: Counter[] = [];
      const hits: number[] = [];
      call.part.forEach((c, j) => {
        if (c.resetAt > t0) {
          part.push(c);
          hits.push(call.hits[j] as number);
        } else c.sending -= call.hits[j] as number;
      });
      call.part = part;
      call.hits = hits;
    }
    if (call.part.length === 0) return true;
    try {
      const totals = await opts.reconcile(
        call.part.map((c, j) => ({ key: c.key, hits: call.hits[j] as number, windowMs: c.windowMs })),
        call.id,
      );
      if (totals.length !== call.part.length) {
        throw new Error(`the store answered ${totals.length} totals for ${call.part.length} counters`);
      }
      const t = now();
      call.part.forEach((c, j) => {
        const r = totals[j] as CounterTotal;
        const hits = call.hits[j] as number;
        c.sending -= hits;
        // Within a window the store's total only grows: one below this instance's own hits means
        // the store lost the counter (Redis restarted without persistence, or evicted it) since
        // the last reconciliation, and every hit sent before with it. They are sent again (each
        // instance sends its own), unless the window is ending anyway.
        if (r.total < c.mine + hits && c.resetAt - t0 > LOSS_MARGIN_MS) {
          c.unsent += c.mine;
          c.mine = 0;
          markDirty(c);
        }
        c.mine += hits;
        c.shared = r.total;
        // the store's window is the shared one: align this instance's to it
        c.resetAt = t + Math.min(r.ttlMs, c.windowMs);
      });
      return true;
    } catch (err) {
      opts.onError?.(err as Error);
      return false;
    }
  }

  /** Sends every counter's hits not yet sent; resolves once the store answered (or failed). */
  const flush = () => reconcile(true);

  /**
   * One reconciliation. Unless `forced`, none starts before the retry time after a failure: the
   * timer and bursts that were waiting behind the failed call do not follow it one after another.
   */
  async function reconcile(forced: boolean): Promise<void> {
    // one reconciliation at a time: a second waits for the first, then sends what came meanwhile
    while (inFlight) await inFlight;
    if (dirty.size === 0 && unanswered.length === 0) return;
    if (!forced && Date.now() < retryAt) {
      schedule(retryAt - Date.now());
      return;
    }
    let failed = false;
    inFlight = (async () => {
      // first the calls that failed, as they were; after a failure nothing more is sent this time
      const again = unanswered;
      unanswered = [];
      unansweredCounters = 0;
      for (const call of again) {
        if (failed || !(await send(call))) {
          failed = true;
          unanswered.push(call);
          unansweredCounters += call.part.length;
        }
      }
      if (failed) return;
      // (a counter whose window has ended is left out by send())
      const batch = [...dirty.values()];
      dirty.clear();
      const fresh: Call[] = [];
      for (let i = 0; i < batch.length; i += maxPerCall) {
        const part = batch.slice(i, i + maxPerCall);
        const hits = part.map((c) => {
          const n = c.unsent;
          c.sending += n;
          c.unsent = 0;
          return n;
        });
        fresh.push({ id: { instance: instanceId, seq: ++calls }, part, hits });
      }
      for (const call of fresh) {
        if (failed || !(await send(call))) {
          failed = true;
          unanswered.push(call);
          unansweredCounters += call.part.length;
        }
      }
    })();
    try {
      await inFlight;
    } finally {
      inFlight = null;
    }
    failing = failed;
    if (failed) retryAt = Date.now() + opts.retryMs;
    if (dirty.size === 0 && unanswered.length === 0) return;
    if (hot && !failed && !closed) {
      hot = false;
      cancelTimer();
      void reconcile(false);
    } else schedule(failed ? opts.retryMs : opts.flushMs);
  }

  return {
    /** counts one hit on the key's counter and answers the counter as this instance knows it */
    hit(key: string, windowMs: number): CounterView {
      const t = now();
      const c = live(key, windowMs, t);
      c.unsent++;
      markDirty(c);
      // (not while the store is failing: the next try waits the retry time)
      if (c.unsent >= hotHits && !closed && !failing) {
        if (inFlight) hot = true;
        else {
          cancelTimer();
          void reconcile(false);
        }
      } else schedule(failing ? opts.retryMs : opts.flushMs);
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
    /** counters with hits waiting to be sent (new, or in calls to be sent again) */
    pending: () => new Set([...dirty.keys(), ...unanswered.flatMap((call) => call.part.map((c) => c.key))]).size,
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
