/**
 * The screenshots of docs/platforms.md: what a merchant sees on the console's side, per platform,
 * made against the platform simulators of the tests (never a live store):
 *   npm run docs:screenshots
 * One service in this process (embedded PGlite in memory, on a free port of 127.0.0.1) with the
 * Salla, Zid, Shopify and WooCommerce apps pointed at tests/salla-sim.ts, tests/zid-sim.ts,
 * tests/shopify-sim.ts and tests/woo-sim.ts, installed as bench/platforms.ts and the platforms'
 * tests install them; each store a small shelf of perfumes, Arabic and English names, some known
 * to the catalogue and some not. Chromium (playwright-core, CHROMIUM_PATH or /usr/bin/chromium,
 * headless) signed in as each store's owner takes the pages in Arabic (the console's default) at
 * 1200×860, the viewport only, into docs/images/platforms/<platform>-<page>.png.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { createDatabase } from '../db/client.ts';
import { CHROMIUM, launchChromium } from '../tests/chromium.ts';
import { freePort } from '../tests/cluster.ts';
import { SallaSimulator, type SimProduct } from '../tests/salla-sim.ts';
import { type ShopifySimProduct, ShopifySimulator } from '../tests/shopify-sim.ts';
import { type WooSimProduct, WooSimulator } from '../tests/woo-sim.ts';
import { cookieOf, type ZidSimProduct, ZidSimulator } from '../tests/zid-sim.ts';

const OUT = fileURLToPath(new URL('../docs/images/platforms/', import.meta.url));
const VIEWPORT = { width: 1200, height: 860 };
/** Salla's dashboard's bar above the app's frame, in CSS pixels */
const SALLA_BAR = 48;
const SECRET = 'docs-salla-webhook-secret-0123';
const LEAD_KEY = 'ef'.repeat(32);

// ---------- the stores ----------

const SALLA_STORE = 5101;
const SALLA_NAME = 'متجر العود الملكي';
const SALLA_SHELF: SimProduct[] = [
  { id: 101, name: 'Khamrah Eau de Parfum 100ml', brand: { id: 7, name: 'Lattafa' }, price: 250 },
  { id: 102, name: 'Asad EDP 100ml', brand: { id: 7, name: 'Lattafa' }, price: 180, sale: 150 },
  { id: 103, name: 'عطر بديع العود مجد للأبد 100 مل', brand: { id: 7, name: 'Lattafa' }, price: 220 },
  { id: 104, name: 'Sauvage Eau de Toilette 100ml', brand: { id: 8, name: 'Dior' }, price: 520 },
  { id: 105, name: 'مسك الطهارة الأبيض 50 مل', brand: { id: 9, name: 'عطور الديرة' }, price: 45 },
  { id: 106, name: 'Zz Unknown House Blend 50ml', brand: { id: 10, name: 'Zz House' }, price: 90 },
];

const ZID_STORE = 5001;
const uuid = (n: number) => `0b7c5f4e-1111-4a6b-9c0d-${String(n).padStart(12, '0')}`;
const ZID_SHELF: ZidSimProduct[] = [
  {
    id: uuid(1),
    name: 'لطافة خمرة أو دو بارفان',
    nameEn: 'Lattafa Khamrah EDP',
    price: 250,
    sizes: [
      { label: '100 مل', price: 250 },
      { label: '50 مل', price: 160 },
    ],
  },
  { id: uuid(2), name: 'Asad EDP 100ml', price: 180, sale: 150, infinite: true },
  { id: uuid(3), name: 'عطر بديع العود مجد للأبد 100 مل', price: 220 },
  { id: uuid(4), name: 'بخور الورد الطائفي 100 جم', brand: 'عطور الورد', price: 60 },
  { id: uuid(5), name: 'Zz Unknown House Blend 50ml', brand: 'Zz House', price: 90 },
];

const SHOPIFY_SHOP = 'oud-house';
const SHOPIFY_SHELF: ShopifySimProduct[] = [
  {
    id: 7001,
    title: 'Khamrah Eau de Parfum',
    vendor: 'Lattafa',
    variants: [
      { title: '100ml', price: 250 },
      { title: '50ml', price: 160 },
    ],
  },
  { id: 7002, title: 'Asad EDP 100ml', vendor: 'Lattafa', variants: [{ title: '100ml', price: 180 }] },
  { id: 7003, title: 'عطر بديع العود مجد للأبد 100 مل', vendor: 'Lattafa', variants: [{ title: '100ml', price: 220 }] },
  { id: 7004, title: 'Oud Mood Gift Set', vendor: 'Zz House', variants: [{ title: 'Set', price: 300 }] },
];

