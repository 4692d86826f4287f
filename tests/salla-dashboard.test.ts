import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_OPENINGS_PER_MINUTE } from '../auth/salla-dashboard-gate.ts';
import { DASHBOARD_TICKETS_PER_MINUTE } from '../routes/console/salla.ts';
import { consoleTickets } from '../schema/index.ts';
import { createConsoleTicket, createConsoleUser, TICKET_MS, takeConsoleTicket } from '../services/console-users.ts';
import { Browser } from './console-session.ts';
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
const tickets = async () => (await app.db.select({ n: count() }).from(consoleTickets))[0]?.n ?? -1;
/** A browser that opens the dashboard's link, then presses its button: the console's session cookie, or the answer. */
async function enterWith(browser: Browser, ticket: string) {
  const shown = await browser.get(`/console/salla/enter?ticket=${ticket}&lang=ar`);
  if (shown.statusCode !== 200) return { shown, pressed: null };
  const pressed = await browser.post('/console/salla/enter', { ticket });
  return { shown, pressed };
}
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
    // the shelf in a line: 3 imported, the two catalogue perfumes matched, none profiled from its listing
    // alone, in the Arabic-Indic digits of every Arabic page
    expect(page.body).toMatch(/من منتجاتك البالغة ٣: طابقنا ٢ مع عطور نعرفها، وقرأنا رائحة ٠ أخرى/);
    expect(page.body).toContain('<script src="/console/salla/dashboard.js" defer></script>');
    expect(page.body).toContain('target="_blank"');

    const ticket = ticketOf(page.body) as string;
    expect(ticket).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // the link carries the dashboard's language into the new tab
    expect(page.body).toContain(`/console/salla/enter?ticket=${ticket}&amp;lang=ar`);
    const browser = new Browser(app, '10.8.0.1');
    const { shown, pressed } = await enterWith(browser, ticket);
    // opening the link signs nobody in: it says whom and where, and its button does it
    expect(shown.statusCode, shown.body).toBe(200);
    expect(shown.body).toContain('هل تفتح لوحة تحكم «متجر العود الملكي» بحساب owner-5001@store.sim.example؟');
    // the page's address holds the ticket: handed on to nothing outside the console
    expect(shown.headers['referrer-policy']).toBe('same-origin');
    expect(cookieOf(shown.headers['set-cookie'], 'console_session')).toBeUndefined();
    expect(pressed?.statusCode, pressed?.body).toBe(303);
    expect(pressed?.headers.location).toBe('/console/m/salla-5001/install');
    expect(browser.cookies.get('console_session')).toBeTruthy();
    const console = await browser.get('/console/m/salla-5001/install');
    expect(console.statusCode).toBe(200);
    expect(console.body).toContain('متجر العود الملكي');
    expect(console.body).toContain('owner-5001@store.sim.example');

    // the ticket works once, in any browser
    const again = await enterWith(new Browser(app, '10.8.0.2'), ticket);
    expect(again.shown.statusCode).toBe(400);
    expect(again.shown.body).toContain('استُخدم من قبل');
    const replay = await new Browser(app, '10.8.0.3').post('/console/salla/enter', { ticket });
    expect(replay.statusCode).toBe(403);
  });

  it('the button, not the link, spends the ticket: without the form’s token nothing happens', async () => {
    const ticket = ticketOf((await open(sim.dashboardToken(5001))).body) as string;
    const browser = new Browser(app, '10.8.1.1');
    await browser.get(`/console/salla/enter?ticket=${ticket}`);
    const forged = await browser.post('/console/salla/enter', { ticket }, { csrf: null });
    expect(forged.statusCode).toBe(403);
    expect(browser.cookies.get('console_session')).toBeUndefined();
    // the ticket was not spent by the refused post: the real button still works
    expect((await browser.post('/console/salla/enter', { ticket })).statusCode).toBe(303);
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

  it('a browser signed in as someone else keeps its session: the link cannot swap it, nor spend the ticket', async () => {
    await install(5006);
    const browser = new Browser(app, '10.8.2.1');
    await enterWith(browser, ticketOf((await open(sim.dashboardToken(5006))).body) as string);
    const session = browser.cookies.get('console_session');
    expect(session).toBeTruthy();
    const other = ticketOf((await open(sim.dashboardToken(5001))).body) as string;
    const swap = await browser.get(`/console/salla/enter?ticket=${other}`);
    expect(swap.statusCode).toBe(409);
    expect(swap.body).toContain('owner-5006@store.sim.example');
    // a form of the signed-in console (its CSRF token is the signed-in user's) posting the other ticket
    await browser.get('/console/m/salla-5006/install');
    const pressed = await browser.post('/console/salla/enter', { ticket: other });
    expect(pressed.statusCode).toBe(409);
    expect(browser.cookies.get('console_session')).toBe(session);
    expect((await browser.get('/console')).headers.location).toBe('/console/m/salla-5006/');
    // the ticket is still good for its own owner's browser
    expect((await enterWith(new Browser(app, '10.8.2.2'), other)).pressed?.statusCode).toBe(303);
  });

  it('a ticket raced from two tabs signs in once', async () => {
    const ticket = ticketOf((await open(sim.dashboardToken(5001))).body) as string;
    const tabs = [new Browser(app, '10.8.3.1'), new Browser(app, '10.8.3.2')];
    for (const tab of tabs) await tab.get(`/console/salla/enter?ticket=${ticket}`);
    const both = await Promise.all(tabs.map((tab) => tab.post('/console/salla/enter', { ticket })));
    expect(both.map((r) => r.statusCode).sort()).toEqual([303, 400]);
  });

  it('only the user who installed the app is signed in as its owner: another of the store’s users is told to ask', async () => {
    const before = await tickets();
    const staff = await open(sim.dashboardToken(5001, 300, 123456));
    expect(staff.statusCode).toBe(200);
    expect(staff.body).toContain('لا يفتح لوحة التحكم من هنا إلا مستخدم المتجر الذي ثبّت التطبيق');
    expect(ticketOf(staff.body)).toBeUndefined();
    expect(await tickets()).toBe(before);
    const json = await open(sim.dashboardToken(5001, 300, 123456), { accept: 'application/json' });
    expect(json.json()).toEqual({ merchant: 'salla-5001', signs_in: null });
  });

  it('a script asking for the page makes no ticket', async () => {
    const before = await tickets();
    for (let i = 0; i < 3; i++) {
      expect((await open(sim.dashboardToken(5001), { accept: 'application/json' })).statusCode).toBe(200);
    }
    expect(await tickets()).toBe(before);
  });

  it('a store that removed the app: a ticket made before signs nobody in after', async () => {
    await install(5007);
    const ticket = ticketOf((await open(sim.dashboardToken(5007))).body) as string;
    const browser = new Browser(app, '10.8.4.1');
    expect((await browser.get(`/console/salla/enter?ticket=${ticket}`)).statusCode).toBe(200);
    const hook = sim.webhook('app.uninstalled', 5007, {}, SECRET);
    expect((await app.inject(webhookRequest(hook))).statusCode).toBe(200);
    await app.jobs.drain();
    const pressed = await browser.post('/console/salla/enter', { ticket });
    expect(pressed.statusCode).toBe(400);
    expect(browser.cookies.get('console_session')).toBeUndefined();
  });

  it('an email that only lower-cases into another address (the Kelvin sign) claims no account', async () => {
    await install(5008, { email: '\u212Aate@victim.example' });
    const page = await open(sim.dashboardToken(5008), { accept: 'application/json' });
    expect(page.json()).toEqual({ merchant: 'salla-5008', signs_in: null });
  });

  it('errors inside Salla’s frame are the page, framable, never the console’s unframable error page', async () => {
    for (const url of [
      `/console/salla/dashboard?token=${'a'.repeat(5000)}`,
      '/console/salla/dashboard?token=a&token=b',
    ]) {
      const page = await app.inject({ method: 'GET', url, headers: HTML, remoteAddress: '10.8.5.1' });
      expect(page.statusCode, url).toBe(400);
      expect(page.body).toContain('data-embedded="refresh"');
      expect(page.headers['content-security-policy']).toMatch(/frame-ancestors https:\/\/s\.salla\.sa/);
    }
    const json = await app.inject({
      method: 'GET',
      url: `/console/salla/dashboard?token=${'a'.repeat(5000)}`,
      remoteAddress: '10.8.5.1',
    });
    expect(json.statusCode).toBe(400);
    expect(json.json()).toMatchObject({ code: 'validation_failed' });
  });

  it('one address opening the page past the limit is refused before Salla is asked (an IPv6 /64 is one address)', async () => {
    for (let i = 0; i < DASHBOARD_OPENINGS_PER_MINUTE; i++) {
      const ip = `2001:db8:1:1::${(i + 1).toString(16)}`;
      expect((await open('em_tok_made_up', { accept: 'application/json' }, ip)).statusCode).toBe(400);
    }
    const before = introspections();
    const refused = await open(sim.dashboardToken(5001), HTML, '2001:db8:1:1:ffff:ffff:ffff:ffff');
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.body).toContain('data-embedded="error"');
    expect(introspections()).toBe(before);
    const json = await open(sim.dashboardToken(5001), { accept: 'application/json' }, '2001:db8:1:1::abcd');
    expect(json.statusCode).toBe(429);
    expect(json.json()).toMatchObject({ code: 'rate_limited' });
    // another address is not held back
    expect((await open(sim.dashboardToken(5001), HTML, '2001:db8:1:2::1')).statusCode).toBe(200);
  });

  it('one store’s page opened past the limit makes no more tickets, whatever the addresses', async () => {
    await install(5009);
    const token = sim.dashboardToken(5009);
    let made = 0;
    let refused = 0;
    for (let i = 0; i < DASHBOARD_TICKETS_PER_MINUTE + 5; i++) {
      const page = await open(token);
      if (page.statusCode === 200 && ticketOf(page.body)) made++;
      if (page.statusCode === 429) refused++;
    }
    expect(made).toBe(DASHBOARD_TICKETS_PER_MINUTE);
    expect(refused).toBe(5);
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
