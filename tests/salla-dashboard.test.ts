import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_OPENINGS_PER_MINUTE } from '../routes/console/salla.ts';
import { createConsoleTicket, createConsoleUser, TICKET_MS, takeConsoleTicket } from '../services/console-users.ts';
import { buildTestApp, closeTestApp, type TestApp } from './helper.ts';
import { SallaSimulator, type SimProduct, webhookRequest } from './salla-sim.ts';
import { cookieOf } from './zid-sim.ts';

/**
 * The Salla app's page in the merchant's Salla dashboard (docs/platforms.md): Salla frames
 * `/console/salla/dashboard?token=…`; the token is checked with Salla's introspection, the page shows
 * the store's shelf and a button that signs the store's owner in to the console once, in a new tab.
 * Nobody is signed in on a token Salla refuses, for a store that never installed, or as an account
 * the store's email does not prove.
 */
const SECRET = 'salla-webhook-secret-0123456789';
const HTML = { accept: 'text/html,application/xhtml+xml' };
const SHELF: SimProduct[] = [
  { id: 101, name: 'Khamrah Eau de Parfum 100ml', price: 250 },
  { id: 102, name: 'Asad EDP 100ml', price: 180 },
  { id: 103, name: 'Zz Unknown House Blend 50ml', price: 90 },
];
let sim: SallaSimulator;
let app: TestApp;
let address = 0;

/** Each opening from an address of its own, unless a test is about one address's openings. */
const open = (
  token: string | null,
  headers: Record<string, string> = HTML,
  ip = `10.9.${address >> 8}.${address++ & 255}`,
) =>
  app.inject({
    method: 'GET',
    url: `/console/salla/dashboard${token === null ? '' : `?token=${encodeURIComponent(token)}&lang=ar&theme=light`}`,
    headers,
    remoteAddress: ip,
  });
const ticketOf = (body: string) => /\/console\/salla\/enter\?ticket=([A-Za-z0-9_-]+)/.exec(body)?.[1];
const tickets = async () =>
  Number((await app.db.execute<{ n: number }>(sql`select count(*)::int as n from console_tickets`))[0]?.n);
const introspections = () => sim.hits.get('/exchange-authority/v1/introspect') ?? 0;

async function install(store: number, o: { email?: string | null; name?: string } = {}) {
  sim.addStore(store, SHELF, o);
  const hook = sim.authorize(store, SECRET);
  expect((await app.inject(webhookRequest(hook))).statusCode).toBe(200);
  await app.jobs.drain();
}

beforeAll(async () => {
  sim = await new SallaSimulator().start();
  app = await buildTestApp(sim.env(SECRET));
  await install(5001, { name: 'متجر العود الملكي' });
});
afterAll(async () => {
  await closeTestApp(app);
  await sim.stop();
});

