import { describe, expect, it } from 'vitest';
import {
  createSignInThrottle,
  DEVICE_COOKIE,
  DEVICE_COOKIE_MAX_AGE_S,
  DEVICE_COOKIE_PATH,
  deviceCookieValue,
  deviceFor,
  signInAddress,
} from '../auth/sign-in-throttle.ts';
import { cacheInventory } from '../lib/cache.ts';
import { createWindowCounter } from '../lib/window-counter.ts';

/** The sign-in throttle's rules one by one (the attacks through HTTP: tests/security/sign-in.test.ts). */
describe('window counter release', () => {
  it('takes back one hit of the same window, never below zero, and nothing once the window has ended', () => {
    const c = createWindowCounter({ name: 'test-release', max: 10, windowMs: 1000 });
    const first = c.add('k', 0);
    c.add('k', 0);
    c.release('k', first.resetAt, 10);
    expect(c.peek('k', 10).count).toBe(1);
    c.release('k', first.resetAt, 10);
    c.release('k', first.resetAt, 10);
    expect(c.peek('k', 10).count).toBe(0);
    // a hit of the window that ended is not taken from the next
    const next = c.add('k', 1000);
    c.release('k', first.resetAt, 1000);
    expect(c.peek('k', 1000).count).toBe(1);
    expect(next.resetAt).toBe(2000);
  });
});

describe('the sign-in throttle', () => {
  /** A throttle on a clock the test moves. */
  const throttle = () => {
    const clock = { now: 0 };
    return { clock, t: createSignInThrottle({ now: () => clock.now }) };
  };

  it('refuses once a counter is full, counting a refused attempt nowhere', () => {
    const { clock, t } = throttle();
    const at = { email: 'a@x.example', address: '10.0.0.1' };
    for (let i = 0; i < 5; i++) expect(t.reserve(at).ok).toBe(true);
    clock.now = 1000;
    expect(t.reserve(at)).toEqual({ ok: false, limit: 'email_and_address', retryAfter: 899 });
    // the address's own count holds 5 (the refused attempt not among them): 5 more emails get through
    for (let i = 0; i < 5; i++) {
      expect(t.reserve({ email: `b${i}@x.example`, address: '10.0.0.1' }).ok).toBe(true);
    }
    expect(t.reserve({ email: 'c@x.example', address: '10.0.0.1' })).toMatchObject({ ok: false, limit: 'address' });
    // the window over, all over again
    clock.now = 900_000;
    expect(t.reserve(at).ok).toBe(true);
  });

  it('a released attempt gives its place back, once, and only in its own window', () => {
    const { clock, t } = throttle();
    const at = { email: 'a@x.example', address: '10.0.0.1' };
    const first = t.reserve(at);
    if (!first.ok) throw new Error('refused');
    for (let i = 1; i < 5; i++) t.reserve(at);
    first.release();
    first.release();
    expect(t.reserve(at).ok).toBe(true);
    expect(t.reserve(at).ok).toBe(false);
    // one reserved in a window that has ended takes nothing from the next
    clock.now = 1000;
    const late = { email: 'late@x.example', address: '10.0.0.9' };
    const old = t.reserve(late);
    clock.now = 1000 + 900_000;
    for (let i = 0; i < 5; i++) t.reserve(late);
    if (old.ok) old.release();
    expect(t.reserve(late).ok).toBe(false);
  });

  it('answers the wait of the counter that ends last', () => {
    const { clock, t } = throttle();
    for (let i = 0; i < 5; i++) t.reserve({ email: 'a@x.example', address: '10.0.0.2' });
    clock.now = 60_000;
    for (let i = 5; i < 10; i++) {
      t.reserve({ email: `z${i}@x.example`, address: '10.0.0.2' });
    }
    // the address's window began with the first attempt, as the pair's did: both end together
    clock.now = 120_000;
    expect(t.reserve({ email: 'a@x.example', address: '10.0.0.2' })).toMatchObject({
      ok: false,
      retryAfter: 780,
    });
  });

  it('answers the wait of the counter that ends last, whichever is looked at first', () => {
    const { clock, t } = throttle();
    // the email's window ends first: 20 addresses guessed at it from the start
    for (let a = 0; a < 20; a++) t.reserve({ email: 'a@x.example', address: `10.1.0.${a}` });
    // the address's window ends last: 10 wrong passwords five minutes on
    clock.now = 300_000;
    for (let i = 0; i < 10; i++) t.reserve({ email: `z${i}@x.example`, address: '10.2.0.1' });
    clock.now = 400_000;
    expect(t.reserve({ email: 'a@x.example', address: '10.2.0.1' })).toEqual({
      ok: false,
      limit: 'address',
      retryAfter: 800,
    });
    // and the other way round: the address's window first, the email's last
    clock.now = 1_000_000;
    for (let i = 0; i < 10; i++) t.reserve({ email: `y${i}@x.example`, address: '10.3.0.1' });
    clock.now = 1_300_000;
    for (let a = 0; a < 20; a++) t.reserve({ email: 'b@x.example', address: `10.4.0.${a}` });
    clock.now = 1_400_000;
    expect(t.reserve({ email: 'b@x.example', address: '10.3.0.1' })).toEqual({
      ok: false,
      limit: 'email',
      retryAfter: 800,
    });
  });

  it('a device is counted on its own, and setup (no email) on the address alone', () => {
    const { t } = throttle();
    for (let i = 0; i < 5; i++) {
      expect(t.reserve({ email: 'a@x.example', address: '10.0.0.3', device: 'd1' }).ok).toBe(true);
    }
    expect(t.reserve({ email: 'a@x.example', address: '10.0.0.3', device: 'd1' })).toMatchObject({
      ok: false,
      limit: 'device',
    });
    // the device's failures did not count on the address or the email
    expect(t.reserve({ email: 'a@x.example', address: '10.0.0.3' }).ok).toBe(true);
    for (let i = 1; i < 10; i++) expect(t.reserve({ address: '10.0.0.3' }).ok).toBe(true);
    expect(t.reserve({ address: '10.0.0.3' })).toMatchObject({ ok: false, limit: 'address' });
    expect(t.reserve({ email: 'a@x.example', address: '10.0.0.4' }).ok).toBe(true);
  });

  it('many addresses: 20 for the email in all, then refused without its device', () => {
    const { t } = throttle();
    let ok = 0;
    for (let a = 0; a < 50; a++) if (t.reserve({ email: 'a@x.example', address: `10.1.0.${a}` }).ok) ok++;
    expect(ok).toBe(20);
    expect(t.reserve({ email: 'a@x.example', address: '10.1.1.1' })).toMatchObject({ ok: false, limit: 'email' });
    expect(t.reserve({ email: 'a@x.example', address: '10.1.1.1', device: 'd' }).ok).toBe(true);
  });
});

