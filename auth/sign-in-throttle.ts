import { createWindowCounter } from '../lib/window-counter.ts';

/**
 * Console sign-in throttling (docs/console.md, "Sign-in throttling"): wrong
 * passwords are counted in 15-minute windows, per instance, per email and
 * per address.
 *
 * An attempt is counted before the password is checked and taken back once
 * it proved right: simultaneous attempts are counted one after another, so
 * no more passwords are checked than the limits allow, however many arrive
 * at once.
 */

export const SIGN_IN_WINDOW_MS = 15 * 60_000;
/** Wrong passwords (and setup tokens) from one address, all emails together. */
export const SIGN_IN_FAILURES_PER_ADDRESS = 10;
/** Wrong passwords for one email, from any address. */
export const SIGN_IN_FAILURES_PER_EMAIL = 5;

export type SignInLimit = 'address' | 'email';

const LIMITS: Record<SignInLimit, number> = {
  address: SIGN_IN_FAILURES_PER_ADDRESS,
  email: SIGN_IN_FAILURES_PER_EMAIL,
};

/** Counters each kind remembers (an LRU): far more than the addresses and emails one window sees. */
const COUNTERS_KEPT = 100_000;

export interface SignInAttempt {
  /** the normalised email; none for the first operator's setup (a token, no email) */
  email?: string;
  address: string;
}

export type Reservation =
  | {
      ok: true;
      /** the attempt was not a wrong password: it no longer counts */
      release(): void;
    }
  | {
      ok: false;
      /** the limit reached (the one that ends last, when several are) */
      limit: SignInLimit;
      /** seconds until it ends */
      retryAfter: number;
    };

export function createSignInThrottle(opts: { now?: () => number } = {}) {
  const clock = opts.now ?? Date.now;
  const counter = (limit: SignInLimit) =>
    createWindowCounter({ name: `console-sign-in-${limit}`, max: COUNTERS_KEPT, windowMs: SIGN_IN_WINDOW_MS });
  const counters: Record<SignInLimit, ReturnType<typeof createWindowCounter>> = {
    address: counter('address'),
    email: counter('email'),
  };

  /** The counters an attempt is counted on. */
  const countedOn = (a: SignInAttempt): [SignInLimit, string][] => {
    const out: [SignInLimit, string][] = [['address', a.address]];
    if (a.email !== undefined) out.push(['email', a.email]);
    return out;
  };

  return {
    /**
     * Counts the attempt before any work is done for it, or refuses it when
     * one of its counters is at its limit. Every counter is checked, then every
     * one counted, with nothing awaited in between, so simultaneous attempts
     * are counted one after another. A refused attempt counts nowhere.
     */
    reserve(attempt: SignInAttempt): Reservation {
      const now = clock();
      const counted = countedOn(attempt);
      let refused: { limit: SignInLimit; retryAfter: number } | null = null;
      for (const [limit, key] of counted) {
        const seen = counters[limit].peek(key, now);
        if (seen.count >= LIMITS[limit] && (refused === null || seen.retryAfter > refused.retryAfter)) {
          refused = { limit, retryAfter: seen.retryAfter };
        }
      }
      if (refused) return { ok: false, ...refused };
      const taken = counted.map(([limit, key]) => ({ limit, key, resetAt: counters[limit].add(key, now).resetAt }));
      let released = false;
      return {
        ok: true,
        release() {
          if (released) return;
          released = true;
          const at = clock();
          for (const t of taken) counters[t.limit].release(t.key, t.resetAt, at);
        },
      };
    },
  };
}

export type SignInThrottle = ReturnType<typeof createSignInThrottle>;
