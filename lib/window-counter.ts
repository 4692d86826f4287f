/**
 * Counts per key in fixed one-window slots, in this process's memory only
 * (an LRU of at most `max` keys): for guards that must cost nothing — no
 * round trip to a shared store — and may count per instance.
 */
import { Cache } from './cache.ts';

export interface WindowCount {
  /** hits in the current window, this one included (for `add`) */
  count: number;
  /** seconds until the window ends */
  retryAfter: number;
  /** when the window ends (ms since the epoch), what `release` is given back */
  resetAt: number;
}

export function createWindowCounter(opts: { name: string; max: number; windowMs: number }) {
  const slots = new Cache<string, { count: number; until: number }>({
    name: opts.name,
    max: opts.max,
    invalidatedBy: `time: an entry counts one window of ${opts.windowMs / 1000} s`,
  });
  const current = (key: string, now: number) => {
    const s = slots.get(key);
    return s && s.until > now ? s : null;
  };
  const view = (s: { count: number; until: number } | null, now: number): WindowCount => {
    const until = s?.until ?? now + opts.windowMs;
    return { count: s?.count ?? 0, retryAfter: Math.max(1, Math.ceil((until - now) / 1000)), resetAt: until };
  };
  return {
    /** the key's count in the current window, without adding to it */
    peek(key: string, now = Date.now()): WindowCount {
      return view(current(key, now), now);
    },
    /** adds one hit to the key's window */
    add(key: string, now = Date.now()): WindowCount {
      const s = current(key, now);
      const next = { count: (s?.count ?? 0) + 1, until: s?.until ?? now + opts.windowMs };
      slots.set(key, next);
      return view(next, now);
    },
    /**
     * Takes back one hit `add` counted, given the `resetAt` it answered: a hit
     * counted ahead of the work it limits, when the work turned out not to be
     * what is limited (a right password). Nothing when that window has ended.
     */
    release(key: string, resetAt: number, now = Date.now()): void {
      const s = current(key, now);
      if (s && s.until === resetAt && s.count > 0) slots.set(key, { count: s.count - 1, until: s.until });
    },
  };
}
