/**
 * Who may have a Salla dashboard token checked (docs/platforms.md, "From Salla's dashboard to the
 * console"). Each token this instance has not seen costs a call to Salla's introspection, and a
 * bogus token looks like a real one until Salla has answered; so what a bogus opening costs falls on
 * its sender, and the instance-wide budget, which every merchant's first opening shares, is the
 * last resort rather than the first limit:
 *
 * - every opening of one address (an IPv6 /64) is counted, DASHBOARD_OPENINGS_PER_MINUTE;
 * - a token's answer is kept: a refused token is refused again without a call for
 *   REFUSED_TOKEN_MS, a good one opens the page again without a call until it expires;
 * - a check is counted before the call is made (simultaneous openings cannot all pass), against
 *   the address (DASHBOARD_UNPROVEN_PER_ADDRESS in UNPROVEN_WINDOW_MS), its IPv6 /48
 *   (DASHBOARD_UNPROVEN_PER_NETWORK) and the instance (DASHBOARD_CHECKS_PER_MINUTE); a token Salla
 *   vouches for gives back what its check took, so only unproven tokens use these budgets up;
 * - a browser that opened the page before (a signed cookie naming its store) or an address that
 *   did (within TRUSTED_ADDRESS_MS) is not held by the instance's budget: the cookie has a budget
 *   of its store's (DASHBOARD_UNPROVEN_PER_STORE), the address its own limits.
 *
 * Per instance, in memory, like the other guards that must cost nothing. Pure: no Fastify.
 */
import { createHash } from 'node:crypto';
import { normalizeIP } from '@fastify/rate-limit';
import { Cache } from '../lib/cache.ts';
import type { SallaDashboardToken } from '../platforms/salla.ts';

/** Openings of the page one address (an IPv6 /64) may make a minute, checked or not. */
export const DASHBOARD_OPENINGS_PER_MINUTE = 30;
/** Tokens not yet proven good that one address (an IPv6 /64) may have checked with Salla in UNPROVEN_WINDOW_MS. */
export const DASHBOARD_UNPROVEN_PER_ADDRESS = 5;
/** The same for a whole IPv6 /48 (a network that holds 65,536 /64s). */
export const DASHBOARD_UNPROVEN_PER_NETWORK = 20;
/** The same for the browsers whose cookie names one store (a cookie checks outside the instance's budget). */
export const DASHBOARD_UNPROVEN_PER_STORE = 5;
export const UNPROVEN_WINDOW_MS = 10 * 60_000;
/** Tokens not yet proven good the whole instance checks with Salla a minute, from addresses and browsers it does not know. */
export const DASHBOARD_CHECKS_PER_MINUTE = 600;
/** A token Salla refused is refused again, without asking, for this long (a page's token lasts 5 minutes). */
export const REFUSED_TOKEN_MS = 10 * 60_000;
/** An address that opened the page with a good token is known for this long. */
export const TRUSTED_ADDRESS_MS = 24 * 3600_000;

/** The address an opening is counted against (an IPv6 /64), and its network (an IPv6 /48; none for IPv4). */
export function addressKeys(ip: string): { address: string; network: string | null } {
  const address = normalizeIP(ip, 64);
  // an IPv4 address written as IPv6 (::ffff:a.b.c.d) is an IPv4 address, of no network
  return { address, network: address.includes(':') ? normalizeIP(ip, 48) : null };
}

/** Counts per key in fixed windows, that a key's count can be given back within its window. */
function windows(name: string, max: number, windowMs: number, now: () => number) {
  const slots = new Cache<string, { count: number; until: number }>({
    name,
    max,
    // Stryker disable next-line StringLiteral,ArithmeticOperator: the cache registry's description, read by people
    invalidatedBy: `time: an entry counts one window of ${windowMs / 1000} s`,
  });
  const live = (key: string) => {
    const s = slots.get(key);
    return s && s.until > now() ? s : null;
  };
  return {
    /** seconds until `key` may count again when it holds `limit` already, else null */
    full(key: string, limit: number): number | null {
      const s = live(key);
      return s && s.count >= limit ? Math.max(1, Math.ceil((s.until - now()) / 1000)) : null;
    },
    /** one more for `key`: its window's slot, to give back to */
    take(key: string): { count: number } {
      const s = live(key);
      if (s) {
        s.count++;
        return s;
      }
      const slot = { count: 1, until: now() + windowMs };
      slots.set(key, slot);
      return slot;
    },
  };
}

