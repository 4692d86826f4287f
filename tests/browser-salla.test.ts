import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchChromium } from './chromium.ts';
import { freePort } from './cluster.ts';
import { buildTestApp, closeTestApp, type TestApp } from './helper.ts';
import { SallaSimulator, webhookRequest } from './salla-sim.ts';

const SECRET = 'salla-webhook-secret-0123456789';
const STORE = 3003;

/** A page as a Salla theme renders it: the SDK first (Twilight's body:end), the app's snippet after. */
const sallaPage = (title: string) => `<!doctype html>
<html lang="ar" dir="rtl"><head><meta charset="utf-8"><title>${title}</title></head>
<body><h1>${title}</h1>
<script>
  (function () {
    var values = { 'store.id': ${STORE}, 'store.lang': 'ar', 'store.currency': 'SAR', 'user.id': null };
    var ready = [];
    var trackers = [];
    window.salla = window.Salla = {
      config: { get: function (k) { return values[k] === undefined ? null : values[k]; } },
      onReady: function (cb) { ready.push(cb); },
      analytics: {
        registerTracker: function (t) { trackers.push(t); },
        // what Salla's Pixels layer does on the order's page
        track: function (name, payload) { trackers.forEach(function (t) { t.track(name, payload); }); }
      }
    };
    document.addEventListener('DOMContentLoaded', function () { ready.forEach(function (cb) { cb(); }); });
  })();
</script>
<script src="/api/platforms/salla/snippet.js"></script>
</body></html>`;

describe.skipIf(!CHROMIUM)("the Salla app's storefront script in Chromium", () => {
  let app: TestApp;
  let sim: SallaSimulator;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    sim = await new SallaSimulator().start();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp(
      {
        PORT: String(port),
        PUBLIC_BASE_URL: base,
        ...sim.env(SECRET),
      },
      (a) => {
        a.get('/salla-store/:page', { schema: { hide: true } }, async (request, reply) => {
          reply.type('text/html; charset=utf-8');
          return sallaPage((request.params as { page: string }).page);
        });
      },
    );
    await app.listen({ port, host: '127.0.0.1' });
    // the store lives at this origin: its live key allows it
    sim.addStore(
      STORE,
      [
        { id: 101, name: 'Khamrah Eau de Parfum 100ml', price: 250 },
        { id: 102, name: 'Asad EDP 100ml', price: 180 },
      ],
      { domain: base },
    );
    const hook = sim.authorize(STORE, SECRET);
    const r = await app.inject(webhookRequest(hook));
    expect(r.statusCode).toBe(200);
    await app.jobs.drain();
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await closeTestApp(app);
    await sim?.stop();
  });

  const purchasesOf = async (orderId: string) => {
    const r = await app.db.execute(
      (await import('drizzle-orm')).sql`select session_id from purchases where order_id = ${orderId}`,
    );
    return (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as { session_id: string | null }[];
  };

  async function open(path: string): Promise<{ page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width: 420, height: 860 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.text().startsWith('Sillage:')) errors.push(`${m.type()}: ${m.text()}`);
    });
    await page.goto(`${base}${path}`);
    return { page, errors };
  }

  it('shows the widget with the store’s own key, found from the store id', async () => {
    const { page, errors } = await open('/salla-store/home');
    await expect.poll(() => page.locator('sillage-quiz .launcher').isVisible(), { timeout: 15_000 }).toBe(true);
    const key = await page.evaluate(
      `document.querySelector('script[src$="/widget/v1/sillage.js"]')?.getAttribute('data-key') ?? null`,
    );
    const widget = await app.inject({ method: 'GET', url: `/api/platforms/salla/stores/${STORE}/widget` });
    expect(key).toBe(widget.json().publishable_key);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("reports Order Completed once, however often it fires, and Salla's order.created does not count it again", async () => {
    const order = {
      order_id: 7001,
      total: 250,
      currency: 'SAR',
      products: [{ product_id: 101, sku: 'SKU-101', quantity: 1, price: 250 }],
    };
    const { page, errors } = await open('/salla-store/thank-you');
    await page.waitForFunction('window.Sillage?.ready === true', undefined, { timeout: 15_000 });
    const fire = () => page.evaluate(`window.Salla.analytics.track('Order Completed', ${JSON.stringify(order)})`);
    await fire();
    await expect.poll(async () => (await purchasesOf('7001')).length, { timeout: 10_000 }).toBe(1);
    // a reload of the thank-you page fires it again
    await page.reload();
    await page.waitForFunction('window.Sillage?.ready === true');
    await fire();
    // and Salla's webhook for the same order
    const hook = sim.webhook(
      'order.created',
      STORE,
      {
        id: 7001,
        amounts: { total: { amount: 250, currency: 'SAR' } },
        items: [{ product: { id: 101 }, quantity: 1 }],
      },
      SECRET,
    );
    await app.inject(webhookRequest(hook));
    await app.jobs.drain();
    await new Promise((r) => setTimeout(r, 500));
    const rows = await purchasesOf('7001');
    expect(rows).toHaveLength(1);
    expect(rows[0]?.session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