describe('device cookies and addresses', () => {
  it('the device cookie goes back to the sign-in page alone and is kept a year', () => {
    expect({ name: DEVICE_COOKIE, path: DEVICE_COOKIE_PATH, maxAge: DEVICE_COOKIE_MAX_AGE_S }).toEqual({
      name: 'console_device',
      path: '/console/sign-in',
      maxAge: 31_536_000,
    });
  });

  it('a device cookie names one email, with a random id', () => {
    const v = deviceCookieValue('a@x.example');
    const id = deviceFor(v, 'a@x.example');
    expect(id).toMatch(/^[\w-]{22}$/);
    expect(deviceFor(v, 'b@x.example')).toBeNull();
    expect(deviceCookieValue('a@x.example')).not.toBe(v);
    for (const bad of [null, undefined, '', 'nodot', `.${v.split('.')[1]}`])
      expect(deviceFor(bad, 'a@x.example')).toBeNull();
  });

  it('counts IPv6 by /64 and IPv4-mapped as IPv4', () => {
    expect(signInAddress('203.0.113.9')).toBe('203.0.113.9');
    expect(signInAddress('2001:db8:1:2:3:4:5:6')).toBe(signInAddress('2001:db8:1:2::99'));
    expect(signInAddress('2001:db8:1:3::1')).not.toBe(signInAddress('2001:db8:1:2::1'));
    expect(signInAddress('::ffff:203.0.113.9')).toBe('203.0.113.9');
  });
});

describe("the throttle's memory", () => {
  it('is listed in the cache inventory (the sillage_cache_entries metric) as four counters, each bounded', () => {
    createSignInThrottle().reserve({ email: 'a@x.example', address: '10.0.0.1' });
    const mine = cacheInventory()
      .filter((c) => c.name.startsWith('console-sign-in-'))
      .map(({ name, max }) => ({ name, max }));
    expect(mine).toEqual([
      { name: 'console-sign-in-address', max: 100_000 },
      { name: 'console-sign-in-device', max: 100_000 },
      { name: 'console-sign-in-email', max: 100_000 },
      { name: 'console-sign-in-email-and-address', max: 100_000 },
    ]);
  });
});
