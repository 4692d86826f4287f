import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN_FAILURES_PER_MINUTE, adminDisabled, createAdminTokenCheck } from '../auth/admin-token.ts';

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

  it(`an address is refused for the rest of the minute after ${ADMIN_TOKEN_FAILURES_PER_MINUTE} wrong tokens, the right one included; other addresses are not`, () => {
    const check = createAdminTokenCheck(TOKEN);
    for (let i = 0; i < 10; i++) expect(refusal(() => check('Bearer wrong', '10.2.0.1')).statusCode).toBe(401);
    const throttled = refusal(() => check(`Bearer ${TOKEN}`, '10.2.0.1'));
    expect(throttled).toMatchObject({ statusCode: 429, code: 'rate_limited' });
    expect(throttled.message).toMatch(/^Too many wrong admin tokens from this address; retry in \d+ s$/);
    expect(Number(throttled.headers?.['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(throttled.headers?.['retry-after'])).toBeLessThanOrEqual(60);
    expect(() => check(`Bearer ${TOKEN}`, '10.2.0.2')).not.toThrow();
  });

  it('nine wrong tokens leave the right one working', () => {
    const check = createAdminTokenCheck(TOKEN);
    for (let i = 0; i < 9; i++) refusal(() => check('Bearer wrong', '10.3.0.1'));
    expect(() => check(`Bearer ${TOKEN}`, '10.3.0.1')).not.toThrow();
  });

  it('the right token does not count as a failure', () => {
    const check = createAdminTokenCheck(TOKEN);
    for (let i = 0; i < 20; i++) check(`Bearer ${TOKEN}`, '10.4.0.1');
    for (let i = 0; i < 9; i++) refusal(() => check('Bearer wrong', '10.4.0.1'));
    expect(() => check(`Bearer ${TOKEN}`, '10.4.0.1')).not.toThrow();
  });

  it('without ADMIN_TOKEN the admin API answers 404 admin_disabled', () => {
    expect(adminDisabled()).toMatchObject({
      statusCode: 404,
      code: 'admin_disabled',
      message: 'The admin API is disabled: set ADMIN_TOKEN to enable it',
    });
  });
});
