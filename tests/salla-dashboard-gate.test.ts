import { afterEach, describe, expect, it, vi } from 'vitest';
import { addressKeys, createDashboardGate } from '../auth/salla-dashboard-gate.ts';
import { cacheInventory } from '../lib/cache.ts';
import type { SallaDashboardToken } from '../platforms/salla.ts';

/**
 * The Salla dashboard gate's rules one by one, on a clock the test moves (the page through HTTP:
 * tests/salla-dashboard.test.ts, tests/security/salla-dashboard.test.ts). Every gate is built inside
 * its test: nothing of the module runs while this file loads (docs/testing.md, "Mutation testing").
 */

type Gate = ReturnType<typeof createDashboardGate>;
type Check = ReturnType<Gate['check']>;
type Pending = Extract<Check, { proven: unknown }>;

const T0 = 1_000_000;

/** A gate on a clock the test moves, at T0. */
function gateAt() {
  const clock = { now: T0 };
  return { clock, gate: createDashboardGate({ now: () => clock.now }) };
}

/** A check that was let through (the test fails when it was told to wait). */
function passed(c: Check): Pending {
  if (!('proven' in c)) throw new Error(`told to wait ${c.wait} s`);
  return c;
}

/** What Salla answers for a good token of store 42. */
const good = (expiresAt: number): SallaDashboardToken => ({ storeId: '42', userId: '7', expiresAt });

/** `n` checks from IPv4 addresses 10.<net>.x.y the gate has never seen, none with a cookie. */
const strangers = (gate: Gate, n: number, net: number): Check[] =>
  Array.from({ length: n }, (_, i) => gate.check(`10.${net}.${i >> 8}.${i & 255}`, null));

afterEach(() => {
  vi.useRealTimers();
});

describe('addresses', () => {
  it('an IPv6 address is counted by its /64 and its network is its /48; an IPv4 address, written as IPv6 or not, has no network', () => {
    expect(addressKeys('2001:db8:1:2:3:4:5:6')).toEqual({ address: '2001:db8:1:2::', network: '2001:db8:1::' });
    expect(addressKeys('192.0.2.7')).toEqual({ address: '192.0.2.7', network: null });
    expect(addressKeys('::ffff:192.0.2.7')).toEqual({ address: '192.0.2.7', network: null });
  });
});

describe('openings of the page', () => {
  it('30 a minute from one address, the 31st told to wait what is left of the minute; then all over again', () => {
    const { clock, gate } = gateAt();
    for (let i = 0; i < 30; i++) expect(gate.opening('192.0.2.1'), String(i)).toBeNull();
    clock.now = T0 + 15_500;
    expect(gate.opening('192.0.2.1')).toBe(45);
    expect(gate.opening('192.0.2.2')).toBeNull();
    clock.now = T0 + 59_999;
    expect(gate.opening('192.0.2.1')).toBe(1);
    // the minute is over at its last millisecond
    clock.now = T0 + 60_000;
    for (let i = 0; i < 30; i++) expect(gate.opening('192.0.2.1'), String(i)).toBeNull();
    expect(gate.opening('192.0.2.1')).toBe(60);
  });

  it('one IPv6 /64 is one address, its neighbour another; an IPv4 address written as IPv6 is that address', () => {
    const { gate } = gateAt();
    for (let i = 0; i < 30; i++) expect(gate.opening(`2001:db8:1:2::${(i + 1).toString(16)}`)).toBeNull();
    expect(gate.opening('2001:db8:1:2:ffff::1')).toBe(60);
    expect(gate.opening('2001:db8:1:3::1')).toBeNull();
    for (let i = 0; i < 30; i++) expect(gate.opening('::ffff:192.0.2.7')).toBeNull();
    expect(gate.opening('192.0.2.7')).toBe(60);
  });
});

