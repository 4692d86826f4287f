import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDashboardGate,
  DASHBOARD_CHECKS_PER_MINUTE,
  DASHBOARD_OPENINGS_PER_MINUTE,
  DASHBOARD_UNPROVEN_PER_ADDRESS,
  DASHBOARD_UNPROVEN_PER_NETWORK,
  DASHBOARD_UNPROVEN_PER_STORE,
  REFUSED_TOKEN_MS,
  TRUSTED_ADDRESS_MS,
  UNPROVEN_WINDOW_MS,
} from '../../auth/salla-dashboard-gate.ts';
import { DASHBOARD_COOKIE } from '../../routes/console/salla.ts';
import { buildTestApp, closeTestApp, type TestApp } from '../helper.ts';
import { SallaSimulator, webhookRequest } from '../salla-sim.ts';
import { cookieOf } from '../zid-sim.ts';

/**
 * Salla merchants come into the console only through the app's page in Salla's dashboard, and each
 * opening with a token the service has not seen costs a call to Salla's introspection. 600 bogus
 * openings a minute closed the page for every merchant (the instance's limit of checks), each
 * costing an introspection (issue 44, finding 10). Now a bogus opening costs its sender: its
 * address, its IPv6 network, then the instance, counted before the call; a token's answer is
 * kept; a browser or an address that opened the page before is not held by the instance's budget.
 */
const SECRET = 'salla-webhook-secret-0123456789';
const HTML = { accept: 'text/html,application/xhtml+xml' };
const STORE = 6001;
let sim: SallaSimulator;
let app: TestApp;

const bogus = () => `em_tok_${randomBytes(16).toString('hex')}`;
const introspections = () => sim.hits.get('/exchange-authority/v1/introspect') ?? 0;
const open = (token: string, ip: string, cookie?: string) =>
  app.inject({
    method: 'GET',
    url: `/console/salla/dashboard?token=${encodeURIComponent(token)}&lang=ar`,
    headers: { ...HTML, ...(cookie ? { cookie } : {}) },
    remoteAddress: ip,
  });
/** Openings sent 50 at a time, as an attacker sends them: the statuses. */
async function flood(openings: { token: string; ip: string }[]) {
  const statuses: number[] = [];
  for (let i = 0; i < openings.length; i += 50) {
    const batch = await Promise.all(openings.slice(i, i + 50).map((o) => open(o.token, o.ip)));
    statuses.push(...batch.map((r) => r.statusCode));
  }
  return statuses;
}
/** The merchant opens the app's page with a token Salla gave: the answer. */
const merchant = (ip: string, cookie?: string) => open(sim.dashboardToken(STORE), ip, cookie);
const ticketIn = (body: string) => /\/console\/salla\/enter\?ticket=[A-Za-z0-9_-]{43}/.test(body);

beforeAll(async () => {
  sim = await new SallaSimulator().start();
  app = await buildTestApp(sim.env(SECRET));
  sim.addStore(STORE, [{ id: 101, name: 'Khamrah Eau de Parfum 100ml', price: 250 }]);
  expect((await app.inject(webhookRequest(sim.authorize(STORE, SECRET)))).statusCode).toBe(200);
  await app.jobs.drain();
});
afterAll(async () => {
  await closeTestApp(app);
  await sim.stop();
});