describe("the app's page in Salla's dashboard", () => {
  it('shows the store and its shelf, framed by Salla only, and a one-time way into the console', async () => {
    const before = introspections();
    const page = await open(sim.dashboardToken(5001));
    expect(page.statusCode, page.body).toBe(200);
    expect(introspections()).toBe(before + 1);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    // framed by Salla's dashboard, not by anyone else, and no X-Frame-Options to forbid it
    expect(page.headers['content-security-policy']).toMatch(/frame-ancestors https:\/\/s\.salla\.sa(;|$)/);
    expect(page.headers['x-frame-options']).toBeUndefined();
    // the address carries Salla's token: never handed on as a referrer, never cached
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain('dir="rtl"');
    expect(page.body).toContain('متجر العود الملكي');
    expect(page.body).toContain('data-embedded="ok"');
    expect(page.body).toContain('owner-5001@store.sim.example');
    // the shelf in a line: 3 imported, the two catalogue perfumes recognised
    expect(page.body).toMatch(/تعرّفنا على رائحة 2 من منتجاتك البالغة 3/);
    expect(page.body).toContain('<script src="/console/salla/dashboard.js" defer></script>');
    expect(page.body).toContain('target="_blank"');

    const ticket = ticketOf(page.body) as string;
    expect(ticket).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const enter = await app.inject({ method: 'GET', url: `/console/salla/enter?ticket=${ticket}`, headers: HTML });
    expect(enter.statusCode, enter.body).toBe(303);
    expect(enter.headers.location).toBe('/console/m/salla-5001/install');
    const session = cookieOf(enter.headers['set-cookie'], 'console_session') as string;
    expect(session).toBeTruthy();
    const console = await app.inject({
      method: 'GET',
      url: enter.headers.location as string,
      headers: { ...HTML, cookie: session },
    });
    expect(console.statusCode).toBe(200);
    expect(console.body).toContain('متجر العود الملكي');
    expect(console.body).toContain('owner-5001@store.sim.example');

    // the ticket works once
    const again = await app.inject({ method: 'GET', url: `/console/salla/enter?ticket=${ticket}` });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ code: 'invalid_oauth_state' });
    expect(cookieOf(again.headers['set-cookie'], 'console_session')).toBeUndefined();
  });

  it("a script's request gets JSON: whom the page would sign in, and the same refusals as codes", async () => {
    const ok = await open(sim.dashboardToken(5001), { accept: 'application/json' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ merchant: 'salla-5001', signs_in: 'owner-5001@store.sim.example' });
    const bad = await open('em_tok_made_up', { accept: 'application/json' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'invalid_oauth_state' });
    const none = await open(null, { accept: 'application/json' });
    expect(none.statusCode).toBe(400);
    expect(none.json()).toMatchObject({ code: 'invalid_oauth_state' });
  });

  it('a token Salla refuses (made up, expired, or checked as another app) signs nobody in and offers a fresh one', async () => {
    const before = await tickets();
    for (const token of ['em_tok_made_up', sim.dashboardToken(5001, -1), '']) {
      const page = await open(token);
      expect(page.statusCode, token).toBe(400);
      expect(page.body).toContain('data-embedded="refresh"');
      expect(page.body).toContain('data-refresh');
      // still framable by Salla's dashboard, so the merchant reads why
      expect(page.headers['content-security-policy']).toMatch(/frame-ancestors https:\/\/s\.salla\.sa/);
      expect(ticketOf(page.body)).toBeUndefined();
    }
    expect(await tickets()).toBe(before);
  });

  it('a store that never installed, or removed the app, is told so', async () => {
    sim.addStore(5002, SHELF);
    const never = await open(sim.dashboardToken(5002));
    expect(never.statusCode).toBe(404);
    expect(never.body).toContain('data-embedded="error"');
    expect(ticketOf(never.body)).toBeUndefined();

    await install(5003);
    const hook = sim.webhook('app.uninstalled', 5003, {}, SECRET);
    expect((await app.inject(webhookRequest(hook))).statusCode).toBe(200);
    await app.jobs.drain();
    const gone = await open(sim.dashboardToken(5003), { accept: 'application/json' });
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toMatchObject({ code: 'unknown_store' });
  });

  it('Salla away is not the token’s fault: 502, and the page offers to try again', async () => {
    sim.introspectFailure = 500;
    try {
      const page = await open(sim.dashboardToken(5001));
      expect(page.statusCode).toBe(502);
      expect(page.body).toContain('data-embedded="refresh"');
      const json = await open(sim.dashboardToken(5001), { accept: 'application/json' });
      expect(json.statusCode).toBe(502);
      expect(json.json()).toMatchObject({ code: 'platform_error' });
    } finally {
      sim.introspectFailure = null;
    }
  });

  it('no sign-in to an account the store’s email does not prove: none given, or an operator’s', async () => {
    await install(5004, { email: null });
    const none = await open(sim.dashboardToken(5004));
    expect(none.statusCode).toBe(200);
    expect(none.body).toContain('data-embedded="ok"');
    expect(ticketOf(none.body)).toBeUndefined();

    await createConsoleUser(app.db, { email: 'ops@sillage.example', password: 'a-long-password-1', role: 'operator' });
    await install(5005, { email: 'OPS@sillage.example' });
    const operator = await open(sim.dashboardToken(5005), { accept: 'application/json' });
    expect(operator.json()).toMatchObject({ merchant: 'salla-5005', signs_in: null });
  });

  it('a browser signed in as someone else keeps its session: the link cannot swap it', async () => {
    await install(5006);
    const first = ticketOf((await open(sim.dashboardToken(5006))).body) as string;
    const enter = await app.inject({ method: 'GET', url: `/console/salla/enter?ticket=${first}` });
    const session = cookieOf(enter.headers['set-cookie'], 'console_session') as string;
    const other = ticketOf((await open(sim.dashboardToken(5001))).body) as string;
    const swap = await app.inject({
      method: 'GET',
      url: `/console/salla/enter?ticket=${other}`,
      headers: { cookie: session },
    });
    expect(swap.statusCode).toBe(409);
    expect(swap.json()).toMatchObject({ code: 'signed_in_elsewhere' });
    expect(cookieOf(swap.headers['set-cookie'], 'console_session')).toBeUndefined();
    const still = await app.inject({ method: 'GET', url: '/console', headers: { cookie: session } });
    expect(still.headers.location).toBe('/console/m/salla-5006/');
  });

  it('a ticket raced from two tabs signs in once', async () => {
    const ticket = ticketOf((await open(sim.dashboardToken(5001))).body) as string;
    const both = await Promise.all(
      [1, 2].map(() => app.inject({ method: 'GET', url: `/console/salla/enter?ticket=${ticket}` })),
    );
    expect(both.map((r) => r.statusCode).sort()).toEqual([303, 400]);
  });

  it('one address opening the page past the limit is refused before Salla is asked', async () => {
    const ip = '10.77.0.1';
    for (let i = 0; i < DASHBOARD_OPENINGS_PER_MINUTE; i++) {
      expect((await open('em_tok_made_up', { accept: 'application/json' }, ip)).statusCode).toBe(400);
    }
    const before = introspections();
    const refused = await open(sim.dashboardToken(5001), HTML, ip);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.body).toContain('data-embedded="error"');
    expect(introspections()).toBe(before);
    // another address is not held back
    expect((await open(sim.dashboardToken(5001))).statusCode).toBe(200);
  });

  it("the page's script is Salla's embedded SDK, made to listen only to Salla's dashboard, then the page's start", async () => {
    const js = await app.inject({ method: 'GET', url: '/console/salla/dashboard.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/text\/javascript/);
    expect(js.body.startsWith('window.process = window.process || { env: { NODE_ENV: "production" } };')).toBe(true);
    expect(js.body).toContain('SallaEmbeddedSDK');
    expect(js.body).toContain('embedded.ready()');
    // no source map the service does not serve
    expect(js.body).not.toContain('sourceMappingURL');
  });
});

