import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchChromium } from './chromium.ts';
import { freePort } from './cluster.ts';
import { buildTestApp, closeTestApp, type TestApp } from './helper.ts';
import { installFromZid, ZidSimulator } from './zid-sim.ts';

const STORE = 6006;
const KHAMRAH = '0b7c5f4e-2222-4a6b-9c0d-000000000001';
const ASAD = '0b7c5f4e-2222-4a6b-9c0d-000000000002';

/**
 * A page as a Zid theme renders it: the theme's globals first, on the thank-you page Zid's own
 * `sendPurchaseEvent` (here a stand-in that records its calls), and the App Script last in the body.
 */
const zidPage = (title: string) => `<!doctype html>
<html lang="ar" dir="rtl"><head><meta charset="utf-8"><title>${title}</title>
<script>
  window.customer = {};
  window.customerAuthState = { isAuthenticated: false, isGuest: true };
</script>
</head>
<body><h1>${title}</h1>
${
  title === 'thank-you'
    ? `<script>
  window.__zidCalls = [];
  window.sendPurchaseEvent = function (order) {
    window.__zidCalls.push(order);
    return 'zid:' + (order && order.id);
  };
</script>`
    : ''
}
<script src="/api/platforms/zid/stores/${STORE}/script.js"></script>
</body></html>`;

describe.skipIf(!CHROMIUM)("the Zid app's storefront script in Chromium", () => {
  let app: TestApp;
  let sim: ZidSimulator;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    sim = await new ZidSimulator().start();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp(
      {
        PORT: String(port),
        PUBLIC_BASE_URL: base,
        ...sim.env(),
      },
      (a) => {
        a.get('/zid-store/:page', { schema: { hide: true } }, async (request, reply) => {
          reply.type('text/html; charset=utf-8');
          return zidPage((request.params as { page: string }).page);
        });
      },
    );
    await app.listen({ port, host: '127.0.0.1' });
    // the store lives at this origin: its live key allows it
    sim.addStore(
      STORE,
      [
        { id: KHAMRAH, name: 'لطافة خمرة أو دو بارفان', nameEn: 'Lattafa Khamrah EDP', price: 250 },
        { id: ASAD, name: 'Asad EDP 100ml', price: 180 },
      ],
      { url: `${base}/` },
    );
    const { callback } = await installFromZid(app, sim, STORE);
    expect(callback.statusCode, callback.body).toBe(303);
    await app.jobs.drain();
    // the App Script the store got is the one the pages load
    expect(sim.stores.get(STORE)?.scripts).toEqual([{ url: `${base}/api/platforms/zid/stores/${STORE}/script.js` }]);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await closeTestApp(app);
    await sim?.stop();
  });

  const purchasesOf = async (orderId: string) => {
    const r = await app.db.execute(
      (await import('drizzle-orm')).sql`select session_id, total from purchases where order_id = ${orderId}`,
    );
    return (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as {
      session_id: string | null;
      total: string | number;
    }[];
  };

  const liveKey = async () =>
    (await app.inject({ method: 'GET', url: `/api/platforms/zid/stores/${STORE}/widget` })).json()
      .publishable_key as string;

  /** The shopper's session the widget keeps for the key in this browser. */
  const sessionIn = async (page: Page) => {
    const name = `sillage:session:${(await liveKey()).slice(0, 16)}`;
    const saved = (await page.evaluate(`localStorage.getItem(${JSON.stringify(name)})`)) as string | null;
    return saved ? (JSON.parse(saved) as { id: string }).id : null;
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

  it('shows the widget with the store’s own live key', async () => {
    const { page, errors } = await open('/zid-store/home');
    await expect.poll(() => page.locator('sillage-quiz .launcher').isVisible(), { timeout: 15_000 }).toBe(true);
    const loaded = (await page.evaluate(`(() => {
      const s = document.querySelector('script[src$="/widget/v1/sillage.js"]');
      return s ? { key: s.getAttribute('data-key'), locale: s.getAttribute('data-locale') } : null;
    })()`)) as { key: string | null; locale: string | null } | null;
    const key = await liveKey();
    expect(key).toMatch(/^pk_live_/);
    expect(loaded).toEqual({ key, locale: 'ar' });
    // the page's own globals are left as the theme set them
    expect(await page.evaluate('window.customerAuthState')).toEqual({ isAuthenticated: false, isGuest: true });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("reports Zid's sendPurchaseEvent once however often it fires, still calls Zid's, and order.create does not count it again", async () => {
    const order = {
      id: 80001,
      order_total: '250.00',
      currency_code: 'SAR',
      products: [{ id: KHAMRAH, quantity: 1, price: 250 }],
    };
    const { page, errors } = await open('/zid-store/thank-you');
    await page.waitForFunction('window.Sillage?.ready === true', undefined, { timeout: 15_000 });
    const fire = () => page.evaluate(`window.sendPurchaseEvent(${JSON.stringify(order)})`);
    // Zid's own function answers as before
    expect(await fire()).toBe('zid:80001');
    await expect.poll(async () => (await purchasesOf('80001')).length, { timeout: 10_000 }).toBe(1);
    // a double fire on the same page
    expect(await fire()).toBe('zid:80001');
    expect(await page.evaluate('window.__zidCalls')).toEqual([order, order]);
    const session = await sessionIn(page);
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
    // a reload of the thank-you page fires it again
    await page.reload();
    await page.waitForFunction('window.Sillage?.ready === true', undefined, { timeout: 15_000 });
    expect(await fire()).toBe('zid:80001');
    expect(await page.evaluate('window.__zidCalls')).toEqual([order]);
    await new Promise((r) => setTimeout(r, 500));
    let rows = await purchasesOf('80001');
    expect(rows).toHaveLength(1);
    expect(rows[0]?.session_id).toBe(session);
    expect(Number(rows[0]?.total)).toBe(250);

    // and Zid's webhook for the same order
    const hook = await app.inject(
      sim.webhook(STORE, 'order.create', sim.order(STORE, 80001, [{ product: KHAMRAH, price: 250 }])),
    );
    expect(hook.statusCode, hook.body).toBe(200);
    await app.jobs.drain();
    rows = await purchasesOf('80001');
    expect(rows).toHaveLength(1);
    expect(rows[0]?.session_id).toBe(session);
    // the same webhook for an order no browser reported is a purchase of its own, without a session
    await app.inject(sim.webhook(STORE, 'order.create', sim.order(STORE, 80009, [{ product: ASAD, price: 180 }])));
    await app.jobs.drain();
    expect(await purchasesOf('80009')).toEqual([expect.objectContaining({ session_id: null })]);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("counts SillageZid.purchase with Zid's Purchase parameters once", async () => {
    const purchase = {
      id: '80002',
      total: 180,
      currency: 'SAR',
      transactionItems: [{ id: ASAD, price: 180, quantity: 1 }],
    };
    const { page, errors } = await open('/zid-store/thank-you');
    await page.waitForFunction('window.Sillage?.ready === true', undefined, { timeout: 15_000 });
    const fire = () => page.evaluate(`window.SillageZid.purchase(${JSON.stringify(purchase)})`);
    await fire();
    await expect.poll(async () => (await purchasesOf('80002')).length, { timeout: 10_000 }).toBe(1);
    await fire();
    await new Promise((r) => setTimeout(r, 500));
    const rows = await purchasesOf('80002');
    expect(rows).toHaveLength(1);
    expect(rows[0]?.session_id).toBe(await sessionIn(page));
    expect(rows[0]?.session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(rows[0]?.total)).toBe(180);
    // not Zid's function: that one is for the page's own calls
    expect(await page.evaluate('window.__zidCalls')).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
