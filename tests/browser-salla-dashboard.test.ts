import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchChromium } from './chromium.ts';
import { freePort } from './cluster.ts';
import { buildTestApp, closeTestApp, type TestApp } from './helper.ts';
import { SallaSimulator, type SimProduct, webhookRequest } from './salla-sim.ts';

const SECRET = 'salla-webhook-secret-0123456789';
const STORE = 5101;
const STORE_NAME = 'متجر العود الملكي';
const OWNER = `owner-${STORE}@store.sim.example`;
const SHELF: SimProduct[] = [
  { id: 101, name: 'Khamrah Eau de Parfum 100ml', price: 250 },
  { id: 102, name: 'Asad EDP 100ml', price: 180 },
  { id: 103, name: 'Zz Unknown House Blend 50ml', price: 90 },
];

interface Received {
  event: string;
  payload: Record<string, unknown>;
  source: string;
  origin: string;
}

/**
 * Salla's dashboard as the SDK sees it: the app's page in an iframe; the frame's `iframe.ready`
 * answered with the layout (`context.provide`, to the frame's window); every message kept.
 */
const dashboardPage = (frameSrc: string) => `<!doctype html>
<html lang="ar" dir="rtl"><head><meta charset="utf-8"><title>لوحة سلة</title></head>
<body><h1>لوحة سلة</h1>
<script>
  window.received = [];
  window.frameLoaded = false;
  window.addEventListener('message', function (e) {
    var d = e.data || {};
    window.received.push({ event: d.event, payload: d.payload, source: d.source, origin: e.origin });
    var frame = document.querySelector('iframe');
    if (d.event === 'embedded::iframe.ready' && frame && e.source === frame.contentWindow) {
      frame.contentWindow.postMessage(
        {
          event: 'embedded::context.provide',
          payload: { layout: { theme: 'light', locale: 'ar' } },
          timestamp: Date.now(),
          source: 'merchant-dashboard'
        },
        e.origin
      );
    }
  });
</script>
<iframe onload="window.frameLoaded = true" width="800" height="600" src="${frameSrc}"></iframe>
</body></html>`;

/**
 * The app's script alone, in a page of the dashboard's own origin (so any site may frame it): what
 * the SDK does with an answer from a host that is not Salla's.
 */
const scriptOnlyPage = (appBase: string) => `<!doctype html>
<html lang="ar" dir="rtl"><head><meta charset="utf-8"><title>اختبار</title></head>
<body data-embedded="ok"><p>script only</p>
<script src="${appBase}/console/salla/dashboard.js"></script>
</body></html>`;

