/**
 * Refused widget keys, counted per client address (docs/security.md, "11. Junk API keys"). Each
 * different made-up key is a rate-limit counter of its own, so the per-key limits never see a
 * stream of them; this guard does:
 *
 * - every key check that ends in a 401 (no key, a malformed one, one too long, one the database
 *   does not know) is counted against the client's address (an IPv6 /64), before the check is
 *   made, so simultaneous requests cannot all pass; a key that proves real gives its count back;
 * - past REFUSED_KEY_LIMIT a minute (30 by default), the address's requests with a key this
 *   instance has not found real get 429 `rate_limited` with Retry-After, before the key is hashed
 *   or looked up, until the minute is over; but CHECKS_PAST_LIMIT_PER_MINUTE more of them are
 *   checked in full (a real key this instance has not met yet, from an address shared with
 *   whoever sends the junk, is found and remembered; a real one gives its check back);
 * - a key this instance found real within REAL_KEY_MEMORY_MS is always let through to the
 *   ordinary check (its rate limits, revocation and origins), whatever its address sent before:
 *   many shoppers share a carrier's address, and one's junk must not shut the others' shops.
 *
 * A revoked key and a key used from an origin it does not allow (403) are real keys: they do not
 * count. Per instance, in memory, like the other guards that must cost nothing. Pure: no Fastify.
 */
import { normalizeIP } from '@fastify/rate-limit';
import { Cache } from '../lib/cache.ts';
import { AppError } from '../lib/errors.ts';
import { createWindowCounter } from '../lib/window-counter.ts';

/** Refused keys one address may send a minute (REFUSED_KEY_LIMIT's default) before its unknown keys get 429. */
export const REFUSED_KEYS_PER_MINUTE = 30;
/** Keys not known real one address past its limit may still have checked (and looked up) a minute. */
export const CHECKS_PAST_LIMIT_PER_MINUTE = 5;
/** How long a key this instance found in the database is let past the guard without a check of its own. */
export const REAL_KEY_MEMORY_MS = 24 * 3600_000;
const WINDOW_MS = 60_000;

/** The address refusals are counted against: an IPv6 address by its /64, an IPv4-mapped one as IPv4. */
export function keyGuessAddress(ip: string): string {
  return normalizeIP(ip);
}

export type KeyCheck = { ok: true; release(): void } | { ok: false; error: AppError };

/**
 * `limit`: refused keys an address may send a minute; 0 turns the guard off (nothing refused).
 * `now`: the clock (tests).
 */
export function createKeyGuessGuard(opts: { limit: number; now?: () => number }) {
  // no clock given: each counter reads Date.now() when called
  const clock = () => opts.now?.();
  const refusals = createWindowCounter({ name: 'widget-key-refusals', max: 100_000, windowMs: WINDOW_MS });
  const pastLimit = createWindowCounter({ name: 'widget-key-checks-past-limit', max: 100_000, windowMs: WINDOW_MS });
  const real = new Cache<string, string>(
    {
      name: 'widget-keys-real',
      max: 10_000,
      ttlMs: REAL_KEY_MEMORY_MS,
      invalidatedBy: 'age (a day): a key stays real once made; a revoked one is refused by the ordinary check',
    },
    opts.now ? { now: opts.now } : {},
  );
  const tooMany = (retryAfter: number) =>
    new AppError(
      429,
      'rate_limited',
      `Too many refused api keys from this address: at most ${opts.limit} a minute; retry in ${retryAfter} s`,
      undefined,
      { 'retry-after': String(retryAfter) },
    );
  /** the 429 for the address now, or null; nothing counted */
  const refusal = (address: string, now: number | undefined): AppError | null => {
    const r = refusals.peek(address, now);
    if (r.count < opts.limit) return null;
    if (pastLimit.peek(address, now).count < CHECKS_PAST_LIMIT_PER_MINUTE) return null;
    return tooMany(r.retryAfter);
  };
  const nothing = () => {};

  return {
    /** The hash of a key this instance found in the database (the key as sent, nothing hashed), else undefined. */
    realKey(key: string): string | undefined {
      return real.get(key);
    },
    /** Remembers a key the database knows, with its hash. */
    rememberReal(key: string, hash: string): void {
      real.set(key, hash);
    },
    /** Forgets a key remembered real that the database no longer knows. */
    forget(key: string): void {
      real.delete(key);
    },
    /** The 429 a key not known real from this address gets now, or null: a look, nothing counted. */
    refusalFor(address: string): AppError | null {
      return refusal(address, clock());
    },
    /**
     * Counts the check of a key not known real before it is made: the 429 when the address may
     * have no more checked, else a check to `release` if the key proves real (or could not be
     * checked: the database did not answer). A refused key keeps its count.
     */
    startCheck(address: string): KeyCheck {
      if (opts.limit === 0) return { ok: true, release: nothing };
      const now = clock();
      const error = refusal(address, now);
      if (error) return { ok: false, error };
      const counter = refusals.peek(address, now).count < opts.limit ? refusals : pastLimit;
      const { resetAt } = counter.add(address, now);
      return { ok: true, release: () => counter.release(address, resetAt, clock()) };
    },
    /** Counts a refusal no check counted (a key remembered real that the database no longer knows). */
    refused(address: string): void {
      refusals.add(address, clock());
    },
  };
}

export type KeyGuessGuard = ReturnType<typeof createKeyGuessGuard>;
