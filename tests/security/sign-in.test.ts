import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SIGN_IN_FAILURES_PER_ADDRESS, SIGN_IN_FAILURES_PER_EMAIL } from '../../auth/sign-in-throttle.ts';
import { createConsoleUser } from '../../services/console-users.ts';
import { createMerchant } from '../../services/merchants.ts';
import { Browser, PASSWORD } from '../console-session.ts';
import { buildTestApp, closeTestApp, type TestApp } from '../helper.ts';

/**
 * Console sign-in guessing (issue 44, finding 2). The work a guess costs is one Argon2
 * verification: every call of `verify` is counted here, so a test holds how many passwords were
 * checked, not how long it took.
 */
const argon2 = vi.hoisted(() => ({ verifications: 0 }));
vi.mock('@node-rs/argon2', async (importOriginal) => {
  const real = await importOriginal<typeof import('@node-rs/argon2')>();
  return {
    ...real,
    verify: (...args: Parameters<typeof real.verify>) => {
      argon2.verifications++;
      return real.verify(...args);
    },
  };
});

let app: TestApp;
beforeAll(async () => {
  app = await buildTestApp({ REDIS_URL: undefined });
});
afterAll(() => closeTestApp(app));

let shops = 0;
/** A merchant and its owner, with an email no other test uses. */
async function owner(): Promise<string> {
  const slug = `sign-in-${++shops}`;
  const merchant = await createMerchant(app.db, { name: `Shop ${slug}`, slug });
  const email = `owner@${slug}.example`;
  await createConsoleUser(app.db, { email, password: PASSWORD, role: 'owner', merchant: merchant.id });
  return email;
}

let addresses = 0;
/** An address no other test uses. */
const address = () => {
  const n = ++addresses;
  return `10.44.${n >> 8}.${n & 255}`;
};

/** A browser that opened the sign-in page (its cookies and form token), to post from any address. */
async function signInForm(b = new Browser(app, address())) {
  await b.get('/console/sign-in');
  return b;
}

const post = (
  b: Browser,
  email: string,
  password: string,
  remoteAddress = b.ip,
  headers: Record<string, string> = {},
) =>
  app.inject({
    method: 'POST',
    url: '/console/sign-in',
    payload: new URLSearchParams({ _csrf: b.csrf, email, password }).toString(),
    headers: {
      cookie: [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'text/html',
      ...headers,
    },
    remoteAddress,
  });

const statuses = (answers: { statusCode: number }[]) => {
  const out: Record<number, number> = {};
  for (const a of answers) out[a.statusCode] = (out[a.statusCode] ?? 0) + 1;
  return out;
};

/** Passwords checked (Argon2 verifications) while `run` runs. */
async function checked<T>(run: () => Promise<T>): Promise<{ result: T; checked: number }> {
  const before = argon2.verifications;
  const result = await run();
  return { result, checked: argon2.verifications - before };
}

describe('simultaneous wrong passwords (finding 2: counted before they are checked)', () => {
  it.each([40, 500])(
    '%i sent at once from one address: 5 checked, the rest 429, the right password after them too',
    async (n) => {
      const email = await owner();
      const b = await signInForm();
      const burst = await checked(() =>
        Promise.all(Array.from({ length: n }, (_, i) => post(b, email, `wrong password ${i}`))),
      );
      // before: every one of them checked (39 of 40, 499 of 500 measured), each 401
      expect(burst.checked).toBe(SIGN_IN_FAILURES_PER_EMAIL);
      expect(statuses(burst.result)).toEqual({
        401: SIGN_IN_FAILURES_PER_EMAIL,
        429: n - SIGN_IN_FAILURES_PER_EMAIL,
      });
      const refused = burst.result.find((r) => r.statusCode === 429);
      expect(Number(refused?.headers['retry-after'])).toBeGreaterThan(0);
      // and the right password from there is not checked either, until the window ends
      const right = await checked(() => post(b, email, PASSWORD));
      expect(right.result.statusCode).toBe(429);
      expect(right.checked).toBe(0);
    },
    120_000,
  );

  it('the right password last in a burst of 40 is refused: the limit was reached before it', async () => {
    const email = await owner();
    const b = await signInForm();
    const burst = await checked(() =>
      Promise.all(Array.from({ length: 40 }, (_, i) => post(b, email, i === 39 ? PASSWORD : `wrong password ${i}`))),
    );
    expect(burst.checked).toBe(SIGN_IN_FAILURES_PER_EMAIL);
    expect(burst.result[39]?.statusCode).toBe(429);
    expect(statuses(burst.result)[303]).toBeUndefined();
  });

  it(`500 at once from 500 addresses for one email: at most ${SIGN_IN_FAILURES_PER_EMAIL} checked`, async () => {
    const email = await owner();
    const b = await signInForm();
    const burst = await checked(() =>
      Promise.all(Array.from({ length: 500 }, (_, i) => post(b, email, `wrong password ${i}`, address()))),
    );
    expect(burst.checked).toBe(SIGN_IN_FAILURES_PER_EMAIL);
    expect(statuses(burst.result)).toEqual({ 401: SIGN_IN_FAILURES_PER_EMAIL, 429: 500 - SIGN_IN_FAILURES_PER_EMAIL });
  }, 120_000);

  it(`500 at once from one address over 500 emails: at most ${SIGN_IN_FAILURES_PER_ADDRESS} checked`, async () => {
    const b = await signInForm();
    const burst = await checked(() =>
      Promise.all(Array.from({ length: 500 }, (_, i) => post(b, `nobody-${i}@spray.example`, 'wrong password'))),
    );
    expect(burst.checked).toBe(SIGN_IN_FAILURES_PER_ADDRESS);
    expect(statuses(burst.result)).toEqual({
      401: SIGN_IN_FAILURES_PER_ADDRESS,
      429: 500 - SIGN_IN_FAILURES_PER_ADDRESS,
    });
  }, 120_000);
});
