import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { createDatabase } from '../db/client.ts';
import { RECEIVING_HOLD_MS } from '../plugins/app/platforms.ts';
import {
  apiKeys,
  feedSources,
  merchantProducts,
  merchants,
  platformInstalls,
  platformWebhooks,
} from '../schema/index.ts';
import {
  buildTestApp,
  closeTestApp,
  createTestDatabase,
  expectPlatformOff,
  TEST_DATABASE_URL,
  type TestApp,
  testConfig,
} from './helper.ts';
import { SallaSimulator, type SimProduct, webhookRequest } from './salla-sim.ts';

/**
 * The Salla app end to end against a simulated Salla (tests/salla-sim.ts): the install webhook
 * makes a merchant with keys and imports the store's products, which the widget then recommends;
 * product webhooks are applied by reading the product again; the token refresh is sent once however
 * many ask for it at once; uninstall revokes, reinstall finds the same merchant; and every webhook
 * is refused without a trace unless it is signed by the app's secret.
 */
const SECRET = 'salla-webhook-secret-0123456789';
let sim: SallaSimulator;
let app: TestApp;
let env: Record<string, string>;

const SHELF: SimProduct[] = [
  { id: 101, name: 'Khamrah Eau de Parfum 100ml', price: 250 },
  { id: 102, name: 'Asad EDP 100ml', price: 180, sale: 150 },
  { id: 103, name: 'عطر بديع العود مجد للأبد 100 مل', price: 220 },
  { id: 104, name: 'Ana Abiyedh Rouge EDP 60ml', price: 120, status: 'out', quantity: 0 },
  { id: 105, name: 'Hidden draft', price: 10, status: 'hidden' },
];

async function send(hook: { body: string; signature: string }, signature: string | null = hook.signature) {
  return app.inject(webhookRequest(hook, signature));
}

const installOf = async (store: number) =>
  (
    await app.db
      .select()
      .from(platformInstalls)
      .where(eq(platformInstalls.storeId, String(store)))
  )[0];
const productsOf = async (merchantId: string) =>
  app.db.select().from(merchantProducts).where(eq(merchantProducts.merchantId, merchantId));
const webhookRows = async () => (await app.db.select({ n: sql<number>`count(*)::int` }).from(platformWebhooks))[0]?.n;

beforeAll(async () => {
  sim = await new SallaSimulator().start();
  env = sim.env(SECRET);
  app = await buildTestApp(env);
});
afterAll(async () => {
  await closeTestApp(app);
  await sim.stop();
});

describe('webhooks are refused without a trace unless Salla signed them', () => {
  it('a missing or wrong signature, a body that is not the envelope, or a store that never installed', async () => {
    sim.addStore(900, SHELF);
    const hook = sim.webhook('product.updated', 900, { id: 101 }, SECRET);
    const missing = await send(hook, null);
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toMatchObject({ code: 'invalid_signature' });
    expect((await send(hook, 'ab'.repeat(32))).json()).toMatchObject({ code: 'invalid_signature' });
    // signed with another secret
    expect((await send(sim.webhook('product.updated', 900, { id: 101 }, 'another-secret-0123456789'))).statusCode).toBe(
      401,
    );
    // the body changed after signing
    expect((await send({ body: hook.body.replace('101', '102'), signature: hook.signature })).statusCode).toBe(401);
    // signed, but this store never installed the app
    const unknown = await send(hook);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'unknown_store' });
    const notEnvelope = sim.webhook('x', 900, {}, SECRET);
    const bad = { body: '{"hello": 1}', signature: '' };
    bad.signature = (await import('node:crypto')).createHmac('sha256', SECRET).update(bad.body).digest('hex');
    expect((await send(bad)).json()).toMatchObject({ code: 'invalid_platform_webhook' });
    expect(notEnvelope.body).toContain('"event":"x"');
    expect(await webhookRows()).toBe(0);
  });
});

