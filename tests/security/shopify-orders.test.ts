import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_WEBHOOK_MAX_AGE_MS, signWebhook } from '../../platforms/shopify.ts';
import { platformInstalls } from '../../schema/index.ts';
import { buildTestApp, closeTestApp, type TestApp } from '../helper.ts';
import { installFromShopify, SHOPIFY_SECRET, type ShopifySimProduct, ShopifySimulator } from '../shopify-sim.ts';

/**
 * Shopify signs a webhook's body only, with the one secret of the app, the same for every shop:
 * `X-Shopify-Shop-Domain` and `X-Shopify-Webhook-Id` are not signed. A captured `orders/create` body
 * was counted again when sent with a new webhook id (after the customer's erasure too), and counted
 * for another shop when sent under that shop's header (issue 44, finding 9). An order is now known
 * by the order its signed body names, refused when its signed `order_status_url` names another
 * shop, counted only when the shop's own Admin API knows it, and not taken once older than a day.
 */
let sim: ShopifySimulator;
let app: TestApp;
const VICTIM = 'oud-victim';
const OTHER = 'oud-other';
const PRODUCT = 9101;
const SHELF: ShopifySimProduct[] = [
  { id: PRODUCT, title: 'Khamrah Eau de Parfum', vendor: 'Lattafa', variants: [{ title: '100ml', price: 250 }] },
];

const merchantOf = async (handle: string) =>
  (await app.db.select().from(platformInstalls).where(eq(platformInstalls.storeId, handle)))[0]?.merchantId as string;
const rows = (r: unknown) =>
  (Array.isArray(r) ? r : ((r as { rows: unknown[] }).rows ?? [])) as Record<string, unknown>[];
/** The purchases of an order, by the shop whose merchant holds them. */
async function countedFor(orderId: number) {
  const found = rows(
    await app.db.execute(
      sql`select i.store_id from purchases p join platform_installs i on i.merchant_id = p.merchant_id
          where p.order_id = ${String(orderId)} order by i.store_id`,
    ),
  );
  return found.map((r) => r.store_id);
}
/** A captured delivery sent again: the same signed body, headers of the sender's choosing. */
const replay = (
  delivery: ReturnType<ShopifySimulator['webhook']>,
  headers: { 'x-shopify-shop-domain'?: string; 'x-shopify-webhook-id'?: string },
) => app.inject({ ...delivery, headers: { ...delivery.headers, ...headers } });
const orderCalls = () => sim.calls.filter((c) => c === 'SillageOrder').length;

beforeAll(async () => {
  sim = await new ShopifySimulator().start();
  app = await buildTestApp(sim.env());
  for (const handle of [VICTIM, OTHER]) {
    sim.addShop(handle, SHELF);
    expect((await installFromShopify(app, sim, handle)).callback.statusCode).toBe(303);
  }
  await app.jobs.drain();
});
afterAll(async () => {
  await closeTestApp(app);
  await sim.stop();
});