describe('unproven checks', () => {
  it('5 from one address in ten minutes, counted before Salla answers; the 6th told to wait what is left of the window', () => {
    const { clock, gate } = gateAt();
    const checks = Array.from({ length: 5 }, () => passed(gate.check('192.0.2.1', null)));
    clock.now = T0 + 90_000;
    expect(gate.check('192.0.2.1', null)).toEqual({ wait: 510 });
    // Salla refused every one: nothing is given back
    checks.forEach((c, i) => {
      c.proven(`refused-token-${i}`, null);
    });
    expect(gate.check('192.0.2.1', null)).toEqual({ wait: 510 });
    passed(gate.check('192.0.2.2', null));
    clock.now = T0 + 599_999;
    expect(gate.check('192.0.2.1', null)).toEqual({ wait: 1 });
    clock.now = T0 + 600_000;
    for (let i = 0; i < 5; i++) passed(gate.check('192.0.2.1', null));
    expect(gate.check('192.0.2.1', null)).toEqual({ wait: 600 });
  });

  it('IPv4 addresses have no network: 30 addresses of one /24 each have their check', () => {
    const { gate } = gateAt();
    for (let i = 0; i < 30; i++) passed(gate.check(`192.0.2.${i}`, null));
  });

  it('one IPv6 /64 is one address: 5 from anywhere in it, then it waits and its neighbour does not', () => {
    const { gate } = gateAt();
    for (let i = 0; i < 5; i++) passed(gate.check(`2001:db8:9:1::${i + 1}`, null));
    expect(gate.check('2001:db8:9:1:ffff::1', null)).toEqual({ wait: 600 });
    passed(gate.check('2001:db8:9:2::1', null));
  });

  it('an IPv6 /48 is a network: 20 from its /64s, then each of its /64s waits what is left of its window; another /48 does not', () => {
    const { clock, gate } = gateAt();
    for (let i = 0; i < 20; i++) passed(gate.check(`2001:db8:1:${i.toString(16)}::1`, null));
    clock.now = T0 + 120_000;
    expect(gate.check('2001:db8:1:ff::1', null)).toEqual({ wait: 480 });
    passed(gate.check('2001:db8:2::1', null));
  });

  it('an IPv4 address written as IPv6 is that address', () => {
    const { gate } = gateAt();
    for (let i = 0; i < 5; i++) passed(gate.check('::ffff:192.0.2.77', null));
    expect(gate.check('192.0.2.77', null)).toEqual({ wait: 600 });
  });
});

describe('a good token gives back what its check took', () => {
  it('from its address; a refused token does not', () => {
    const { gate } = gateAt();
    const checks = Array.from({ length: 5 }, () => passed(gate.check('192.0.2.1', null)));
    checks[0]?.proven('refused-token', null);
    expect(gate.check('192.0.2.1', null)).toEqual({ wait: 600 });
    checks[1]?.proven('good-token', good(T0 + 300_000));
    passed(gate.check('192.0.2.1', null));
    expect(gate.check('192.0.2.1', null)).toEqual({ wait: 600 });
  });

  it('from its network', () => {
    const { gate } = gateAt();
    const checks = Array.from({ length: 20 }, (_, i) => passed(gate.check(`2001:db8:5:${i.toString(16)}::1`, null)));
    expect(gate.check('2001:db8:5:ff::1', null)).toEqual({ wait: 600 });
    checks[3]?.proven('good-token', good(T0 + 300_000));
    passed(gate.check('2001:db8:5:ff::1', null));
    expect(gate.check('2001:db8:5:fe::1', null)).toEqual({ wait: 600 });
  });

  it("from the instance's budget", () => {
    const { gate } = gateAt();
    const checks = strangers(gate, 600, 1).map(passed);
    expect(gate.check('10.99.0.1', null)).toEqual({ wait: 60 });
    checks[0]?.proven('good-token', good(T0 + 300_000));
    passed(gate.check('10.99.0.1', null));
    expect(gate.check('10.99.0.2', null)).toEqual({ wait: 60 });
  });

  it('only to the window it was taken from: a window ended since is not touched', () => {
    const { clock, gate } = gateAt();
    const old = Array.from({ length: 5 }, () => passed(gate.check('192.0.2.1', null)));
    clock.now = T0 + 600_000;
    for (let i = 0; i < 5; i++) passed(gate.check('192.0.2.1', null));
    old[0]?.proven('good-token', good(T0 + 900_000));
    expect(gate.check('192.0.2.1', null)).toEqual({ wait: 600 });
  });
});