describe('the storefront script, and a service without the Salla app', () => {
  it('serves the App Snippet with this service’s address written in', async () => {
    const r = await app.inject({ method: 'GET', url: '/api/platforms/salla/snippet.js' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/javascript/);
    expect(r.body).toContain(`var BASE = ${JSON.stringify(app.config.publicBaseUrl)};`);
    expect(r.body).toContain("'Order Completed'");
    // it parses as a script
    expect(() => new Function(r.body)).not.toThrow();
  });

  it('answers 404 platform_not_configured everywhere when the app has no secrets', async () => {
    await expectPlatformOff([
      { method: 'GET' as const, url: '/api/platforms/salla/snippet.js' },
      { method: 'GET' as const, url: '/api/platforms/salla/stores/1/widget' },
      {
        method: 'POST' as const,
        url: '/api/platforms/salla/webhook',
        payload: '{}',
        headers: { 'content-type': 'application/json' },
      },
    ]);
  });
});

describe('install → import → recommendation', () => {
  it('app.store.authorize makes the merchant, its keys and its feed, and imports the products', async () => {
    sim.addStore(1001, SHELF, { name: 'متجر العطور', domain: 'https://perfumes.sim.example' });
    const answer = await send(sim.authorize(1001, SECRET));
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ received: true, duplicate: false });
    await app.jobs.drain();

    const install = await installOf(1001);
    expect(install).toMatchObject({ platform: 'salla', status: 'installed' });
    // tokens at rest are encrypted
    expect(install?.accessTokenEncrypted).toMatch(/^v1\./);
    expect(install?.accessTokenEncrypted).not.toContain(sim.stores.get(1001)?.accessToken);
    const [merchant] = await app.db
      .select()
      .from(merchants)
      .where(eq(merchants.id, install?.merchantId as string));
    expect(merchant).toMatchObject({ name: 'متجر العطور', slug: 'salla-1001' });
    const keys = await app.db
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.merchantId, merchant?.id as string));
    expect(keys.map((k) => [k.mode, k.allowedOrigins]).sort()).toEqual([
      ['live', ['https://perfumes.sim.example']],
      ['test', ['*']],
    ]);
    const [source] = await app.db
      .select()
      .from(feedSources)
      .where(eq(feedSources.merchantId, merchant?.id as string));
    expect(source).toMatchObject({ kind: 'salla', url: sim.apiUrl });

    // the hidden product is not the shop's to sell; the sold-out one is stored, never recommended
    const stored = await productsOf(merchant?.id as string);
    expect(stored.map((p) => p.merchantProductId).sort()).toEqual(['101', '102', '103', '104']);
    expect(stored.find((p) => p.merchantProductId === '104')?.available).toBe(false);
    expect(stored.find((p) => p.merchantProductId === '101')?.sillagePerfumeId).toBe('lattafa-khamrah-edp');

    // the storefront script finds the store's key, and the widget recommends the store's products
    const widget = await app.inject({ method: 'GET', url: '/api/platforms/salla/stores/1001/widget' });
    expect(widget.statusCode).toBe(200);
    expect(widget.headers['access-control-allow-origin']).toBe('*');
    const key = widget.json().publishable_key as string;
    expect(key).toMatch(/^pk_live_/);
    const score = await app.inject({
      method: 'POST',
      url: '/api/widget/score',
      headers: { origin: 'https://perfumes.sim.example' },
      payload: { api_key: key, limit: 12, quiz: { families: ['amber', 'gourmand', 'spicy', 'woody'] } },
    });
    expect(score.statusCode, score.body).toBe(200);
    const ids = (score.json().recommendations as { merchant_product_id: string }[]).map((r) => r.merchant_product_id);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids).not.toContain('104');
    for (const id of ids) expect(['101', '102', '103']).toContain(id);
  });

  it('a delivery sent again is worked once; app.installed arriving after its authorize changes nothing', async () => {
    // a later authorize (an app update), delivered twice
    const again = sim.authorize(1001, SECRET, new Date(Date.now() + 60_000));
    // the same bytes twice: the second is recognised
    const first = await send(again);
    const second = await send(again);
    expect(first.json().duplicate).toBe(false);
    expect(second.json()).toEqual({ received: true, duplicate: true });
    await send(sim.webhook('app.installed', 1001, {}, SECRET));
    await app.jobs.drain();
    const install = await installOf(1001);
    const rows = await app.db.select().from(merchants).where(eq(merchants.slug, 'salla-1001'));
    expect(rows).toHaveLength(1);
    expect(install?.merchantId).toBe(rows[0]?.id);
    // still one live key and one test key
    const keys = await app.db
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.merchantId, rows[0]?.id as string));
    expect(keys).toHaveLength(2);
  });
});