describe("Shopify's orders/create: a signed body sent again", () => {
  it('with a new X-Shopify-Webhook-Id is the same delivery: counted once, and never again after the erasure', async () => {
    const delivery = sim.webhook(VICTIM, 'orders/create', sim.order(810001, [{ product: PRODUCT, price: 250 }]));
    const first = await app.inject(delivery);
    expect(first.json()).toEqual({ received: true, duplicate: false });
    await app.jobs.drain();
    expect(await countedFor(810001)).toEqual([VICTIM]);

    // the customer asks to be erased: the order's purchase goes
    const erase = await app.inject(
      sim.webhook(VICTIM, 'customers/redact', {
        shop_domain: `${VICTIM}.myshopify.com`,
        customer: { email: 'shopper@sim.example' },
        orders_to_redact: [810001],
      }),
    );
    expect(erase.statusCode).toBe(200);
    await app.jobs.drain();
    expect(await countedFor(810001)).toEqual([]);

    const calls = orderCalls();
    for (let i = 0; i < 5; i++) {
      const again = await replay(delivery, { 'x-shopify-webhook-id': `forged-${i}` });
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual({ received: true, duplicate: true });
    }
    await app.jobs.drain();
    // not worked again: the erased order stays erased, and Shopify is not asked again
    expect(await countedFor(810001)).toEqual([]);
    expect(orderCalls()).toBe(calls);
  });

  it("under another shop's header, when its order_status_url names its shop: refused, nothing stored", async () => {
    const delivery = sim.webhook(
      VICTIM,
      'orders/create',
      sim.order(810002, [{ product: PRODUCT, price: 250 }], { host: `${VICTIM}.myshopify.com` }),
    );
    expect((await app.inject(delivery)).statusCode).toBe(200);
    await app.jobs.drain();
    const moved = await replay(delivery, {
      'x-shopify-shop-domain': `${OTHER}.myshopify.com`,
      'x-shopify-webhook-id': 'forged-other',
    });
    expect(moved.statusCode).toBe(400);
    expect(moved.json()).toMatchObject({ code: 'invalid_platform_webhook' });
    await app.jobs.drain();
    expect(await countedFor(810002)).toEqual([VICTIM]);
  });

  it("under another shop's header, the body on the shop's own domain: the other shop's API does not know the order, not counted", async () => {
    const delivery = sim.webhook(
      VICTIM,
      'orders/create',
      sim.order(810003, [{ product: PRODUCT, price: 250 }], { host: 'www.oud-victim.example' }),
    );
    expect((await app.inject(delivery)).statusCode).toBe(200);
    await app.jobs.drain();
    // and one without order_status_url at all
    const bare = sim.webhook(VICTIM, 'orders/create', sim.order(810004, [{ product: PRODUCT, price: 90 }]));
    expect((await app.inject(bare)).statusCode).toBe(200);
    await app.jobs.drain();

    const calls = orderCalls();
    for (const delivery_ of [delivery, bare]) {
      const moved = await replay(delivery_, {
        'x-shopify-shop-domain': `${OTHER}.myshopify.com`,
        'x-shopify-webhook-id': 'forged-elsewhere',
      });
      expect(moved.statusCode).toBe(200);
    }
    await app.jobs.drain();
    expect(await countedFor(810003)).toEqual([VICTIM]);
    expect(await countedFor(810004)).toEqual([VICTIM]);
    const other = await merchantOf(OTHER);
    const theirs = rows(await app.db.execute(sql`select 1 from purchases where merchant_id = ${other}::uuid`));
    expect(theirs).toHaveLength(0);
    // each asked of the other shop's own API, which does not know it
    expect(orderCalls()).toBe(calls + 2);
  });

  it('older than a day (past Shopify’s own tries, its first delivery maybe purged): acknowledged, not counted', async () => {
    const old = {
      ...sim.order(810005, [{ product: PRODUCT, price: 250 }]),
      created_at: new Date(Date.now() - ORDER_WEBHOOK_MAX_AGE_MS - 60_000).toISOString(),
    };
    const calls = orderCalls();
    const late = await app.inject(sim.webhook(VICTIM, 'orders/create', old));
    expect(late.statusCode).toBe(200);
    expect(late.json()).toEqual({ received: true, duplicate: false });
    // a body dated far ahead is no delivery of Shopify's either (it would outlive its own record)
    const ahead = {
      ...old,
      id: 810006,
      admin_graphql_api_id: 'gid://shopify/Order/810006',
      created_at: '2099-01-01T00:00:00Z',
    };
    expect((await app.inject(sim.webhook(VICTIM, 'orders/create', ahead))).statusCode).toBe(200);
    await app.jobs.drain();
    expect(await countedFor(810005)).toEqual([]);
    expect(await countedFor(810006)).toEqual([]);
    expect(orderCalls()).toBe(calls);
  });

  it('a body signed with another secret is still refused before anything', async () => {
    const body = JSON.stringify(sim.order(810007, [{ product: PRODUCT, price: 250 }]));
    const r = await app.inject({
      method: 'POST',
      url: '/api/platforms/shopify/webhooks',
      headers: {
        'content-type': 'application/json',
        'x-shopify-topic': 'orders/create',
        'x-shopify-shop-domain': `${VICTIM}.myshopify.com`,
        'x-shopify-hmac-sha256': signWebhook(body, `${SHOPIFY_SECRET}-not`),
      },
      payload: body,
    });
    expect(r.statusCode).toBe(401);
    expect(r.json()).toMatchObject({ code: 'invalid_signature' });
  });
});