const WOO_STORE = 'attar';
const WOO_SHELF: WooSimProduct[] = [
  { id: 101, name: 'عطر خمرة أو دو بارفان 100 مل', brand: 'لطافة', price: 220, sale: 180 },
  { id: 102, name: 'Sauvage Eau de Toilette 100ml', brand: 'Dior', price: 520 },
  { id: 103, name: 'Asad EDP 100ml', brand: 'Lattafa', price: 150 },
  { id: 104, name: 'دهن عود كمبودي 3 مل', brand: 'عطار المدينة', price: 400 },
];

// ---------- helpers ----------

/** Salla's dashboard as its app sees it: a bar, and the app's page framed under it (handshake answered). */
const dashboardPage = (src: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Salla dashboard</title>
<style>
  html, body { margin: 0; height: 100%; background: #f3f4f6; font-family: sans-serif; }
  .bar { height: ${SALLA_BAR}px; box-sizing: border-box; padding: 0 20px; display: flex; align-items: center;
    background: #6b7280; color: #fff; font-size: 16px; font-weight: 600; }
  iframe { display: block; border: 0; width: 100%; height: calc(100% - ${SALLA_BAR}px); background: #fff; }
</style></head>
<body><div class="bar">Salla dashboard</div>
<script>
  window.addEventListener('message', function (e) {
    var d = e.data || {};
    var frame = document.querySelector('iframe');
    if (d.event === 'embedded::iframe.ready' && frame && e.source === frame.contentWindow) {
      frame.contentWindow.postMessage(
        { event: 'embedded::context.provide', payload: { layout: { theme: 'light', locale: 'ar' } },
          timestamp: Date.now(), source: 'merchant-dashboard' },
        e.origin
      );
    }
  });
</script>
<iframe src="${src.replace(/&/g, '&amp;')}"></iframe>
</body></html>`;

/** The `Set-Cookie` headers of an answer, as `name=value`, for the next request of the same browser. */
const cookieNamed = (res: Response, name: string) => {
  const c = cookieOf(res.headers.getSetCookie(), name);
  if (!c) throw new Error(`${res.url} set no ${name} cookie (answered ${res.status})`);
  return c;
};

async function step(what: string, url: string, init: RequestInit = {}, expected = [302, 303]) {
  const res = await fetch(url, { redirect: 'manual', ...init });
  if (!expected.includes(res.status)) {
    throw new Error(`${what} (${url}) answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  }
  return res;
}

/** A context of its own per store: Arabic, the docs' viewport. */
const newContext = (browser: Browser) =>
  browser.newContext({ viewport: VIEWPORT, locale: 'ar-SA', deviceScaleFactor: 1, colorScheme: 'light' });

/** The console's session cookie (`console_session=…`) given to a browser at the service's address. */
async function signIn(context: BrowserContext, base: string, cookie: string) {
  const at = cookie.indexOf('=');
  await context.addCookies([
    {
      name: cookie.slice(0, at),
      value: cookie.slice(at + 1),
      domain: new URL(base).hostname,
      path: '/console',
      httpOnly: true,
      sameSite: 'Lax',
    },
  ]);
}

const made: string[] = [];
async function shoot(page: Page, name: string) {
  await page.evaluate('document.fonts.ready.then(() => true)');
  // no caret or focus ring that would differ from one run to the next
  await page.mouse.move(0, 0);
  const path = `${OUT}${name}.png`;
  await page.screenshot({ path, fullPage: false, animations: 'disabled', caret: 'hide' });
  made.push(path);
  console.log(`${name}.png  ${(statSync(path).size / 1024).toFixed(0)} KB`);
}

/** Opens a console page signed in; throws unless it answered 200 (a sign-in page would be a wrong picture). */
async function open(page: Page, url: string) {
  const res = await page.goto(url, { waitUntil: 'load' });
  if (res?.status() !== 200) throw new Error(`${url} answered ${res?.status()}`);
  if (new URL(page.url()).pathname !== new URL(url).pathname) throw new Error(`${url} went to ${page.url()}`);
}

// ---------- the run ----------

async function main() {
  if (!CHROMIUM) throw new Error('no Chromium: set CHROMIUM_PATH');
  mkdirSync(OUT, { recursive: true });

  const salla = await new SallaSimulator().start();
  const zid = await new ZidSimulator().start();
  const shopify = await new ShopifySimulator().start();
  const woo = await new WooSimulator().start();
  let appBase = '';
  // Salla's dashboard: `localhost`, a host Salla's embedded SDK listens to messages from
  const dashboard: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://dashboard.invalid');
    if (url.pathname !== '/') return void res.writeHead(url.pathname === '/favicon.ico' ? 204 : 404).end();
    const src = `${appBase}/console/salla/dashboard?token=${encodeURIComponent(url.searchParams.get('token') ?? '')}&lang=ar`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(dashboardPage(src));
  });
  await new Promise<void>((resolve) => dashboard.listen(0, '127.0.0.1', resolve));
  const dashBase = `http://localhost:${(dashboard.address() as AddressInfo).port}`;

  const port = await freePort();
  appBase = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    DATABASE_URL: 'memory:',
    LOG_LEVEL: 'silent',
    SEED_DEMO: 'false',
    LEAD_ENCRYPTION_KEY: LEAD_KEY,
    PORT: String(port),
    PUBLIC_BASE_URL: appBase,
    ...salla.env(SECRET),
    ...zid.env(),
    ...shopify.env(),
    ...woo.env(),
    SALLA_DASHBOARD_ORIGIN: dashBase,
  });
  const database = await createDatabase({ database: { kind: 'pglite', dataDir: null } });
  const app = await buildApp({ config, database, logger: false });
  let browser: Browser | null = null;
  try {
    await app.ready();
    await app.listen({ port, host: '127.0.0.1' });

    // Salla: Easy Mode's signed `app.store.authorize` installs the store
    salla.addStore(SALLA_STORE, SALLA_SHELF, { name: SALLA_NAME });
    const hook = salla.authorize(SALLA_STORE, SECRET);
    await step(
      "Salla's app.store.authorize",
      `${appBase}/api/platforms/salla/webhook`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-salla-signature': hook.signature },
        body: hook.body,
      },
      [200],
    );

    // Zid: the OAuth code flow, as the merchant's browser goes through it
    zid.addStore(ZID_STORE, ZID_SHELF, { title: 'عطور الورد' });
    zid.installing = ZID_STORE;
    const zidStart = await step('the Zid install', `${appBase}/console/zid/install`);
    const zidAuthorize = await step("Zid's authorize", zidStart.headers.get('location') as string);
    const zidBack = await step('the Zid callback', zidAuthorize.headers.get('location') as string, {
      headers: { cookie: cookieNamed(zidStart, 'zid_oauth_state') },
    });
    const zidSession = cookieNamed(zidBack, 'console_session');
    const zidConsole = new URL(zidBack.headers.get('location') as string, appBase).href;

    // Shopify: the admin's signed link, the shop's consent, the callback
    shopify.addShop(SHOPIFY_SHOP, SHOPIFY_SHELF, { name: 'بيت العود', domain: 'oud-house.sim.example' });
    const shStart = await step(
      'the Shopify install',
      `${appBase}/console/shopify/install?${shopify.adminQuery(SHOPIFY_SHOP)}`,
    );
    const shConsent = await step("Shopify's consent", shStart.headers.get('location') as string);
    const shBack = await step('the Shopify callback', shConsent.headers.get('location') as string, {
      headers: { cookie: cookieNamed(shStart, 'shopify_oauth_state') },
    });
    const shopifySession = cookieNamed(shBack, 'console_session');
    const shopifyConsole = new URL(shBack.headers.get('location') as string, appBase).href;

    // WooCommerce: the plugin's Connect, the store's key screen (WooCommerce posts the keys before
    // it sends the browser back), the return, and the plugin's claim with its secret
    woo.addStore(WOO_STORE, WOO_SHELF);
    const secret = randomBytes(32).toString('hex');
    const q = new URLSearchParams({
      store: woo.url(WOO_STORE),
      proof: createHash('sha256').update(secret).digest('hex'),
      email: `owner@${WOO_STORE}.sim.example`,
    });
    const wooStart = await step('the WooCommerce connect', `${appBase}/console/woocommerce/connect?${q}`);
    const wooScreen = await step("WooCommerce's key screen", wooStart.headers.get('location') as string);
    const posted = woo.posted.shift();
    if (!posted) throw new Error('WooCommerce posted no keys');
    await step(
      "WooCommerce's post of the keys",
      posted.url,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: posted.body },
      [200],
    );
    const wooBack = await step('the WooCommerce return', wooScreen.headers.get('location') as string, {
      headers: { cookie: cookieNamed(wooStart, 'woocommerce_connect') },
    });
    const wooSession = cookieNamed(wooBack, 'console_session');
    const token = new URL(wooBack.headers.get('location') as string).searchParams.get('sillage_connect') ?? '';
    const claimed = await step(
      "the plugin's claim",
      `${appBase}/api/platforms/woocommerce/connections/claim`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, secret }) },
      [200],
    );
    const claim = (await claimed.json()) as { console_url: string; webhook_secret: string; webhook_url: string };
    const wooStore = woo.stores.get(WOO_STORE);
    if (wooStore) wooStore.webhook = { secret: claim.webhook_secret, url: claim.webhook_url };

    // the imports, Zid's setup (webhooks, the storefront script), Shopify's pixel and metafield
    await app.jobs.drain(120_000);

    browser = await launchChromium(['--hide-scrollbars']);

    // (1) Salla: the app's page in Salla's dashboard, then the console it opens in a new tab
    {
      const context = await newContext(browser);
      const page = await context.newPage();
      await page.goto(`${dashBase}/?token=${encodeURIComponent(salla.dashboardToken(SALLA_STORE))}`);
      const frame = page.frameLocator('iframe');
      await frame.locator('html[data-salla="ready"]').waitFor({ state: 'attached', timeout: 15_000 });
      await frame
        .locator('a[data-open]')
        .waitFor({ timeout: 15_000 })
        .catch(async (err: Error) => {
          // the page said something else (no owner, a refused token): say what, not just a timeout
          const text = await frame
            .locator('body')
            .innerText({ timeout: 1_000 })
            .catch(() => '(no page)');
          throw new Error(`the app's page in Salla's dashboard shows no console link: ${text.trim()}`, { cause: err });
        });
      await shoot(page, 'salla-dashboard');
      const [tab] = await Promise.all([context.waitForEvent('page'), frame.locator('a[data-open]').click()]);
      await tab.waitForLoadState('load');
      const install = `**/console/m/salla-${SALLA_STORE}/install`;
      if (new URL(tab.url()).pathname === '/console/salla/enter') {
        // the service asks the merchant to confirm who they sign in as: shown, then confirmed as they would
        await shoot(tab, 'salla-enter');
        await Promise.all([
          tab.waitForURL(install, { timeout: 15_000 }),
          tab.locator('form button[type=submit]').click(),
        ]);
      }
      await tab.waitForURL(install, { timeout: 15_000 });
      await tab.waitForLoadState('load');
      await shoot(tab, 'salla-install');
      // (5) the shelf: which of the store's products are recognised
      await open(tab, `${appBase}/console/m/salla-${SALLA_STORE}/shelf`);
      await shoot(tab, 'salla-shelf');
      await context.close();
    }

    // (2) Zid, (3) Shopify, (4) WooCommerce: the install page the install lands on, the import done
    for (const [name, session, url] of [
      ['zid-install', zidSession, zidConsole],
      ['shopify-install', shopifySession, shopifyConsole],
      ['woocommerce-install', wooSession, claim.console_url],
    ] as const) {
      const context = await newContext(browser);
      await signIn(context, appBase, session);
      const page = await context.newPage();
      await open(page, url);
      await shoot(page, name);
      await context.close();
    }
  } finally {
    await browser?.close();
    await app.close();
    dashboard.closeAllConnections();
    await new Promise((r) => dashboard.close(r));
    await Promise.all([salla.stop(), zid.stop(), shopify.stop(), woo.stop()]);
  }
  console.log(`${made.length} screenshots in docs/images/platforms/`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