describe('product webhooks', () => {
  it('read the product again from Salla: the payload is never trusted alone', async () => {
    const store = sim.stores.get(1001);
    const install = await installOf(1001);
    // Salla says the price is now 199; the payload claims 1
    store?.products.set(101, { id: 101, name: 'Khamrah Eau de Parfum 100ml', price: 199 });
    await send(sim.webhook('product.updated', 1001, { id: 101, price: { amount: 1, currency: 'SAR' } }, SECRET));
    // a new product, and a deleted one
    store?.products.set(106, {
      id: 106,
      name: 'Hawas for Him EDP 100ml',
      price: 300,
      brand: { id: 8, name: 'Rasasi' },
    });
    await send(sim.webhook('product.created', 1001, { id: 106 }, SECRET));
    store?.products.delete(102);
    await send(sim.webhook('product.deleted', 1001, { id: 102 }, SECRET));
    // a listing that names only its brand's id: the house read from the store's brands
    store?.products.set(107, {
      id: 107,
      name: 'Oud Mood EDP 100ml',
      price: 240,
      brand: { id: 9, name: 'Lattafa' },
      brandIdOnly: true,
    });
    await send(sim.webhook('product.created', 1001, { id: 107 }, SECRET));
    await app.jobs.drain();
    const stored = await productsOf(install?.merchantId as string);
    expect(stored.find((p) => p.merchantProductId === '101')?.price).toBe(199);
    expect(stored.find((p) => p.merchantProductId === '106')).toMatchObject({ house: 'Rasasi', price: 300 });
    expect(stored.map((p) => p.merchantProductId)).not.toContain('102');
    expect(stored.find((p) => p.merchantProductId === '107')).toMatchObject({ house: 'Lattafa', price: 240 });
  });

  it('a burst of webhooks is acknowledged at once and each is worked once', async () => {
    const install = await installOf(1001);
    const N = 200;
    const answers = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        send(sim.webhook('product.updated', 1001, { id: 101 }, SECRET, new Date(Date.UTC(2026, 0, 1, 0, 0, i)))),
      ),
    );
    expect(answers.every((a) => a.statusCode === 200 && a.json().duplicate === false)).toBe(true);
    await app.jobs.drain(60_000);
    const rows = await app.db
      .select({
        status: platformWebhooks.status,
        attempts: platformWebhooks.attempts,
        body: platformWebhooks.bodyEncrypted,
      })
      .from(platformWebhooks)
      .where(eq(platformWebhooks.event, 'product.updated'));
    const burst = rows.filter((r) => r.status === 'done');
    expect(burst.length).toBeGreaterThanOrEqual(N);
    // worked once each, and the body is not kept after the work
    expect(rows.every((r) => r.attempts === 1 && r.body === null)).toBe(true);
    expect((await productsOf(install?.merchantId as string)).length).toBeGreaterThan(0);
  });
});

describe('a burst is acknowledged before it is worked', () => {
  it('a stored webhook waits while a delivery is being received, and is worked once it is answered', async () => {
    sim.addStore(1500, SHELF);
    await send(sim.authorize(1500, SECRET));
    await app.jobs.drain();
    const rowOf = async () =>
      (
        await app.db
          .select({ status: platformWebhooks.status })
          .from(platformWebhooks)
          .where(and(eq(platformWebhooks.storeId, '1500'), eq(platformWebhooks.event, 'product.updated')))
      )[0]?.status;
    // another delivery is still being received (its answer not sent yet)
    const answered = app.platforms.receiving();
    try {
      expect((await send(sim.webhook('product.updated', 1500, { id: 101 }, SECRET))).statusCode).toBe(200);
      await new Promise((r) => setTimeout(r, RECEIVING_HOLD_MS / 4));
      expect(await rowOf()).toBe('received');
    } finally {
      answered();
    }
    await app.jobs.drain();
    expect(await rowOf()).toBe('done');
  });

  it('deliveries that never stop still leave the work its turn: one job waits the whole hold, the next ones do not', async () => {
    const before = app.platforms.heldWhole();
    const neverAnswered = app.platforms.receiving();
    try {
      for (const id of [101, 102, 103]) {
        expect((await send(sim.webhook('product.updated', 1500, { id, n: 2 }, SECRET))).statusCode).toBe(200);
      }
      await app.jobs.drain();
    } finally {
      neverAnswered();
    }
    const rows = await app.db
      .select({ status: platformWebhooks.status })
      .from(platformWebhooks)
      .where(and(eq(platformWebhooks.storeId, '1500'), eq(platformWebhooks.event, 'product.updated')));
    expect(rows.map((r) => r.status)).toEqual(['done', 'done', 'done', 'done']);
    expect(app.platforms.heldWhole() - before).toBe(1);
  });
});

