/**
 * The Shopify app in Chromium, on pages dressed as a Shopify theme on the shop's primary domain
 * (`window.Shopify` set before, and at the end of the body the tag the app embed block outputs once
 * the app-owned metafield is set, with the address the service wrote there at install). The widget
 * appears with the shop's own live key, in Arabic, and in English where `Shopify.locale` says so.
 * The shopper takes the quiz and clicks a recommendation; on the thank-you page of the same shop the
 * app's web pixel (its own `src/index.js` and `src/purchase.js`, with a stand-in for Shopify's
 * `register` carrying the settings the service gave the pixel at install) reads the session from
 * the storefront's local storage and reports the `checkout_completed` order: the service accepts it
 * (202) from that origin, stores the purchase with the widget's session, attributed; Shopify's
 * `orders/create` for the same order does not count it again. Shopify runs the pixel in a sandbox
 * this cannot reproduce: here it runs in the page.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchChromium } from './chromium.ts';
import { freePort } from './cluster.ts';
import { buildTestApp, closeTestApp, type TestApp } from './helper.ts';
import { installFromShopify, ShopifySimulator } from './shopify-sim.ts';

const SHOP = 'browser-shop';
const DOMAIN = `${SHOP}.sim.example`;
const ORIGIN = `https://${DOMAIN}`;
const KHAMRAH = 9101;
const SAUVAGE = 9102;
const ASAD = 9103;
const PIXEL = join(import.meta.dirname, '..', 'apps', 'shopify', 'extensions', 'sillage-pixel', 'src');
const THANK_YOU = '/checkouts/c/abc/thank-you';
/** a 1×1 PNG: the products' pictures on Shopify's CDN */
const PICTURE = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/** A page as a Shopify theme renders it: `window.Shopify` first, the app embed's tag last in the body. */
const themePage = (title: string, locale: 'ar' | 'en', scriptUrl: string) => `<!doctype html>
<html lang="${locale}" dir="${locale === 'ar' ? 'rtl' : 'ltr'}"><head><meta charset="utf-8"><title>${title}</title>
<script>
  window.Shopify = { shop: '${SHOP}.myshopify.com', locale: '${locale}', currency: { active: 'SAR', rate: '1.0' } };
</script>
</head>
<body><h1>${title}</h1>
<script src="${scriptUrl}" defer></script>
</body></html>`;

/**
 * The thank-you page: no theme script (Shopify runs none on checkout pages), the pixel's own files
 * as modules, `@shopify/web-pixels-extension` mapped to the stand-in.
 */
const checkoutPage = `<!doctype html>
<html lang="ar" dir="rtl"><head><meta charset="utf-8"><title>thank you</title>
<script type="importmap">{ "imports": { "@shopify/web-pixels-extension": "/wpm/web-pixels-extension.js" } }</script>
</head>
<body><h1>شكرًا لطلبك</h1>
<script type="module" src="/wpm/sillage-pixel/src/index.js"></script>
</body></html>`;

/** Shopify's `register` as the strict sandbox gives it: the pixel's settings, an analytics bus, the top frame's localStorage (a promise). */
const webPixelsExtension = (settings: unknown) => `
export function register(fn) {
  fn({
    settings: ${JSON.stringify(settings)},
    analytics: {
      subscribe(name, cb) {
        (window.__subscribed = window.__subscribed || []).push(name);
        if (name === 'checkout_completed') window.__fire = cb;
      },
    },
    browser: { localStorage: { getItem: (k) => Promise.resolve(localStorage.getItem(k)) } },
  });
}
`;