describe("the instance's budget, the last resort", () => {
  it('600 unproven checks a minute from addresses and browsers it does not know; the 601st waits what is left of the minute', () => {
    const { clock, gate } = gateAt();
    strangers(gate, 600, 1).map(passed);
    clock.now = T0 + 20_000;
    expect(gate.check('10.99.0.1', null)).toEqual({ wait: 40 });
    clock.now = T0 + 60_000;
    passed(gate.check('10.99.0.1', null));
  });

  it('an address that opened the page with a good token is not held by it, nor counted on it, for a day; its own limits still hold', () => {
    const { clock, gate } = gateAt();
    passed(gate.check('192.0.2.9', null)).proven('good-token', good(T0 + 300_000));
    for (let i = 0; i < 4; i++) passed(gate.check('192.0.2.9', null));
    // its checks took nothing from the instance's budget
    strangers(gate, 600, 1).map(passed);
    expect(gate.check('10.99.0.1', null)).toEqual({ wait: 60 });
    passed(gate.check('192.0.2.9', null));
    expect(gate.check('192.0.2.9', null)).toEqual({ wait: 600 });
    // a day on, still known; a millisecond later, a stranger again
    clock.now = T0 + 86_400_000;
    strangers(gate, 600, 2).map(passed);
    passed(gate.check('192.0.2.9', null));
    clock.now = T0 + 86_400_001;
    expect(gate.check('192.0.2.9', null)).toEqual({ wait: 60 });
  });

  it('a known IPv6 address is its whole /64', () => {
    const { gate } = gateAt();
    passed(gate.check('2001:db8:7:1::1', null)).proven('good-token', good(T0 + 300_000));
    strangers(gate, 600, 1).map(passed);
    passed(gate.check('2001:db8:7:1::2', null));
    expect(gate.check('2001:db8:7:2::1', null)).toEqual({ wait: 60 });
  });

  it('a refused token makes no address known', () => {
    const { gate } = gateAt();
    passed(gate.check('192.0.2.9', null)).proven('refused-token', null);
    strangers(gate, 599, 1).map(passed);
    expect(gate.check('192.0.2.9', null)).toEqual({ wait: 60 });
  });

  it('a browser whose cookie names a store checks outside it, 5 a store in ten minutes, then is held by it like anyone', () => {
    const { clock, gate } = gateAt();
    for (let i = 0; i < 5; i++) passed(gate.check(`10.50.0.${i}`, '77'));
    // the cookies' checks took nothing from the instance's budget
    strangers(gate, 600, 1).map(passed);
    expect(gate.check('10.99.0.1', null)).toEqual({ wait: 60 });
    expect(gate.check('10.50.0.5', '77')).toEqual({ wait: 60 });
    passed(gate.check('10.50.0.6', '78'));
    // ten minutes on, the store's budget is back
    clock.now = T0 + 600_000;
    strangers(gate, 600, 2).map(passed);
    passed(gate.check('10.50.1.1', '77'));
  });

  it("a cookie's checks are counted on its address too", () => {
    const { gate } = gateAt();
    for (let i = 0; i < 3; i++) passed(gate.check('192.0.2.50', null));
    for (let i = 0; i < 2; i++) passed(gate.check('192.0.2.50', '90'));
    expect(gate.check('192.0.2.50', '90')).toEqual({ wait: 600 });
    // the store has 3 of its 5 left, outside the instance's budget
    strangers(gate, 597, 1).map(passed);
    expect(gate.check('10.99.0.1', null)).toEqual({ wait: 60 });
    for (let i = 0; i < 3; i++) passed(gate.check(`10.60.0.${i}`, '90'));
    expect(gate.check('10.60.0.3', '90')).toEqual({ wait: 60 });
  });

  it("a cookie's check beyond its store's budget is held by the instance's and not counted on the store; a good token gives the store its check back", () => {
    const { gate } = gateAt();
    const checks = Array.from({ length: 5 }, (_, i) => passed(gate.check(`10.60.0.${i}`, '77')));
    passed(gate.check('10.60.0.5', '77'));
    checks[0]?.proven('good-token', good(T0 + 300_000));
    // the sixth took the instance's budget, not the store's
    strangers(gate, 599, 1).map(passed);
    expect(gate.check('10.99.0.1', null)).toEqual({ wait: 60 });
    passed(gate.check('10.60.0.9', '77'));
    expect(gate.check('10.60.0.10', '77')).toEqual({ wait: 60 });
  });
});

