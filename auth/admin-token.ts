import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError } from '../lib/errors.ts';
import { createWindowCounter } from '../lib/window-counter.ts';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Wrong admin tokens one client address may send a minute, per instance; past it, its wrong tokens get 429. */
export const ADMIN_TOKEN_FAILURES_PER_MINUTE = 10;

/**
 * The operator's bearer check (admin API and /metrics): `Authorization:
 * Bearer <ADMIN_TOKEN>`, compared in constant time. The right token is always
 * served: behind a proxy without TRUST_PROXY every operator shares one
 * address with whoever guesses, so guesses must not shut the operator out.
 * Only wrong tokens are throttled: an address that sent
 * ADMIN_TOKEN_FAILURES_PER_MINUTE of them gets 429 for each further wrong one
 * until the minute is over.
 */
export function createAdminTokenCheck(token: string) {
  const expected = digest(token);
  const failures = createWindowCounter({ name: 'admin-token-failures', max: 10_000, windowMs: 60_000 });
  return (authorization: string | undefined, address: string) => {
    const m = typeof authorization === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
    // comparing fixed-length digests keeps the comparison constant-time whatever the input length
    if (m?.[1] && timingSafeEqual(digest(m[1]), expected)) return;
    const seen = failures.peek(address);
    if (seen.count >= ADMIN_TOKEN_FAILURES_PER_MINUTE) {
      throw new AppError(
        429,
        'rate_limited',
        `Too many wrong admin tokens from this address; retry in ${seen.retryAfter} s`,
        undefined,
        { 'retry-after': String(seen.retryAfter) },
      );
    }
    failures.add(address);
    throw new AppError(401, 'invalid_admin_token', 'Send Authorization: Bearer <ADMIN_TOKEN>');
  };
}

export const adminDisabled = () =>
  new AppError(404, 'admin_disabled', 'The admin API is disabled: set ADMIN_TOKEN to enable it');