describe.skipIf(!CHROMIUM)('the Shopify app in Chromium', () => {
  let app: TestApp;
  let sim: ShopifySimulator;
  let browser: Browser;
  let base: string;
  let scriptUrl: string;
  let settings: { base: string; key: string };
  let storefront: { context: BrowserContext; page: Page; errors: string[] } | null = null;
  /** the session the widget scored the shopper's quiz with */
  let quizSession = '';

  beforeAll(async () => {
    sim = await new ShopifySimulator().start();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp({ PORT: String(port), PUBLIC_BASE_URL: base, ...sim.env() });
    await app.listen({ port, host: '127.0.0.1' });
    sim.addShop(
      SHOP,
      [
        { id: KHAMRAH, title: 'Khamrah Eau de Parfum', vendor: 'Lattafa', variants: [{ title: '100ml', price: 250 }] },
        {
          id: SAUVAGE,
          title: 'Sauvage Eau de Toilette',
          vendor: 'Dior',
          variants: [{ title: '100ml', price: 520 }],
        },
        { id: ASAD, title: 'Asad Eau de Parfum', vendor: 'Lattafa', variants: [{ title: '100ml', price: 180 }] },
      ],
      { name: 'متجر المتصفح', domain: DOMAIN },
    );
    const { callback } = await installFromShopify(app, sim, SHOP);
    expect(callback.statusCode, callback.body).toBe(303);
    await app.jobs.drain();
    // what the app embed block outputs: the metafield's value, as Shopify holds it
    const shop = sim.shops.get(SHOP);
    scriptUrl = shop?.metafields.find((m) => m.namespace === 'sillage' && m.key === 'script_url')?.value ?? '';
    expect(scriptUrl).toBe(`${base}/api/platforms/shopify/shops/${SHOP}/script.js`);
    settings = JSON.parse(shop?.pixel?.settings ?? '{}');
    expect(settings).toEqual({ base, key: await liveKey() });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await storefront?.context.close();
    await browser?.close();
    await closeTestApp(app);
    await sim?.stop();
  });

  const rows = (r: unknown) =>
    (Array.isArray(r) ? r : ((r as { rows: unknown[] }).rows ?? [])) as Record<string, unknown>[];
  const purchasesOf = async (orderId: string) =>
    rows(
      await app.db.execute(
        sql`select session_id, total, currency, attributed from purchases where order_id = ${orderId}`,
      ),
    );
  const eventsOf = async (session: string, type: string) =>
    rows(await app.db.execute(sql`select data from events where session_id = ${session}::uuid and type = ${type}`));

  async function liveKey() {
    return (await app.inject({ method: 'GET', url: `/api/platforms/shopify/shops/${SHOP}/widget` })).json()
      .publishable_key as string;
  }
  const sessionName = async () => `sillage:session:${(await liveKey()).slice(0, 16)}`;

  /** A browser context in which the shop's domain is served by the theme (and may call the service on loopback). */
  async function shopContext(locale: 'ar' | 'en') {
    const context = await browser.newContext({ viewport: { width: 420, height: 860 } });
    // the shop's pages are not on loopback, as the service is: Chromium asks before they may call it
    await context.grantPermissions(['local-network-access'], { origin: ORIGIN });
    await context.route(`${ORIGIN}/**`, (route: Route) => {
      const path = new URL(route.request().url()).pathname;
      const js = (body: string) => route.fulfill({ contentType: 'text/javascript; charset=utf-8', body });
      if (path === '/wpm/web-pixels-extension.js') return js(webPixelsExtension(settings));
      if (path === '/wpm/sillage-pixel/src/index.js') return js(readFileSync(join(PIXEL, 'index.js'), 'utf8'));
      if (path === '/wpm/sillage-pixel/src/purchase.js') return js(readFileSync(join(PIXEL, 'purchase.js'), 'utf8'));
      const html = (body: string) => route.fulfill({ contentType: 'text/html; charset=utf-8', body });
      if (path === THANK_YOU) return html(checkoutPage);
      if (path === '/' || path.startsWith('/products/')) return html(themePage(path, locale, scriptUrl));
      return route.fulfill({ status: 404, body: 'not found' });
    });
    await context.route('https://cdn.shopify.sim.example/**', (route: Route) =>
      route.fulfill({ contentType: 'image/png', body: PICTURE }),
    );
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' || m.text().startsWith('Sillage:')) errors.push(`${m.type()}: ${m.text()}`);
    });
    return { context, page, errors };
  }

  /** The widget's script tag as the storefront script added it, and the widget element's own attributes. */
  const loaded = (page: Page) =>
    page.evaluate(`(() => {
      const s = document.querySelector('script[src$="/widget/v1/sillage.js"]');
      const el = document.querySelector('sillage-quiz');
      return {
        script: s && { key: s.getAttribute('data-key'), locale: s.getAttribute('data-locale'), base: s.getAttribute('data-base-url') },
        element: el && { key: el.getAttribute('key'), locale: el.getAttribute('locale') },
      };
    })()`) as Promise<{
      script: { key: string; locale: string; base: string } | null;
      element: { key: string; locale: string } | null;
    }>;

  it('shows the widget on the storefront with the shop’s live key, in Arabic; English where Shopify.locale is en', async () => {
    const key = await liveKey();
    expect(key).toMatch(/^pk_live_/);

    storefront = await shopContext('ar');
    const { page, errors } = storefront;
    await page.goto(`${ORIGIN}/`);
    const launcher = page.locator('sillage-quiz .launcher');
    await expect.poll(() => launcher.isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await loaded(page)).toEqual({
      script: { key, locale: 'ar', base },
      element: { key, locale: 'ar' },
    });
    expect(await launcher.textContent()).toContain('اكتشف عطرك');
    // the theme's globals are left as it set them
    expect(await page.evaluate('window.Shopify.shop')).toBe(`${SHOP}.myshopify.com`);
    expect(errors).toEqual([]);

    const en = await shopContext('en');
    try {
      await en.page.goto(`${ORIGIN}/`);
      const enLauncher = en.page.locator('sillage-quiz .launcher');
      await expect.poll(() => enLauncher.isVisible(), { timeout: 15_000 }).toBe(true);
      expect(await loaded(en.page)).toEqual({
        script: { key, locale: 'en', base },
        element: { key, locale: 'en' },
      });
      expect(await enLauncher.textContent()).toContain('Find your scent');
      expect(en.errors).toEqual([]);
    } finally {
      await en.context.close();
    }
  }, 60_000);

  it('the shopper takes the quiz and clicks a recommendation: the session is kept in the storefront’s local storage', async () => {
    if (!storefront) throw new Error('the storefront page did not open');
    const { page, errors } = storefront;
    const scored: string[] = [];
    page.on('request', (r) => {
      if (r.url() === `${base}/api/widget/score`) scored.push(JSON.parse(r.postData() ?? '{}').session_id);
    });
    await page.locator('sillage-quiz .launcher').click();
    await page.locator('sillage-quiz .panel .primary').click(); // start
    await page.locator('sillage-quiz .actions .primary').click(); // for whom: no preference
    const field = page.locator('sillage-quiz [role=combobox]');
    await field.pressSequentially('خمرة');
    await page.locator('sillage-quiz [role=option]').first().waitFor({ timeout: 10_000 });
    await field.press('ArrowDown');
    await field.press('Enter');
    await page.locator('sillage-quiz .pick').waitFor();
    await page.locator('sillage-quiz .actions .secondary').getByText('اعرض ما يناسبني').click();
    const first = page.locator('sillage-quiz .cards').first().locator('.card').first();
    await first.waitFor({ timeout: 10_000 });
    // the perfume the shopper loves is on the shelf: the shop's Khamrah, first
    expect(await first.locator('.like').textContent()).toBe('العطر الذي تحبه');
    expect(await first.locator('a.link').getAttribute('href')).toBe(`${ORIGIN}/products/khamrah-eau-de-parfum`);

    expect(scored.length).toBeGreaterThan(0);
    quizSession = scored[0] as string;
    expect(quizSession).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(scored)).toEqual(new Set([quizSession]));
    const saved = (await page.evaluate(`localStorage.getItem(${JSON.stringify(await sessionName())})`)) as
      | string
      | null;
    expect(saved).not.toBeNull();
    expect(JSON.parse(saved as string)).toMatchObject({ id: quizSession, at: expect.any(Number) });

    // to the product's page on the shop, the click reported on the way
    await Promise.all([page.waitForURL(`${ORIGIN}/products/khamrah-eau-de-parfum`), first.locator('a.link').click()]);
    await expect
      .poll(async () => (await eventsOf(quizSession, 'recommendation_clicked')).length, { timeout: 15_000 })
      .toBe(1);
    expect((await eventsOf(quizSession, 'recommendation_clicked'))[0]?.data).toMatchObject({
      merchant_product_id: String(KHAMRAH),
      position: 1,
    });
    // the product page loads the widget again, in the same session
    await expect.poll(() => page.locator('sillage-quiz .launcher').isVisible(), { timeout: 15_000 }).toBe(true);
    expect(errors).toEqual([]);
  }, 60_000);

  it("the web pixel reports checkout_completed from the shop's thank-you page with the quiz's session; orders/create does not count it again", async () => {
    if (!storefront || !quizSession) throw new Error('the quiz was not taken');
    const { page, errors } = storefront;
    await page.goto(`${ORIGIN}${THANK_YOU}`);
    await page.waitForFunction('typeof window.__fire === "function"', undefined, { timeout: 15_000 });
    expect(await page.evaluate('window.__subscribed')).toEqual(['checkout_completed']);
    // the checkout page runs no theme script: no widget here
    expect(await page.locator('sillage-quiz').count()).toBe(0);

    const checkout = {
      order: { id: 'gid://shopify/Order/5550001' },
      totalPrice: { amount: 250 },
      currencyCode: 'SAR',
      lineItems: [
        { quantity: 1, variant: { price: { amount: 250 }, product: { id: `gid://shopify/Product/${KHAMRAH}` } } },
      ],
    };
    const answered = page.waitForResponse(
      (r) => r.url() === `${base}/api/widget/event` && (r.request().postData() ?? '').includes('purchase_completed'),
      { timeout: 15_000 },
    );
    await page.evaluate(
      `window.__fire(${JSON.stringify({ id: 'evt-1', name: 'checkout_completed', data: { checkout } })})`,
    );
    const response = await answered;
    const sent = JSON.parse(response.request().postData() ?? '{}');
    expect(response.request().headers()['content-type']).toBe('text/plain;charset=UTF-8');
    expect(response.status(), await response.text()).toBe(202);
    expect(await response.headerValue('access-control-allow-origin')).toBe('*');
    expect(sent).toEqual({
      api_key: settings.key,
      events: [
        {
          type: 'purchase_completed',
          event_id: 'purchase:5550001',
          occurred_at: expect.any(String),
          session_id: quizSession,
          order_id: '5550001',
          total: 250,
          currency: 'SAR',
          items: [{ merchant_product_id: String(KHAMRAH), quantity: 1, price: 250 }],
        },
      ],
    });
    // the origin the pixel posted from, which the live key allows
    expect(await response.request().headerValue('origin')).toBe(ORIGIN);

    let found = await purchasesOf('5550001');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ session_id: quizSession, currency: 'SAR', attributed: true });
    expect(Number(found[0]?.total)).toBe(250);

    // Shopify's webhook for the same order
    const hook = await app.inject(
      sim.webhook(SHOP, 'orders/create', sim.order(5550001, [{ product: KHAMRAH, price: 250 }])),
    );
    expect(hook.statusCode, hook.body).toBe(200);
    await app.jobs.drain();
    found = await purchasesOf('5550001');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ session_id: quizSession, attributed: true });
    expect(Number(found[0]?.total)).toBe(250);
    expect(errors).toEqual([]);
  }, 60_000);
});