describe('one-time tickets', () => {
  it('expire after TICKET_MS and are spent by their first use', async () => {
    const user = await createConsoleUser(app.db, {
      email: 'ticket@shop.example',
      password: 'a-long-password-2',
      role: 'operator',
    });
    const made = new Date('2026-01-01T00:00:00Z');
    const late = await createConsoleTicket(app.db, user.id, made);
    expect(await takeConsoleTicket(app.db, late, new Date(made.getTime() + TICKET_MS + 1))).toBeNull();
    const fresh = await createConsoleTicket(app.db, user.id);
    expect((await takeConsoleTicket(app.db, fresh))?.id).toBe(user.id);
    expect(await takeConsoleTicket(app.db, fresh)).toBeNull();
    for (const junk of ['', 'x', 'a'.repeat(100), `${fresh.slice(0, 42)}!`]) {
      expect(await takeConsoleTicket(app.db, junk)).toBeNull();
    }
  });
});

describe('without SALLA_APP_ID', () => {
  it('the page is not there', async () => {
    const { SALLA_APP_ID: _, ...env } = sim.env(SECRET);
    const off = await buildTestApp(env);
    try {
      const page = await off.inject({ method: 'GET', url: '/console/salla/dashboard?token=x' });
      expect(page.statusCode).toBe(404);
      expect(page.json()).toMatchObject({ code: 'platform_not_configured' });
      expect((await off.inject({ method: 'GET', url: '/console/salla/dashboard.js' })).statusCode).toBe(404);
    } finally {
      await closeTestApp(off);
    }
  });
});