describe("Salla's dashboard page under bogus openings", () => {
  it(`600 bogus openings from one address cost at most ${DASHBOARD_UNPROVEN_PER_ADDRESS} introspections, and a merchant still opens the page`, async () => {
    const before = introspections();
    const statuses = await flood(Array.from({ length: 600 }, () => ({ token: bogus(), ip: '198.51.100.7' })));
    // sent 50 at once: counted before Salla is asked, so the simultaneous ones do not all pass
    expect(introspections() - before).toBeLessThanOrEqual(DASHBOARD_UNPROVEN_PER_ADDRESS);
    expect(statuses.filter((s) => s === 400)).toHaveLength(DASHBOARD_UNPROVEN_PER_ADDRESS);
    expect(statuses.filter((s) => s === 429).length).toBe(600 - DASHBOARD_UNPROVEN_PER_ADDRESS);
    const page = await merchant('192.0.2.10');
    expect(page.statusCode, page.body).toBe(200);
    expect(ticketIn(page.body)).toBe(true);
  });

  it(`600 from 20 addresses cost at most ${20 * DASHBOARD_UNPROVEN_PER_ADDRESS}, and leave the instance's budget to merchants`, async () => {
    const before = introspections();
    const openings = Array.from({ length: 600 }, (_, i) => ({ token: bogus(), ip: `198.51.100.${20 + (i % 20)}` }));
    await flood(openings);
    expect(introspections() - before).toBeLessThanOrEqual(20 * DASHBOARD_UNPROVEN_PER_ADDRESS);
    const page = await merchant('192.0.2.11');
    expect(page.statusCode, page.body).toBe(200);
    expect(ticketIn(page.body)).toBe(true);
  });

  it(`600 from as many /64s of one IPv6 /48 cost at most ${DASHBOARD_UNPROVEN_PER_NETWORK}`, async () => {
    const before = introspections();
    const openings = Array.from({ length: 600 }, (_, i) => ({
      token: bogus(),
      ip: `2001:db8:77:${i.toString(16)}::1`,
    }));
    await flood(openings);
    expect(introspections() - before).toBeLessThanOrEqual(DASHBOARD_UNPROVEN_PER_NETWORK);
    expect((await merchant('2001:db8:78::1')).statusCode).toBe(200);
  });

  it('a token is looked at, then its answer kept, before Salla is asked', async () => {
    const before = introspections();
    // not a token's shape: refused for free
    for (const token of ['x', 'em_tok_made_up', `em_tok_${'a'.repeat(20)}<>`, 'a'.repeat(4096).replace(/a$/, ' ')]) {
      const page = await open(token, '198.51.100.50');
      expect(page.statusCode, token.slice(0, 20)).toBe(400);
      expect(page.body).toContain('data-embedded="refresh"');
    }
    expect(introspections()).toBe(before);
    // one bogus token sent again from many addresses: one introspection
    const token = bogus();
    const statuses = await flood(Array.from({ length: 30 }, (_, i) => ({ token, ip: `198.51.101.${i}` })));
    expect(statuses.every((s) => s === 400)).toBe(true);
    expect(introspections()).toBe(before + 1);
    // a good token opened again (a reload) is not asked again while it lasts
    const good = sim.dashboardToken(STORE);
    for (let i = 0; i < 3; i++) expect((await open(good, `192.0.2.${30 + i}`)).statusCode).toBe(200);
    expect(introspections()).toBe(before + 2);
  });

  it('from many addresses, a merchant who opened the page before still does; others wait', async () => {
    // the merchant opens the page before the attack: the browser keeps the cookie of a good opening
    const first = await merchant('192.0.2.50');
    expect(first.statusCode).toBe(200);
    const setCookie = [first.headers['set-cookie']].flat().find((c) => c?.startsWith(`${DASHBOARD_COOKIE}=`)) ?? '';
    expect(setCookie).toMatch(/; Path=\/console\/salla\/dashboard/);
    expect(setCookie).toMatch(/; HttpOnly/);
    expect(setCookie).toMatch(/; Secure/);
    expect(setCookie).toMatch(/; SameSite=None/);
    expect(setCookie).toMatch(/; Partitioned/);
    const cookie = cookieOf(first.headers['set-cookie'], DASHBOARD_COOKIE) as string;

    // one bogus opening from each of many addresses, until a new address is held by the instance's
    // budget (what it holds to is counted by the clock below; here its minute may turn meanwhile)
    let held = false;
    for (let i = 0; i < 2 * DASHBOARD_CHECKS_PER_MINUTE + 100 && !held; i += 50) {
      const statuses = await flood(
        Array.from({ length: 50 }, (_, j) => ({
          token: bogus(),
          ip: `10.${60 + ((i + j) >> 16)}.${((i + j) >> 8) & 255}.${(i + j) & 255}`,
        })),
      );
      held = statuses.includes(429);
    }
    expect(held).toBe(true);

    // a merchant's browser never seen, from an address never seen: the last resort holds it
    const stranger = await merchant('192.0.2.99');
    expect(stranger.statusCode).toBe(429);
    expect(stranger.body).toContain('data-embedded="error"');
    // the browser that opened the page before, from another address (a phone on another network)
    const withCookie = await merchant('203.0.113.60', cookie);
    expect(withCookie.statusCode, withCookie.body).toBe(200);
    expect(ticketIn(withCookie.body)).toBe(true);
    // the address that opened the page before, in another browser (no third-party cookies)
    const sameAddress = await merchant('192.0.2.50');
    expect(sameAddress.statusCode, sameAddress.body).toBe(200);
    // a cookie not signed by the service is no cookie
    const forged = await merchant('203.0.113.61', `${DASHBOARD_COOKIE}=${STORE}:9999999999.forged`);
    expect(forged.statusCode).toBe(429);
  });
});

