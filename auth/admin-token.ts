import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError } from '../lib/errors.ts';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * The operator's bearer check (admin API and /metrics): `Authorization:
 * Bearer <ADMIN_TOKEN>`, compared in constant time.
 */
export function createAdminTokenCheck(token: string) {
  const expected = digest(token);
  return (authorization: string | undefined) => {
    const m = typeof authorization === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
    // comparing fixed-length digests keeps the comparison constant-time whatever the input length
    if (!m?.[1] || !timingSafeEqual(digest(m[1]), expected)) {
      throw new AppError(401, 'invalid_admin_token', 'Send Authorization: Bearer <ADMIN_TOKEN>');
    }
  };
}

export const adminDisabled = () =>
  new AppError(404, 'admin_disabled', 'The admin API is disabled: set ADMIN_TOKEN to enable it');
