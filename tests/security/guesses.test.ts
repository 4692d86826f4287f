import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN_FAILURES_PER_MINUTE } from '../../auth/admin-token.ts';
import { adminHeaders, buildTestApp, closeTestApp, type TestApp } from '../helper.ts';

/**
 * Issue 44, finding 12 (docs/security.md): guesses from one address are throttled, and what is
 * real — the operator's admin token — is served from that address all the same (behind a proxy
 * without TRUST_PROXY every operator shares the guesser's address).
 */
let app: TestApp;
beforeAll(async () => {
  app = await buildTestApp({ REDIS_URL: undefined });
});
afterAll(() => closeTestApp(app));

describe('12. the right admin token from an address sending wrong ones', () => {
  const admin = (url: string, authorization: string, remoteAddress: string) =>
    app.inject({ method: 'GET', url, headers: { authorization }, remoteAddress });

  for (const url of ['/api/admin/merchants', '/metrics']) {
    it(`${url}: ${ADMIN_TOKEN_FAILURES_PER_MINUTE} wrong, then the right one is served, then a wrong one is 429`, async () => {
      const address = url === '/metrics' ? '203.0.113.61' : '203.0.113.60';
      for (let i = 0; i < ADMIN_TOKEN_FAILURES_PER_MINUTE; i++) {
        expect((await admin(url, `Bearer guess-${i}`, address)).statusCode).toBe(401);
      }
      // before: 429, the operator shut out with the guesser
      expect((await admin(url, adminHeaders.authorization, address)).statusCode).toBe(200);
      const wrong = await admin(url, 'Bearer guess-x', address);
      expect(wrong.statusCode).toBe(429);
      expect(wrong.json()).toMatchObject({ code: 'rate_limited' });
      expect(Number(wrong.headers['retry-after'])).toBeGreaterThan(0);
      expect((await admin(url, adminHeaders.authorization, address)).statusCode).toBe(200);
    });
  }
});