describe('orders', () => {
  const ORIGIN = 'https://perfumes.sim.example';
  const keyOf = async () =>
    (await app.inject({ method: 'GET', url: '/api/platforms/salla/stores/1001/widget' })).json()
      .publishable_key as string;
  const event = (key: string, body: object) =>
    app.inject({
      method: 'POST',
      url: '/api/widget/event',
      headers: { origin: ORIGIN, 'content-type': 'application/json' },
      payload: JSON.stringify({ api_key: key, ...body }),
    });
  const order = (id: number) => ({
    id,
    reference_id: id + 90000,
    currency: 'SAR',
    // now, as Salla writes it: the store's local time and its zone
    date: {
      date: new Date(Date.now() + 3 * 3600_000 + 60_000).toISOString().replace('T', ' ').replace('Z', '000'),
      timezone: 'Asia/Riyadh',
    },
    amounts: { total: { amount: 199, currency: 'SAR' } },
    items: [
      {
        id: 1,
        name: 'Khamrah',
        quantity: 1,
        product: { id: 101 },
        amounts: { total: { amount: 199, currency: 'SAR' } },
      },
    ],
  });
  const purchasesOf = async (orderId: string) =>
    (await app.db.execute(
      sql`select session_id, attributed, attributed_revenue from purchases where order_id = ${orderId}`,
    )) as unknown;
  const rowsOfResult = (r: unknown) =>
    (Array.isArray(r) ? r : ((r as { rows: unknown[] }).rows ?? [])) as {
      session_id: string | null;
      attributed: boolean;
      attributed_revenue: string | number;
    }[];

  it("an order reported by Salla and by the shopper's browser is counted once, and attributed", async () => {
    const key = await keyOf();
    const { scoredSession } = await import('./helper.ts');
    const session = await scoredSession(app, key, ORIGIN);
    expect(
      (
        await event(key, {
          session_id: session,
          type: 'recommendation_clicked',
          merchant_product_id: '101',
          position: 1,
        })
      ).statusCode,
    ).toBe(202);
    // Salla's webhook first: the order, without a session
    await send(sim.webhook('order.created', 1001, order(5001), SECRET));
    await app.jobs.drain();
    let rows = rowsOfResult(await purchasesOf('5001'));
    expect(rows).toEqual([expect.objectContaining({ session_id: null, attributed: false })]);
    // then the thank-you page: the same order takes the session, and so its attribution
    const browser = await event(key, {
      session_id: session,
      type: 'purchase_completed',
      order_id: '5001',
      total: 199,
      currency: 'SAR',
      items: [{ merchant_product_id: '101', quantity: 1, price: 199 }],
    });
    expect(browser.statusCode).toBe(202);
    rows = rowsOfResult(await purchasesOf('5001'));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ session_id: session, attributed: true });
    expect(Number(rows[0]?.attributed_revenue)).toBe(199);
  });

  it('the browser first, then the webhook: still one purchase, with its session', async () => {
    const key = await keyOf();
    const { scoredSession } = await import('./helper.ts');
    const session = await scoredSession(app, key, ORIGIN);
    await event(key, {
      session_id: session,
      type: 'purchase_completed',
      order_id: '5002',
      total: 199,
      currency: 'SAR',
      items: [{ merchant_product_id: '101', quantity: 1, price: 199 }],
    });
    await send(sim.webhook('order.created', 1001, order(5002), SECRET));
    await app.jobs.drain();
    const rows = rowsOfResult(await purchasesOf('5002'));
    expect(rows).toEqual([expect.objectContaining({ session_id: session })]);
    // an order without an id is not recorded, and the webhook says why
    await send(sim.webhook('order.created', 1001, { amounts: { total: { amount: 5 } } }, SECRET));
    await app.jobs.drain();
    const [failed] = await app.db
      .select()
      .from(platformWebhooks)
      .where(sql`${platformWebhooks.event} = 'order.created' and ${platformWebhooks.status} = 'failed'`);
    expect(failed?.error).toMatch(/without an id/);
    expect(failed?.bodyEncrypted).toBeNull();
  });
});