/** One given back to the window it was taken from (a window ended since is not touched). */
const give = (slot: { count: number }) => {
  slot.count = Math.max(0, slot.count - 1);
};

const tokenKey = (token: string) => createHash('sha256').update(token).digest('base64url');

export function createDashboardGate(o: { now?: () => number } = {}) {
  const now = o.now ?? Date.now;
  const openings = windows('salla-dashboard-openings', 100_000, 60_000, now);
  const unproven = windows('salla-dashboard-unproven', 100_000, UNPROVEN_WINDOW_MS, now);
  const instance = windows('salla-dashboard-checks', 1, 60_000, now);
  const tokens = new Cache<string, SallaDashboardToken | null>(
    {
      name: 'salla-dashboard-tokens',
      max: 10_000,
      ttlMs: REFUSED_TOKEN_MS,
      // Stryker disable next-line StringLiteral: the cache registry's description, read by people
      invalidatedBy: "age; a good token's answer is used only until the token's own expiry",
    },
    { now },
  );
  const trusted = new Cache<string, true>(
    {
      name: 'salla-dashboard-trusted',
      max: 10_000,
      ttlMs: TRUSTED_ADDRESS_MS,
      // Stryker disable next-line StringLiteral: the cache registry's description, read by people
      invalidatedBy: 'age: an address is known for a day after a good opening',
    },
    { now },
  );

  return {
    /** An opening from `ip`, counted: seconds to wait when the address has made too many this minute, else null. */
    opening(ip: string): number | null {
      const { address } = addressKeys(ip);
      const wait = openings.full(address, DASHBOARD_OPENINGS_PER_MINUTE);
      // a refused opening is counted too: it changes nothing, the window's end is fixed
      openings.take(address);
      return wait;
    },

    /** What Salla said of `token` here before: the store (while the token lasts), null (refused), or undefined (not asked). */
    known(token: string): SallaDashboardToken | null | undefined {
      const seen = tokens.get(tokenKey(token));
      if (seen && seen.expiresAt <= now()) return undefined;
      return seen;
    },

    /**
     * A check of a token with Salla, for an opening from `ip` whose browser holds a cookie of a good
     * opening of `cookieStore` (null without one), counted before the call: `{wait}` in seconds when
     * a budget is spent; else `proven`, to call with Salla's answer (null: refused), which gives
     * back what a good token's check took and is kept for the token. Not called when Salla did not
     * answer: the check stays counted.
     */
    check(
      ip: string,
      cookieStore: string | null,
    ): { wait: number } | { proven(token: string, answer: SallaDashboardToken | null): void } {
      const { address, network } = addressKeys(ip);
      const own = [`address:${address}`];
      let wait = unproven.full(`address:${address}`, DASHBOARD_UNPROVEN_PER_ADDRESS);
      if (network) {
        own.push(`network:${network}`);
        wait ??= unproven.full(`network:${network}`, DASHBOARD_UNPROVEN_PER_NETWORK);
      }
      if (wait !== null) return { wait };
      // a browser or an address that opened the page before is not held by what others spend
      const store = cookieStore ? `store:${cookieStore}` : null;
      const budget =
        store && unproven.full(store, DASHBOARD_UNPROVEN_PER_STORE) === null
          ? 'store'
          : trusted.has(address)
            ? 'address'
            : 'instance';
      if (budget === 'instance') {
        const full = instance.full('all', DASHBOARD_CHECKS_PER_MINUTE);
        if (full !== null) return { wait: full };
      }
      const taken = (budget === 'store' ? [...own, store as string] : own).map((key) => unproven.take(key));
      if (budget === 'instance') taken.push(instance.take('all'));
      return {
        proven(token, answer) {
          tokens.set(tokenKey(token), answer);
          if (!answer) return;
          for (const slot of taken) give(slot);
          // Stryker disable next-line BooleanLiteral: the value is never read, only whether the address is there
          trusted.set(address, true);
        },
      };
    },
  };
}