describe('the gate, by its clock', () => {
  const store = { storeId: '1', userId: '2', expiresAt: 0 };

  it('an address: its openings a minute, its unproven checks in ten, given back by a good token', () => {
    let t = 1_000_000;
    const gate = createDashboardGate({ now: () => t });
    for (let i = 0; i < DASHBOARD_OPENINGS_PER_MINUTE; i++) expect(gate.opening('192.0.2.1')).toBeNull();
    expect(gate.opening('192.0.2.1')).toBe(60);
    expect(gate.opening('192.0.2.2')).toBeNull();
    t += 60_000;
    expect(gate.opening('192.0.2.1')).toBeNull();

    const checks = Array.from({ length: DASHBOARD_UNPROVEN_PER_ADDRESS }, () => gate.check('192.0.2.1', null));
    expect(checks.every((c) => 'proven' in c)).toBe(true);
    expect(gate.check('192.0.2.1', null)).toEqual({ wait: UNPROVEN_WINDOW_MS / 1000 });
    // a good token gives its check back; a refused one does not
    const [a, b] = checks as { proven(token: string, answer: unknown): void }[];
    b?.proven('refused-token-0000', null);
    a?.proven('good-token-000000', { ...store, expiresAt: t + 300_000 });
    expect('proven' in gate.check('192.0.2.1', null)).toBe(true);
    expect(gate.check('192.0.2.1', null)).toHaveProperty('wait');
    t += UNPROVEN_WINDOW_MS;
    expect('proven' in gate.check('192.0.2.1', null)).toBe(true);
  });

  it("a token's answer: a refused one for ten minutes, a good one until it expires", () => {
    let t = 5_000_000;
    const gate = createDashboardGate({ now: () => t });
    const c = gate.check('192.0.2.3', null) as { proven(token: string, answer: unknown): void };
    c.proven('bogus-token-00000', null);
    expect(gate.known('bogus-token-00000')).toBeNull();
    expect(gate.known('another-token-000')).toBeUndefined();
    const d = gate.check('192.0.2.3', null) as { proven(token: string, answer: unknown): void };
    d.proven('good-token-000000', { ...store, expiresAt: t + 300_000 });
    expect(gate.known('good-token-000000')).toEqual({ ...store, expiresAt: t + 300_000 });
    t += 300_000;
    expect(gate.known('good-token-000000')).toBeUndefined();
    expect(gate.known('bogus-token-00000')).toBeNull();
    t += REFUSED_TOKEN_MS - 300_000 + 1;
    expect(gate.known('bogus-token-00000')).toBeUndefined();
  });

  it("the instance's budget is the last resort: a cookie's store and a known address are not held by it", () => {
    let t = 9_000_000;
    const gate = createDashboardGate({ now: () => t });
    // a merchant's good opening: the address is known for a day
    (gate.check('192.0.2.9', null) as { proven(token: string, answer: unknown): void }).proven('t-merchant-000000', {
      ...store,
      expiresAt: t + 300_000,
    });
    for (let i = 0; i < DASHBOARD_CHECKS_PER_MINUTE; i++) {
      expect('proven' in gate.check(`10.1.${i >> 8}.${i & 255}`, null), String(i)).toBe(true);
    }
    expect(gate.check('10.2.0.1', null)).toEqual({ wait: 60 });
    expect('proven' in gate.check('192.0.2.9', null)).toBe(true);
    // a cookie's store has a budget of its own, then it is held like anyone
    for (let i = 0; i < DASHBOARD_UNPROVEN_PER_STORE; i++) {
      expect('proven' in gate.check(`10.3.0.${i}`, '77')).toBe(true);
    }
    expect(gate.check('10.3.0.99', '77')).toEqual({ wait: 60 });
    expect('proven' in gate.check('10.3.0.98', '78')).toBe(true);
    // a minute on, the instance's budget is back; a day on, the address is a stranger again
    t += 60_000;
    expect('proven' in gate.check('10.2.0.1', null)).toBe(true);
    t += TRUSTED_ADDRESS_MS;
    for (let i = 0; i < DASHBOARD_CHECKS_PER_MINUTE; i++) gate.check(`10.4.${i >> 8}.${i & 255}`, null);
    expect(gate.check('192.0.2.9', null)).toEqual({ wait: 60 });
  });

  it('an IPv6 /64 is one address, a /48 one network; an IPv4 address written as IPv6 is that address', () => {
    const gate = createDashboardGate({ now: () => 1 });
    for (let i = 0; i < DASHBOARD_UNPROVEN_PER_ADDRESS; i++) gate.check(`2001:db8:1:1::${i + 1}`, null);
    expect(gate.check('2001:db8:1:1:ffff::1', null)).toHaveProperty('wait');
    for (let i = DASHBOARD_UNPROVEN_PER_ADDRESS; i < DASHBOARD_UNPROVEN_PER_NETWORK; i++) {
      expect('proven' in gate.check(`2001:db8:1:${i + 2}::1`, null), String(i)).toBe(true);
    }
    expect(gate.check('2001:db8:1:ff::1', null)).toHaveProperty('wait');
    expect('proven' in gate.check('2001:db8:2::1', null)).toBe(true);
    for (let i = 0; i < DASHBOARD_UNPROVEN_PER_ADDRESS; i++) gate.check('::ffff:192.0.2.77', null);
    expect(gate.check('192.0.2.77', null)).toHaveProperty('wait');
  });
});
