import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  DEVICE_COOKIE,
  SIGN_IN_FAILURES_PER_ADDRESS,
  SIGN_IN_FAILURES_PER_DEVICE,
  SIGN_IN_FAILURES_PER_EMAIL,
  SIGN_IN_FAILURES_PER_EMAIL_AND_ADDRESS,
} from '../../auth/sign-in-throttle.ts';
import { createConsoleUser } from '../../services/console-users.ts';
import { createMerchant } from '../../services/merchants.ts';
import { Browser, PASSWORD } from '../console-session.ts';
import { buildTestApp, closeTestApp, type TestApp } from '../helper.ts';

/**
 * Console sign-in guessing (issue 44, findings 2 and 5). The work a guess costs is one Argon2
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

/**
 * A browser the email signed in from before: it holds the email's device cookie, its session has
 * ended since (signed out, or past its 12 hours) and it is on the sign-in page again.
 */
async function knownBrowser(email: string) {
  const b = await signInForm();
  expect((await b.signIn(email)).statusCode).toBe(303);
  expect(b.cookies.has(DEVICE_COOKIE)).toBe(true);
  b.cookies.delete('console_session');
  return signInForm(b);
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
      expect(burst.checked).toBe(SIGN_IN_FAILURES_PER_EMAIL_AND_ADDRESS);
      expect(statuses(burst.result)).toEqual({
        401: SIGN_IN_FAILURES_PER_EMAIL_AND_ADDRESS,
        429: n - SIGN_IN_FAILURES_PER_EMAIL_AND_ADDRESS,
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
    expect(burst.checked).toBe(SIGN_IN_FAILURES_PER_EMAIL_AND_ADDRESS);
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

  it(`40 at once through one device cookie: at most ${SIGN_IN_FAILURES_PER_DEVICE} checked`, async () => {
    const email = await owner();
    const b = await knownBrowser(email);
    const burst = await checked(() =>
      Promise.all(Array.from({ length: 40 }, (_, i) => post(b, email, `wrong password ${i}`))),
    );
    expect(burst.checked).toBe(SIGN_IN_FAILURES_PER_DEVICE);
    expect(statuses(burst.result)).toEqual({ 401: SIGN_IN_FAILURES_PER_DEVICE, 429: 40 - SIGN_IN_FAILURES_PER_DEVICE });
  });
});

describe('a lockout whoever knows the email cannot turn on the owner (finding 5)', () => {
  it('5 wrong passwords from one address shut out that address, not the owner elsewhere', async () => {
    const email = await owner();
    const attacker = await signInForm();
    for (let i = 0; i < SIGN_IN_FAILURES_PER_EMAIL_AND_ADDRESS; i++) {
      expect((await post(attacker, email, `wrong password ${i}`)).statusCode).toBe(401);
    }
    // guessing from there stays throttled, the right password included, however much is sent
    const more = await checked(() =>
      Promise.all([post(attacker, email, PASSWORD), ...Array.from({ length: 40 }, () => post(attacker, email, 'x'))]),
    );
    expect(statuses(more.result)).toEqual({ 429: 41 });
    expect(more.checked).toBe(0);
    // before: 429 for the owner too, from anywhere, for 15 minutes; now the owner, elsewhere, signs in
    // (and the refused attempts counted nowhere: they did not bring the email nearer its own limit)
    const own = await signInForm();
    expect((await own.signIn(email)).statusCode).toBe(303);
  });

  it(`many addresses get ${SIGN_IN_FAILURES_PER_EMAIL} guesses in all; then only the owner's own browser gets in`, async () => {
    const email = await owner();
    // the owner signed in from this browser before: it holds the email's device cookie
    const own = await knownBrowser(email);
    const attackers = Array.from(
      { length: SIGN_IN_FAILURES_PER_EMAIL / SIGN_IN_FAILURES_PER_EMAIL_AND_ADDRESS + 2 },
      () => address(),
    );
    const b = await signInForm();
    const all = await checked(async () => {
      const out = [];
      for (const from of attackers) {
        for (let i = 0; i < SIGN_IN_FAILURES_PER_EMAIL_AND_ADDRESS; i++) {
          out.push(await post(b, email, `wrong password ${i}`, from));
        }
      }
      return out;
    });
    expect(all.checked).toBe(SIGN_IN_FAILURES_PER_EMAIL);
    // a browser without the device cookie, from an address never seen: refused, the right password included
    const stranger = await checked(() => post(b, email, PASSWORD, address()));
    expect(stranger.result.statusCode).toBe(429);
    expect(stranger.checked).toBe(0);
    // the owner's browser signs in — even from an attacker's address (a shared office, a proxy without TRUST_PROXY)
    expect((await post(own, email, PASSWORD, attackers[0])).statusCode).toBe(303);
  });

  it('a device cookie counts only signed and for its own email, and its own guesses are limited too', async () => {
    const email = await owner();
    const other = await owner();
    const own = await knownBrowser(email);
    const colleague = await knownBrowser(other);
    // the email shut to browsers without its device cookie
    const b = await signInForm();
    for (let a = 0; a < SIGN_IN_FAILURES_PER_EMAIL / SIGN_IN_FAILURES_PER_EMAIL_AND_ADDRESS; a++) {
      const from = address();
      for (let i = 0; i < SIGN_IN_FAILURES_PER_EMAIL_AND_ADDRESS; i++) {
        expect((await post(b, email, `wrong password ${i}`, from)).statusCode).toBe(401);
      }
    }
    // a copy of the owner's cookie with its id changed: its signature fails, so it is no device cookie
    const forged = await signInForm();
    const real = own.cookies.get(DEVICE_COOKIE) as string;
    forged.cookies.set(
      DEVICE_COOKIE,
      real.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')),
    );
    expect((await post(forged, email, PASSWORD)).statusCode).toBe(429);
    // another email's device cookie neither
    expect((await post(colleague, email, PASSWORD)).statusCode).toBe(429);
    // the owner's browser: 5 wrong passwords of its own, then it waits too
    for (let i = 0; i < SIGN_IN_FAILURES_PER_DEVICE; i++) {
      expect((await post(own, email, `wrong password ${i}`)).statusCode).toBe(401);
    }
    const locked = await checked(() => post(own, email, PASSWORD));
    expect(locked.result.statusCode).toBe(429);
    expect(locked.checked).toBe(0);
  });

  it('an IPv6 client is counted by its /64, and an IPv4-mapped address as IPv4', async () => {
    const email = await owner();
    const b = await signInForm();
    for (let i = 0; i < SIGN_IN_FAILURES_PER_EMAIL_AND_ADDRESS; i++) {
      expect((await post(b, email, `wrong password ${i}`, `2001:db8:44:1::${i + 1}`)).statusCode).toBe(401);
    }
    expect((await post(b, email, PASSWORD, '2001:db8:44:1:ffff::9')).statusCode).toBe(429);
    expect((await post(b, email, PASSWORD, '2001:db8:44:2::1')).statusCode).toBe(303);

    const mapped = await owner();
    for (let i = 0; i < SIGN_IN_FAILURES_PER_EMAIL_AND_ADDRESS; i++) {
      expect((await post(b, mapped, `wrong password ${i}`, '::ffff:10.44.250.1')).statusCode).toBe(401);
    }
    expect((await post(b, mapped, PASSWORD, '10.44.250.1')).statusCode).toBe(429);
  });
});

describe('behind a proxy (TRUST_PROXY)', () => {
  const PROXY = '10.45.0.1';
  let proxied: TestApp;
  beforeAll(async () => {
    proxied = await buildTestApp({ REDIS_URL: undefined, TRUST_PROXY: PROXY });
  });
  afterAll(() => closeTestApp(proxied));

  it("tells clients apart by the proxy's X-Forwarded-For, and believes no other peer's", async () => {
    const merchant = await createMerchant(proxied.db, { name: 'Proxied shop', slug: 'proxied-shop' });
    const email = 'owner@proxied-shop.example';
    await createConsoleUser(proxied.db, { email, password: PASSWORD, role: 'owner', merchant: merchant.id });
    const b = new Browser(proxied, PROXY);
    await b.get('/console/sign-in');
    const via = (client: string, password: string, peer = PROXY) =>
      proxied.inject({
        method: 'POST',
        url: '/console/sign-in',
        payload: new URLSearchParams({ _csrf: b.csrf, email, password }).toString(),
        headers: {
          cookie: [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
          'content-type': 'application/x-www-form-urlencoded',
          'x-forwarded-for': client,
        },
        remoteAddress: peer,
      });
    // through the proxy: the attacker's own address is shut out, the owner's is not
    for (let i = 0; i < SIGN_IN_FAILURES_PER_EMAIL_AND_ADDRESS; i++) {
      expect((await via('203.0.113.50', `wrong password ${i}`)).statusCode).toBe(401);
    }
    expect((await via('203.0.113.50', PASSWORD)).statusCode).toBe(429);
    // straight to the service, naming the owner's address: counted under the peer's own address
    for (let i = 0; i < SIGN_IN_FAILURES_PER_EMAIL_AND_ADDRESS; i++) {
      expect((await via('198.51.100.7', `wrong password ${i}`, '203.0.113.60')).statusCode).toBe(401);
    }
    expect((await via('198.51.100.7', PASSWORD, '203.0.113.60')).statusCode).toBe(429);
    expect((await via('198.51.100.7', PASSWORD)).statusCode).toBe(303);
  });
});
