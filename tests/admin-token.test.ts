import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN_FAILURES_PER_MINUTE, adminDisabled, createAdminTokenCheck } from '../auth/admin-token.ts';
import { cacheInventory } from '../lib/cache.ts';

const TOKEN = 'operator-token-0123456789abcdef';
const refusal = (f: () => void) => {
  try {
    f();
  } catch (e) {
    return e as { statusCode: number; code: string; message: string; headers?: Record<string, string> };
  }
  throw new Error('accepted');
};

describe('the admin token check', () => {
  it('takes "Bearer <token>" in any case of the scheme, with spaces around, and nothing else', () => {
    const check = createAdminTokenCheck(TOKEN);
    expect(() => check(`Bearer ${TOKEN}`, '10.0.0.1')).not.toThrow();
    expect(() => check(`bearer   ${TOKEN}  `, '10.0.0.1')).not.toThrow();
    for (const header of [
      undefined,
      '',
      TOKEN,
      `Basic ${TOKEN}`,
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN} extra`,
      'Bearer ',
      `xBearer ${TOKEN}`,
    ]) {
      expect(refusal(() => check(header, `10.1.0.${header?.length ?? 0}`))).toMatchObject({
        statusCode: 401,
        code: 'invalid_admin_token',
        message: 'Send Authorization: Bearer <ADMIN_TOKEN>',
      });
    }
  });

  it(`past ${ADMIN_TOKEN_FAILURES_PER_MINUTE} wrong tokens an address's wrong tokens get 429 for the rest of the minute; other addresses' get 401`, () => {
    const check = createAdminTokenCheck(TOKEN);
    for (let i = 0; i < ADMIN_TOKEN_FAILURES_PER_MINUTE; i++) {
      expect(refusal(() => check(`Bearer wrong-${i}`, '10.2.0.1')).statusCode).toBe(401);
    }
    const throttled = refusal(() => check('Bearer wrong', '10.2.0.1'));
    expect(throttled).toMatchObject({ statusCode: 429, code: 'rate_limited' });
    expect(throttled.message).toMatch(/^Too many wrong admin tokens from this address; retry in \d+ s$/);
    expect(Number(throttled.headers?.['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(throttled.headers?.['retry-after'])).toBeLessThanOrEqual(60);
    // no header at all is a wrong token too
    expect(refusal(() => check(undefined, '10.2.0.1')).statusCode).toBe(429);
    expect(refusal(() => check('Bearer wrong', '10.2.0.2')).statusCode).toBe(401);
  });

  it(`the right token is served from an address past ${ADMIN_TOKEN_FAILURES_PER_MINUTE} wrong ones, and does not lift the throttle`, () => {
    const check = createAdminTokenCheck(TOKEN);
    for (let i = 0; i < ADMIN_TOKEN_FAILURES_PER_MINUTE; i++) refusal(() => check('Bearer wrong', '10.5.0.1'));
    expect(() => check(`Bearer ${TOKEN}`, '10.5.0.1')).not.toThrow();
    expect(refusal(() => check('Bearer wrong', '10.5.0.1')).statusCode).toBe(429);
    for (let i = 0; i < 5; i++) expect(() => check(`bearer ${TOKEN} `, '10.5.0.1')).not.toThrow();
    expect(refusal(() => check(`Bearer ${TOKEN}x`, '10.5.0.1')).statusCode).toBe(429);
  });

  it('nine wrong tokens leave the tenth a 401', () => {
    const check = createAdminTokenCheck(TOKEN);
    for (let i = 0; i < 9; i++) refusal(() => check('Bearer wrong', '10.3.0.1'));
    expect(refusal(() => check('Bearer wrong', '10.3.0.1')).statusCode).toBe(401);
  });

  it('the right token does not count as a failure', () => {
    const check = createAdminTokenCheck(TOKEN);
    for (let i = 0; i < 20; i++) check(`Bearer ${TOKEN}`, '10.4.0.1');
    for (let i = 0; i < 10; i++) expect(refusal(() => check('Bearer wrong', '10.4.0.1')).statusCode).toBe(401);
    expect(refusal(() => check('Bearer wrong', '10.4.0.1')).statusCode).toBe(429);
  });

  it('counts wrong tokens in a cache of its own name, one entry an address', () => {
    const check = createAdminTokenCheck(TOKEN);
    const entries = () => cacheInventory().find((c) => c.name === 'admin-token-failures')?.entries ?? 0;
    const before = entries();
    refusal(() => check('Bearer wrong', '10.6.0.1'));
    refusal(() => check('Bearer wrong', '10.6.0.1'));
    check(`Bearer ${TOKEN}`, '10.6.0.2');
    expect(entries()).toBe(before + 1);
  });

  it('without ADMIN_TOKEN the admin API answers 404 admin_disabled', () => {
    expect(adminDisabled()).toMatchObject({
      statusCode: 404,
      code: 'admin_disabled',
      message: 'The admin API is disabled: set ADMIN_TOKEN to enable it',
    });
  });
});