describe('tokens', () => {
  it('ten callers at once when the token is due: one refresh is sent, all get the new token', async () => {
    const install = await installOf(1001);
    await app.db
      .update(platformInstalls)
      .set({ tokenExpiresAt: new Date(Date.now() + 3600_000) })
      .where(eq(platformInstalls.id, install?.id as string));
    const before = sim.refreshCalls;
    const [source] = await app.db
      .select()
      .from(feedSources)
      .where(eq(feedSources.id, install?.feedSourceId as string));
    const tokens = await Promise.all(
      Array.from({ length: 10 }, async () => (await app.platforms.access(source as never)).secret),
    );
    expect(sim.refreshCalls - before).toBe(1);
    expect(new Set(tokens).size).toBe(1);
    expect(tokens[0]).toBe(sim.stores.get(1001)?.accessToken);
    expect(sim.stores.get(1001)?.revoked).toBe(false);
    // and the store's products still read with it
    const pulled = await app.feeds.pullNow(install?.feedSourceId as string, { force: true });
    expect(pulled.status).toBe('applied');
  });
});

describe('uninstall and reinstall', () => {
  it('uninstall revokes the keys and pauses the feed; installing again finds the same merchant', async () => {
    const install = await installOf(1001);
    const oldKey = (await app.inject({ method: 'GET', url: '/api/platforms/salla/stores/1001/widget' })).json()
      .publishable_key as string;
    await send(sim.webhook('app.uninstalled', 1001, {}, SECRET));
    await app.jobs.drain();
    const gone = await installOf(1001);
    expect(gone).toMatchObject({ status: 'uninstalled', accessTokenEncrypted: null, refreshTokenEncrypted: null });
    const verify = await app.inject({
      method: 'POST',
      url: '/api/widget/score',
      headers: { origin: 'https://perfumes.sim.example' },
      payload: { api_key: oldKey, quiz: { families: ['amber'] } },
    });
    expect(verify.statusCode).toBe(403);
    expect((await app.inject({ method: 'GET', url: '/api/platforms/salla/stores/1001/widget' })).statusCode).toBe(404);
    const [source] = await app.db
      .select()
      .from(feedSources)
      .where(eq(feedSources.id, install?.feedSourceId as string));
    expect(source?.paused).toBe(true);

    // reinstall
    await send(sim.authorize(1001, SECRET));
    await app.jobs.drain();
    const back = await installOf(1001);
    expect(back).toMatchObject({ status: 'installed', merchantId: install?.merchantId });
    const newKey = (await app.inject({ method: 'GET', url: '/api/platforms/salla/stores/1001/widget' })).json()
      .publishable_key as string;
    expect(newKey).not.toBe(oldKey);
    expect((await productsOf(install?.merchantId as string)).length).toBeGreaterThan(0);
  });
});

describe.runIf(TEST_DATABASE_URL)('two instances on one PostgreSQL', () => {
  it('ten token refreshes at once across two instances send one refresh', async () => {
    const { database, url, drop } = await createTestDatabase();
    const second = await createDatabase({ database: { kind: 'postgres', url: url as string } });
    const instances: Awaited<ReturnType<typeof buildApp>>[] = [];
    try {
      for (const d of [database, second]) {
        const a = await buildApp({ config: testConfig(env), database: d, logger: false });
        await a.ready();
        instances.push(a);
      }
      const [one, two] = instances as [TestApp, TestApp];
      sim.addStore(2002, SHELF.slice(0, 2));
      const hook = sim.authorize(2002, SECRET);
      await one.inject(webhookRequest(hook));
      await one.jobs.drain();
      await one.db
        .update(platformInstalls)
        .set({ tokenExpiresAt: new Date(Date.now() + 60_000) })
        .where(eq(platformInstalls.storeId, '2002'));
      const before = sim.refreshCalls;
      const [source] = await one.db.select().from(feedSources).where(eq(feedSources.kind, 'salla'));
      const tokens = await Promise.all(
        Array.from(
          { length: 10 },
          async (_, i) => (await (i % 2 ? two : one).platforms.access(source as never)).secret,
        ),
      );
      expect(sim.refreshCalls - before).toBe(1);
      expect(new Set(tokens).size).toBe(1);
      expect(sim.stores.get(2002)?.revoked).toBe(false);
    } finally {
      for (const a of instances) await a.close();
      await drop();
    }
  });
});
