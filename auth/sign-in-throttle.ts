import { createHash, randomBytes } from 'node:crypto';
import { normalizeIP } from '@fastify/rate-limit';
import { createWindowCounter } from '../lib/window-counter.ts';

/**
 * Console sign-in throttling (docs/console.md, "Sign-in throttling"): wrong
 * passwords are counted in 15-minute windows, per instance, in four counters.
 *
 * A browser holding the **device cookie** of the email it signs in with (set
 * by that email's last successful sign-in there; OWASP's "device cookies")
 * is counted on that cookie alone. Any other attempt is counted per email and
 * address, per address, and per email: so whoever knows an email, guessing
 * from one address, shuts out only that address; many addresses together
 * get at most SIGN_IN_FAILURES_PER_EMAIL guesses at it and then shut out
 * browsers without its device cookie, never the owner's own browser.
 *
 * An attempt is counted before the password is checked and taken back once
 * it proved right: simultaneous attempts are counted one after another, so
 * no more passwords are checked than the limits allow, however many arrive
 * at once.
 */

export const SIGN_IN_WINDOW_MS = 15 * 60_000;
/** Wrong passwords for one email from one address (a browser without that email's device cookie). */
export const SIGN_IN_FAILURES_PER_EMAIL_AND_ADDRESS = 5;
/** Wrong passwords (and setup tokens) from one address, all emails together, without a device cookie. */
export const SIGN_IN_FAILURES_PER_ADDRESS = 10;
/** Wrong passwords for one email from every browser without its device cookie: the most guesses many addresses get. */
export const SIGN_IN_FAILURES_PER_EMAIL = 20;
/** Wrong passwords through one device cookie. */
export const SIGN_IN_FAILURES_PER_DEVICE = 5;

export type SignInLimit = 'device' | 'email_and_address' | 'address' | 'email';

const LIMITS: Record<SignInLimit, number> = {
  device: SIGN_IN_FAILURES_PER_DEVICE,
  email_and_address: SIGN_IN_FAILURES_PER_EMAIL_AND_ADDRESS,
  address: SIGN_IN_FAILURES_PER_ADDRESS,
  email: SIGN_IN_FAILURES_PER_EMAIL,
};

/** Counters each kind remembers (an LRU): far more than the addresses and emails one window sees. */
const COUNTERS_KEPT = 100_000;

/**
 * The client address an attempt is counted under: `request.ip` (the proxy's
 * client when TRUST_PROXY names the proxy, the peer otherwise), an IPv6
 * address by its /64 (one subscriber's whole allocation, which they can pick
 * addresses from at will), an IPv4-mapped one as IPv4.
 */
export function signInAddress(ip: string): string {
  // an IPv4 address comes back as it is
  return normalizeIP(ip);
}

export interface SignInAttempt {
  /** the normalised email; none for the first operator's setup (a token, no email) */
  email?: string;
  address: string;
  /** the device cookie's id, when the browser sent one valid for this email */
  device?: string | null;
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
    createWindowCounter({
      name: `console-sign-in-${limit.replaceAll('_', '-')}`,
      max: COUNTERS_KEPT,
      windowMs: SIGN_IN_WINDOW_MS,
    });
  const counters: Record<SignInLimit, ReturnType<typeof createWindowCounter>> = {
    device: counter('device'),
    email_and_address: counter('email_and_address'),
    address: counter('address'),
    email: counter('email'),
  };

  /** The counters an attempt is counted on. */
  const countedOn = (a: SignInAttempt): [SignInLimit, string][] => {
    if (a.device) return [['device', a.device]];
    const out: [SignInLimit, string][] = [['address', a.address]];
    if (a.email !== undefined) {
      // an email may be 320 characters: its counters are kept under a short digest of it
      // Stryker disable next-line MethodExpression: the digest's length: keys are only compared, 22 characters keep them short
      const e = createHash('sha256').update(a.email).digest('base64url').slice(0, 22);
      out.push(['email_and_address', `${e} ${a.address}`], ['email', e]);
    }
    return out;
  };

  return {
    /**
     * Counts the attempt before any work is done for it, or refuses it when
     * one of its counters is at its limit. Every counter is checked, then every
     * one counted, with nothing awaited in between, so simultaneous attempts
     * are counted one after another. A refused attempt counts nowhere: an
     * address past its own limit cannot push the email's further.
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

/** The device cookie: only the sign-in page's address gets it back. */
export const DEVICE_COOKIE = 'console_device';
export const DEVICE_COOKIE_PATH = '/console/sign-in';
/** A browser stays known this long after its last successful sign-in (each sign-in renews it). */
export const DEVICE_COOKIE_MAX_AGE_S = 365 * 86_400;

const emailTag = (email: string) =>
  // Stryker disable next-line MethodExpression: the tag's length: a tag is only compared with one made the same way
  createHash('sha256').update(`console device\0${email}`).digest('base64url').slice(0, 22);

/**
 * A new device cookie's value for an email that just signed in: a random id
 * (its counter) and a tag of the email. The cookie is signed, so neither can
 * be made up; the email itself is not in it.
 */
export function deviceCookieValue(email: string): string {
  return `${randomBytes(16).toString('base64url')}.${emailTag(email)}`;
}

/** The device id, when a signed cookie's value (already verified) was made for this email; else null. */
export function deviceFor(value: string | null | undefined, email: string): string | null {
  if (!value) return null;
  const dot = value.indexOf('.');
  if (dot <= 0) return null;
  return value.slice(dot + 1) === emailTag(email) ? value.slice(0, dot) : null;
}