describe.skipIf(!CHROMIUM)("the app's page in Salla's dashboard, in Chromium", () => {
  let app: TestApp;
  let sim: SallaSimulator;
  let browser: Browser;
  let appBase = '';
  /** Salla's dashboard: the origin the app lets frame its page */
  let dashboard: Server;
  let dashBase = '';
  /** the same page from another origin */
  let other: Server;
  let otherBase = '';

  const serve = async (): Promise<{ server: Server; port: number }> => {
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://dashboard.invalid');
      if (url.pathname === '/script-only') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        res.end(scriptOnlyPage(appBase));
        return;
      }
      if (url.pathname !== '/') {
        // no favicon: nothing for the browser to log as missing
        res.writeHead(url.pathname === '/favicon.ico' ? 204 : 404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      const token = url.searchParams.get('token') ?? '';
      res.end(
        dashboardPage(
          url.searchParams.has('script-only')
            ? '/script-only'
            : `${appBase}/console/salla/dashboard?token=${encodeURIComponent(token)}&amp;lang=ar&amp;theme=light`,
        ),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, port: (server.address() as AddressInfo).port };
  };
  const stop = (server: Server | undefined) =>
    new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.closeAllConnections();
      server.close(() => resolve());
    });

  beforeAll(async () => {
    const d = await serve();
    dashboard = d.server;
    // Salla's Embedded SDK listens to messages from `localhost` (and Salla's hosts) only
    dashBase = `http://localhost:${d.port}`;
    const o = await serve();
    other = o.server;
    otherBase = `http://127.0.0.1:${o.port}`;

    sim = await new SallaSimulator().start();
    const port = await freePort();
    appBase = `http://127.0.0.1:${port}`;
    app = await buildTestApp({
      PORT: String(port),
      PUBLIC_BASE_URL: appBase,
      ...sim.env(SECRET),
      SALLA_DASHBOARD_ORIGIN: dashBase,
    });
    await app.listen({ port, host: '127.0.0.1' });
    sim.addStore(STORE, SHELF, { name: STORE_NAME });
    const hook = sim.authorize(STORE, SECRET);
    expect((await app.inject(webhookRequest(hook))).statusCode).toBe(200);
    await app.jobs.drain();

    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stop(dashboard);
    await stop(other);
    await closeTestApp(app);
    await sim?.stop();
  });

  /** The dashboard (or another site) opened in a browser of its own, the app's page framed in it. */
  async function openDashboard(
    at: string,
    token: string,
    query = '',
  ): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1000, height: 800 }, locale: 'ar-SA' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // the page's CSP refusing its own script or style would show here
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`${m.text()} ${m.location().url}`);
    });
    await page.goto(`${at}/?token=${encodeURIComponent(token)}${query}`);
    return { context, page, errors };
  }
  const received = (page: Page) => page.evaluate('window.received') as Promise<Received[]>;
  const events = async (page: Page) => (await received(page)).map((m) => m.event);
  const appFrame = (page: Page): Frame => {
    const frame = page.frames().find((f) => f !== page.mainFrame());
    if (!frame) throw new Error('the dashboard has no iframe');
    return frame;
  };

  it("shows the store and its shelf in Arabic, and Salla's loading overlay goes: iframe.ready, the title, ready", async () => {
    const { context, page, errors } = await openDashboard(dashBase, sim.dashboardToken(STORE));
    const frame = page.frameLocator('iframe');
    await expect.poll(() => frame.locator('body').innerText(), { timeout: 10_000 }).toContain(STORE_NAME);
    const text = await frame.locator('body').innerText();
    // the shelf in a line: 3 imported, the two catalogue perfumes recognised
    expect(text).toMatch(/من منتجاتك البالغة ٣: طابقنا ٢ مع عطور نعرفها، وقرأنا رائحة ٠ أخرى/);
    expect(text).toContain('افتح لوحة التحكم');
    expect(await frame.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await frame.locator('html').getAttribute('lang')).toBe('ar');

    // without `embedded::ready` Salla keeps its loading overlay over the page
    await expect.poll(() => events(page), { timeout: 5_000 }).toContain('embedded::ready');
    const got = await received(page);
    const names = got.map((m) => m.event);
    const at = (event: string) => names.indexOf(event);
    expect(at('embedded::iframe.ready')).toBeGreaterThanOrEqual(0);
    expect(at('embedded::iframe.ready')).toBeLessThan(at('embedded::page.setTitle'));
    expect(at('embedded::page.setTitle')).toBeLessThan(at('embedded::ready'));
    const title = await appFrame(page).title();
    expect(title).toBe('اختبار العطور من Sillage');
    expect(got[at('embedded::page.setTitle')]?.payload).toEqual({ title });
    // all of them from the app's page, as the SDK sends them
    for (const m of got) {
      expect(m.origin).toBe(appBase);
      expect(m.source).toBe('embedded-app');
    }
    // once each: no second handshake, no refresh asked
    expect(names.filter((n) => n === 'embedded::ready')).toHaveLength(1);
    expect(names).not.toContain('embedded::auth.refresh');
    // the page's own start-up saw the handshake through (the SDK's origin check let Salla's answer in)
    expect(await frame.locator('html').getAttribute('data-salla')).toBe('ready');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the button opens the console in a new tab, signed in as the store’s owner, once', async () => {
    const { context, page } = await openDashboard(dashBase, sim.dashboardToken(STORE));
    const open = page.frameLocator('iframe').locator('a[data-open]');
    await expect.poll(() => open.count(), { timeout: 10_000 }).toBe(1);
    expect(await open.innerText()).toBe('افتح لوحة التحكم');
    const href = new URL((await open.getAttribute('href')) as string, appBase).href;
    expect(href).toMatch(/\/console\/salla\/enter\?ticket=[A-Za-z0-9_-]{43}&lang=ar$/);

    const [tab] = await Promise.all([context.waitForEvent('page'), open.click()]);
    await tab.waitForLoadState();
    // the new tab says whom it signs in, to which store; its button does it
    const confirm = tab.locator('form[action="/console/salla/enter"] button[type="submit"]');
    await expect.poll(() => confirm.count(), { timeout: 10_000 }).toBe(1);
    expect(await tab.locator('main').innerText()).toContain(OWNER);
    expect((await context.cookies(`${appBase}/console/`)).map((c) => c.name)).not.toContain('console_session');
    await confirm.click();
    await expect.poll(() => new URL(tab.url()).pathname, { timeout: 10_000 }).toBe(`/console/m/salla-${STORE}/install`);
    const inConsole = await tab.locator('body').innerText();
    expect(inConsole).toContain(OWNER);
    expect(inConsole).toContain(STORE_NAME);
    // the console's session is the new tab's, first-party; the dashboard's frame stays as it was
    expect((await context.cookies(`${appBase}/console/`)).map((c) => c.name)).toContain('console_session');
    expect(new URL(page.url()).origin).toBe(dashBase);

    // the same link again, in another tab of this browser: spent
    const again = await context.newPage();
    const spent = await again.goto(href);
    expect(spent?.status()).toBe(400);
    expect(await again.locator('body').innerText()).toContain('انتهت صلاحية رابط الدخول هذا أو استُخدم من قبل');

    // and in a browser nobody signed in on (a link copied or sent): not signed in there either
    const elsewhere = await browser.newContext({ locale: 'ar-SA' });
    try {
      const stranger = await elsewhere.newPage();
      const refused = await stranger.goto(href);
      expect(refused?.status()).toBe(400);
      expect(await stranger.locator('body').innerText()).toContain('انتهت صلاحية رابط الدخول هذا أو استُخدم من قبل');
      expect((await elsewhere.cookies(`${appBase}/console/`)).map((c) => c.name)).not.toContain('console_session');
      expect(new URL(stranger.url()).pathname).toBe('/console/salla/enter');
    } finally {
      await elsewhere.close();
    }
    await context.close();
  });

  it('an expired token says so, still lets the overlay go, and asks Salla for a fresh one only when clicked', async () => {
    const { context, page, errors } = await openDashboard(dashBase, sim.dashboardToken(STORE, -1));
    const frame = page.frameLocator('iframe');
    await expect
      .poll(() => frame.locator('body').innerText(), { timeout: 10_000 })
      .toContain('انتهت صلاحية دخول هذه الصفحة من سلة أو أنه غير صالح.');
    const retry = frame.locator('button[data-refresh]');
    expect(await retry.innerText()).toBe('أعد المحاولة');
    expect(await frame.locator('a[data-open]').count()).toBe(0);
    // the overlay goes even so: the merchant reads why, rather than a spinner for ever
    await expect.poll(() => events(page), { timeout: 5_000 }).toContain('embedded::ready');
    // a while later, still no refresh asked on its own (a token that stays refused would reload in a loop)
    await page.waitForTimeout(750);
    expect(await events(page)).not.toContain('embedded::auth.refresh');

    await retry.click();
    await expect.poll(() => events(page), { timeout: 5_000 }).toContain('embedded::auth.refresh');
    const names = await events(page);
    expect(names.filter((n) => n === 'embedded::auth.refresh')).toHaveLength(1);
    expect(names.indexOf('embedded::ready')).toBeLessThan(names.indexOf('embedded::auth.refresh'));
    // the 400 the browser logs for the frame's own address is the page, not a fault of its script
    expect(errors.filter((e) => !(/status of 400/.test(e) && e.includes('/console/salla/dashboard?')))).toEqual([]);
    await context.close();
  });

  it('another site framing the page gets nothing: Chromium refuses the frame', async () => {
    const { context, page, errors } = await openDashboard(otherBase, sim.dashboardToken(STORE));
    // the iframe's load event fires for what Chromium put in its place
    await page.waitForFunction('window.frameLoaded === true', undefined, { timeout: 10_000 });
    // and a moment for the app's script, had it run, to post its iframe.ready
    await page.waitForTimeout(750);
    // Checked three ways, each enough on its own: (1) the frame holds Chromium's own error document
    // (a frame refused by `frame-ancestors` is swapped for one at `chrome-error://chromewebdata/`),
    // without the app's page's text; (2) Chromium said why in the console, naming the one origin
    // the page allows; (3) the app's script never ran there: the SDK posts `iframe.ready` to any
    // parent (`*`) the moment it starts, and this page received nothing at all. The first two do not
    // depend on how long we wait.
    const frame = appFrame(page);
    expect(frame.url()).toMatch(/^chrome-error:/);
    const content = await frame.content().catch(() => '');
    expect(content).not.toContain(STORE_NAME);
    expect(content).not.toContain('data-embedded');
    expect(errors.join('\n')).toMatch(/frame-ancestors/);
    expect(errors.join('\n')).toContain(dashBase);
    expect(await received(page)).toEqual([]);
    await context.close();
  });

  it("the page's script listens to Salla's hosts only: another host's answer to the handshake is ignored", async () => {
    // from `localhost` (a host the SDK accepts) the handshake goes through: the page is ready
    const salla = await openDashboard(dashBase, '', '&script-only');
    await expect.poll(() => events(salla.page), { timeout: 5_000 }).toContain('embedded::ready');
    await salla.context.close();

    // from 127.0.0.1 the SDK hears the same answer and drops it: no title, no ready, and after the
    // SDK's 10 s wait for the dashboard's context the page reads as opened outside Salla
    const { context, page } = await openDashboard(otherBase, '', '&script-only');
    await expect.poll(() => events(page), { timeout: 5_000 }).toContain('embedded::iframe.ready');
    const frame = page.frameLocator('iframe');
    await expect.poll(() => frame.locator('html').getAttribute('data-salla'), { timeout: 15_000 }).toBe('alone');
    expect(await events(page)).toEqual(['embedded::iframe.ready']);
    await context.close();
  }, 30_000);
});