describe("a token's answer is kept", () => {
  it('a refused token: refused again without asking for ten minutes, then asked about again', () => {
    const { clock, gate } = gateAt();
    expect(gate.known('bogus-token')).toBeUndefined();
    passed(gate.check('192.0.2.3', null)).proven('bogus-token', null);
    expect(gate.known('bogus-token')).toBeNull();
    expect(gate.known('bogus-token2')).toBeUndefined();
    clock.now = T0 + 600_000;
    expect(gate.known('bogus-token')).toBeNull();
    clock.now = T0 + 600_001;
    expect(gate.known('bogus-token')).toBeUndefined();
  });

  it('a good token: its store until its own expiry, then asked about again', () => {
    const { clock, gate } = gateAt();
    passed(gate.check('192.0.2.3', null)).proven('good-token', good(T0 + 300_000));
    clock.now = T0 + 299_999;
    expect(gate.known('good-token')).toEqual({ storeId: '42', userId: '7', expiresAt: T0 + 300_000 });
    expect(gate.known('good-token2')).toBeUndefined();
    clock.now = T0 + 300_000;
    expect(gate.known('good-token')).toBeUndefined();
  });
});

describe('a gate without a clock of its own', () => {
  it("counts by the system's clock", () => {
    vi.useFakeTimers({ now: new Date('2025-03-01T12:00:00Z') });
    const gate = createDashboardGate();
    for (let i = 0; i < 30; i++) expect(gate.opening('192.0.2.1')).toBeNull();
    expect(gate.opening('192.0.2.1')).toBe(60);
    passed(gate.check('192.0.2.1', null)).proven('bogus-token', null);
    vi.setSystemTime(new Date('2025-03-01T12:01:00Z'));
    expect(gate.opening('192.0.2.1')).toBeNull();
    expect(gate.known('bogus-token')).toBeNull();
    vi.setSystemTime(new Date('2025-03-01T12:10:01Z'));
    expect(gate.known('bogus-token')).toBeUndefined();
  });
});

describe("the gate's memory", () => {
  it('is listed in the cache inventory (the sillage_cache_entries metric) under five names, each bounded', () => {
    const { gate } = gateAt();
    gate.opening('192.0.2.1');
    passed(gate.check('192.0.2.1', null)).proven('good-token', good(T0 + 300_000));
    const mine = cacheInventory()
      .filter((c) => c.name.startsWith('salla-dashboard-'))
      .map(({ name, max, ttlMs }) => ({ name, max, ttlMs }));
    expect(mine).toEqual([
      { name: 'salla-dashboard-checks', max: 1, ttlMs: null },
      { name: 'salla-dashboard-openings', max: 100_000, ttlMs: null },
      { name: 'salla-dashboard-tokens', max: 10_000, ttlMs: 600_000 },
      { name: 'salla-dashboard-trusted', max: 10_000, ttlMs: 86_400_000 },
      { name: 'salla-dashboard-unproven', max: 100_000, ttlMs: null },
    ]);
  });
});
