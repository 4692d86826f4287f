import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiKeys,
  feedSources,
  merchantProducts,
  merchants,
  platformInstalls,
  platformWebhooks,
} from '../schema/index.ts';
import { buildTestApp, closeTestApp, expectPlatformOff, scoredSession, submitLead, type TestApp } from './helper.ts';
import {
  installFromShopify as install,
  SHOPIFY_CLIENT,
  type ShopifySimProduct,
  ShopifySimulator,
} from './shopify-sim.ts';
import { cookieOf } from './zid-sim.ts';

/**
 * The Shopify app end to end against a simulated Shopify (tests/shopify-sim.ts): the merchant opens
 * the app from the Shopify admin, approves it and lands in the console signed in, with the deep
 * link that switches the theme's app embed on; the shop gets a merchant, keys, the storefront
 * script's address in an app-owned metafield, a web pixel carrying its key, its webhooks and its
 * products (read through the Admin GraphQL API within Shopify's throttle), which the widget then
 * recommends; webhooks signed with anything but the app's secret are refused without a trace;
 * product webhooks read the product again; orders become purchases that merge with the pixel's;
 * the uninstall and the privacy webhooks erase what they name.
 */
let sim: ShopifySimulator;
let app: TestApp;

const KHAMRAH = 9001;
const SAUVAGE = 9002;
const ASAD = 9003;
const SOLD_OUT = 9004;
const DRAFT = 9005;
const SHELF: ShopifySimProduct[] = [
  {
    id: KHAMRAH,
    title: 'Khamrah Eau de Parfum',
    vendor: 'Lattafa',
    variants: [
      { title: '100ml', price: 250 },
      { title: '50ml', price: 160, available: false },
    ],
  },
  { id: SAUVAGE, title: 'Sauvage Eau de Toilette 100ml', vendor: 'Dior', variants: [{ title: '100ml', price: 520 }] },
  {
    id: ASAD,
    title: 'أسد أو دو بارفان',
    vendor: 'Lattafa',
    variants: [{ title: '100 مل', price: 150, compareAt: 180 }],
  },
  {
    id: SOLD_OUT,
    title: 'Asad Elixir EDP',
    vendor: 'Lattafa',
    variants: [{ title: '100ml', price: 200, available: false }],
  },
  { id: DRAFT, title: 'Hidden draft', vendor: 'Lattafa', status: 'DRAFT', variants: [{ title: '1', price: 1 }] },
];
const SHOP = 'oud-house';
const ORIGIN = 'https://oud-house.sim.example';

const installOf = async (handle: string) =>
  (await app.db.select().from(platformInstalls).where(eq(platformInstalls.storeId, handle)))[0];
const productsOf = async (merchantId: string) =>
  app.db.select().from(merchantProducts).where(eq(merchantProducts.merchantId, merchantId));
const webhookRows = async () => (await app.db.select({ n: sql<number>`count(*)::int` }).from(platformWebhooks))[0]?.n;
const keyOf = async (handle = SHOP) =>
  (await app.inject({ method: 'GET', url: `/api/platforms/shopify/shops/${handle}/widget` })).json()
    .publishable_key as string;
const rows = (r: unknown) =>
  (Array.isArray(r) ? r : ((r as { rows: unknown[] }).rows ?? [])) as Record<string, unknown>[];
const purchases = async (orderId: string) =>
  rows(await app.db.execute(sql`select session_id, total, attributed from purchases where order_id = ${orderId}`));

beforeAll(async () => {
  sim = await new ShopifySimulator().start();
  app = await buildTestApp(sim.env());
});
afterAll(async () => {
  await closeTestApp(app);
  await sim.stop();
});
const installFromShopify = (handle: string) => install(app, sim, handle);

describe('a service without the Shopify app', () => {
  it('answers 404 platform_not_configured on every Shopify route', async () => {
    await expectPlatformOff([
      { method: 'GET' as const, url: `/console/shopify/install?shop=${SHOP}.myshopify.com` },
      { method: 'GET' as const, url: '/console/shopify/callback' },
      { method: 'GET' as const, url: `/api/platforms/shopify/shops/${SHOP}/script.js` },
      { method: 'GET' as const, url: `/api/platforms/shopify/shops/${SHOP}/widget` },
      { ...sim.webhook(SHOP, 'orders/create', {}) },
    ]);
  });
});

describe('install from the Shopify admin → signed in → set up → import → recommendation', () => {
  it('installs the shop, signs its owner in, and shows the link that switches the app embed on', async () => {
    sim.addShop(SHOP, SHELF, { name: 'بيت العود', domain: 'oud-house.sim.example' });
    const { callback } = await installFromShopify(SHOP);
    expect(callback.statusCode, callback.body).toBe(303);
    expect(callback.headers.location).toBe(`/console/m/shopify-${SHOP}/install`);
    const session = cookieOf(callback.headers['set-cookie'], 'console_session') as string;
    expect(session).toBeTruthy();
    await app.jobs.drain();
    const page = await app.inject({
      method: 'GET',
      url: `${callback.headers.location}?lang=en`,
      headers: { cookie: session },
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Your Shopify app');
    expect(page.body).toContain('Webhooks and the storefront script set up on');
    const link = /data-activate href="([^"]+)"/.exec(page.body)?.[1]?.replaceAll('&amp;', '&');
    expect(link).toBe(
      `https://${SHOP}.myshopify.com/admin/themes/current/editor?context=apps&activateAppId=${encodeURIComponent(`${SHOPIFY_CLIENT}/sillage-quiz`)}`,
    );

    const installed = await installOf(SHOP);
    expect(installed).toMatchObject({ platform: 'shopify', status: 'installed', setupError: null });
    expect(installed?.accessTokenEncrypted).toMatch(/^v1\./);
    expect(installed?.accessTokenEncrypted).not.toContain(sim.shops.get(SHOP)?.token);
    expect(installed?.refreshTokenEncrypted).toBeNull();
    const [merchant] = await app.db
      .select()
      .from(merchants)
      .where(eq(merchants.id, installed?.merchantId as string));
    expect(merchant).toMatchObject({ name: 'بيت العود', slug: `shopify-${SHOP}` });
    const keys = await app.db
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.merchantId, merchant?.id as string));
    expect(keys.map((k) => [k.mode, [...k.allowedOrigins].sort()]).sort()).toEqual([
      ['live', [`https://${SHOP}.myshopify.com`, ORIGIN].sort()],
      ['test', ['*']],
    ]);
    const [source] = await app.db
      .select()
      .from(feedSources)
      .where(eq(feedSources.merchantId, merchant?.id as string));
    expect(source).toMatchObject({ kind: 'shopify_graphql', currency: 'SAR' });

    // on Shopify: the script's address for the app embed, the pixel with the live key, the webhooks
    const shop = sim.shops.get(SHOP);
    const key = await keyOf();
    expect(key).toMatch(/^pk_live_/);
    expect(shop?.metafields).toEqual([
      {
        ownerId: shop?.installationId,
        namespace: 'sillage',
        key: 'script_url',
        type: 'single_line_text_field',
        value: `${app.config.publicBaseUrl}/api/platforms/shopify/shops/${SHOP}/script.js`,
      },
    ]);
    expect(JSON.parse(shop?.pixel?.settings ?? '{}')).toEqual({ base: app.config.publicBaseUrl, key });
    expect(shop?.webhooks.map((w) => w.topic).sort()).toEqual(
      ['APP_UNINSTALLED', 'ORDERS_CREATE', 'PRODUCTS_CREATE', 'PRODUCTS_DELETE', 'PRODUCTS_UPDATE'].sort(),
    );
    for (const w of shop?.webhooks ?? [])
      expect(w.uri).toBe(`${app.config.publicBaseUrl}/api/platforms/shopify/webhooks`);

    // the draft is not for sale; sizes folded; a compare-at price makes a sale; the sold-out one never recommended
    const stored = await productsOf(merchant?.id as string);
    expect(stored.map((p) => p.merchantProductId).sort()).toEqual(
      [KHAMRAH, SAUVAGE, ASAD, SOLD_OUT].map(String).sort(),
    );
    expect(stored.find((p) => p.merchantProductId === String(KHAMRAH))).toMatchObject({
      sillagePerfumeId: 'lattafa-khamrah-edp',
      price: 250,
      available: true,
    });
    expect(stored.find((p) => p.merchantProductId === String(SAUVAGE))?.sillagePerfumeId).toBe('dior-sauvage-edt');
    expect(stored.find((p) => p.merchantProductId === String(ASAD))).toMatchObject({ price: 180, salePrice: 150 });

    const script = await app.inject({ method: 'GET', url: `/api/platforms/shopify/shops/${SHOP}/script.js` });
    expect(script.statusCode).toBe(200);
    expect(() => new Function(script.body)).not.toThrow();
    expect(script.body).toContain(`var SHOP = "${SHOP}";`);
    const score = await app.inject({
      method: 'POST',
      url: '/api/widget/score',
      headers: { origin: ORIGIN },
      payload: { api_key: key, limit: 12, quiz: { families: ['amber', 'gourmand', 'spicy', 'woody', 'fresh'] } },
    });
    expect(score.statusCode, score.body).toBe(200);
    const ids = (score.json().recommendations as { merchant_product_id: string }[]).map((r) => r.merchant_product_id);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids).not.toContain(String(SOLD_OUT));
  });

  it('refuses a callback whose query is not signed by Shopify, is stale, or that this browser did not start', async () => {
    sim.addShop('second-shop', SHELF.slice(0, 1));
    const { back, state } = await (async () => {
      const start = await app.inject({
        method: 'GET',
        url: `/console/shopify/install?${sim.adminQuery('second-shop')}`,
      });
      const consent = await fetch(start.headers.location as string, { redirect: 'manual' });
      return {
        back: new URL(consent.headers.get('location') as string),
        state: cookieOf(start.headers['set-cookie'], 'shopify_oauth_state') as string,
      };
    })();
    const tampered = new URL(back);
    tampered.searchParams.set('shop', 'oud-house.myshopify.com');
    for (const [url, cookie] of [
      [`${tampered.pathname}${tampered.search}`, state],
      [`${back.pathname}${back.search}`, ''],
      [`${back.pathname}${back.search.replace(/hmac=[0-9a-f]+/, `hmac=${'0'.repeat(64)}`)}`, state],
    ] as const) {
      const r = await app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });
      expect(r.statusCode, url).toBe(400);
      expect(r.json()).toMatchObject({ code: 'invalid_oauth_state' });
      expect(cookieOf(r.headers['set-cookie'], 'console_session')).toBeUndefined();
    }
    expect(await installOf('second-shop')).toBeUndefined();
    // an admin link a day old, or signed with another secret, or naming a host that is not a shop
    for (const q of [
      `${sim.adminQuery('second-shop')}&shop=oud-house.myshopify.com`,
      sim.adminQuery('second-shop', { timestamp: Math.floor(Date.now() / 1000) - 2 * 86400 }),
      sim.adminQuery('second-shop', { secret: 'not-the-secret' }),
      'shop=evil.example.com',
      'shop=second-shop.myshopify.com.evil.example',
    ]) {
      const r = await app.inject({ method: 'GET', url: `/console/shopify/install?${q}` });
      expect(r.statusCode, q).toBe(400);
    }
  });

  it('an install without the scopes the app needs is refused', async () => {
    sim.addShop('few-scopes', SHELF.slice(0, 1));
    sim.grant = 'read_products';
    try {
      const { callback } = await installFromShopify('few-scopes');
      expect(callback.statusCode).toBe(400);
      expect(callback.json()).toMatchObject({ code: 'install_refused' });
      expect(await installOf('few-scopes')).toBeUndefined();
    } finally {
      sim.grant = null;
    }
  });
});

describe('webhooks', () => {
  it('are refused without a trace unless signed with the app secret; a delivery sent again is worked once', async () => {
    const before = await webhookRows();
    const bad = sim.webhook(SHOP, 'orders/create', sim.order(80009, [{ product: KHAMRAH, price: 250 }]), {
      secret: 'someone-else',
    });
    const r = await app.inject(bad);
    expect(r.statusCode).toBe(401);
    expect(r.json()).toMatchObject({ code: 'invalid_signature' });
    const unsigned = await app.inject({ ...bad, headers: { ...bad.headers, 'x-shopify-hmac-sha256': '' } });
    expect(unsigned.statusCode).toBe(401);
    const unknownTopic = await app.inject(sim.webhook(SHOP, 'carts/update', {}));
    expect(unknownTopic.statusCode).toBe(400);
    const unknownShop = await app.inject(sim.webhook('never-installed', 'orders/create', {}));
    expect(unknownShop.statusCode).toBe(404);
    expect(unknownShop.json()).toMatchObject({ code: 'unknown_store' });
    expect(await webhookRows()).toBe(before);

    // the product changes on Shopify; the webhook's own payload (an old price) is not what is stored
    const product = sim.shops.get(SHOP)?.products.get(SAUVAGE) as ShopifySimProduct;
    product.variants = [{ title: '100ml', price: 480 }];
    const stale = { ...sim.productPayload(product), variants: [{ id: 1, title: '100ml', price: '1.00' }] };
    const delivery = sim.webhook(SHOP, 'products/update', stale, { id: 'delivery-1' });
    // counted from before the delivery: the runner may work it while the receiver answers
    const calls = sim.calls.length;
    const first = await app.inject(delivery);
    expect(first.json()).toEqual({ received: true, duplicate: false });
    const again = await app.inject(delivery);
    expect(again.json()).toEqual({ received: true, duplicate: true });
    await app.jobs.drain();
    expect(sim.calls.slice(calls).filter((c) => c === 'SillageProduct')).toHaveLength(1);
    const merchantId = (await installOf(SHOP))?.merchantId as string;
    expect((await productsOf(merchantId)).find((p) => p.merchantProductId === String(SAUVAGE))?.price).toBe(480);

    // a product deleted on Shopify leaves the shelf
    sim.shops.get(SHOP)?.products.delete(SOLD_OUT);
    await app.inject(sim.webhook(SHOP, 'products/delete', { id: SOLD_OUT }));
    await app.jobs.drain();
    expect((await productsOf(merchantId)).map((p) => p.merchantProductId)).not.toContain(String(SOLD_OUT));
  });

  it("a signed body is believed only for the shop it names: a replay under another shop's header is refused", async () => {
    const before = await webhookRows();
    // a privacy request or an uninstall of another shop, sent again with this shop's header
    for (const [topic, body] of [
      ['shop/redact', { shop_id: 2, shop_domain: 'other-shop.myshopify.com' }],
      ['customers/redact', { shop_domain: 'other-shop.myshopify.com', customer: { email: 'x@y.example' } }],
      ['app/uninstalled', { id: 2, myshopify_domain: 'other-shop.myshopify.com' }],
      ['app/uninstalled', { id: 2, name: 'no domain' }],
    ] as const) {
      const r = await app.inject(sim.webhook(SHOP, topic, body));
      expect(r.statusCode, topic).toBe(400);
      expect(r.json()).toMatchObject({ code: 'invalid_platform_webhook' });
    }
    expect(await webhookRows()).toBe(before);
    expect((await installOf(SHOP))?.status).toBe('installed');
    // a POST with a signature header and no body at all
    const empty = await app.inject({
      method: 'POST',
      url: '/api/platforms/shopify/webhooks',
      headers: { 'x-shopify-hmac-sha256': 'c2lnbmF0dXJl', 'x-shopify-topic': 'orders/create' },
    });
    expect(empty.statusCode).toBe(401);
    expect(empty.json()).toMatchObject({ code: 'invalid_signature' });
  });

  it('an uninstall Shopify does not confirm, and a shop/redact while installed, change nothing', async () => {
    const merchantId = (await installOf(SHOP))?.merchantId as string;
    await app.inject(sim.webhook(SHOP, 'orders/create', sim.order(80010, [{ product: KHAMRAH, price: 250 }])));
    await app.jobs.drain();
    // a late delivery (from before a reinstall): Shopify still accepts the shop's token
    await app.inject(sim.webhook(SHOP, 'app/uninstalled', { id: 1, myshopify_domain: `${SHOP}.myshopify.com` }));
    await app.inject(sim.webhook(SHOP, 'shop/redact', { shop_id: 1, shop_domain: `${SHOP}.myshopify.com` }));
    await app.jobs.drain();
    expect((await installOf(SHOP))?.status).toBe('installed');
    expect(await keyOf()).toMatch(/^pk_live_/);
    expect(await purchases('80010')).toHaveLength(1);
    void merchantId;
  });

  it("an order Shopify reports and the pixel reports is counted once, with the pixel's session; a test order is none", async () => {
    const key = await keyOf();
    const session = await scoredSession(app, key, ORIGIN);
    await app.inject(sim.webhook(SHOP, 'orders/create', sim.order(80001, [{ product: KHAMRAH, price: 250 }])));
    await app.inject(
      sim.webhook(SHOP, 'orders/create', sim.order(80002, [{ product: KHAMRAH, price: 250 }], { test: true })),
    );
    await app.jobs.drain();
    expect(await purchases('80001')).toEqual([expect.objectContaining({ session_id: null })]);
    expect(await purchases('80002')).toEqual([]);
    // the web pixel's report of the same order, from the checkout on the shop's myshopify.com domain
    const pixel = await app.inject({
      method: 'POST',
      url: '/api/widget/event',
      headers: { origin: `https://${SHOP}.myshopify.com`, 'content-type': 'application/json' },
      payload: JSON.stringify({
        api_key: key,
        events: [
          {
            type: 'purchase_completed',
            event_id: 'purchase:80001',
            session_id: session,
            order_id: '80001',
            total: 250,
            currency: 'SAR',
            items: [{ merchant_product_id: String(KHAMRAH), quantity: 1, price: 250 }],
          },
        ],
      }),
    });
    expect(pixel.statusCode, pixel.body).toBe(202);
    const found = await purchases('80001');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ session_id: session });
  });
});

describe("Shopify's rate limit", () => {
  it('a pull that Shopify throttles waits and asks again: every product still arrives', async () => {
    const merchantId = (await installOf(SHOP))?.merchantId as string;
    const [source] = await app.db.select().from(feedSources).where(eq(feedSources.merchantId, merchantId));
    sim.throttleNext = 2;
    const calls = sim.calls.length;
    const pulled = await app.feeds.pullNow(source?.id as string);
    expect(pulled).toMatchObject({ status: 'applied' });
    expect(sim.throttleNext).toBe(0);
    expect(sim.calls.slice(calls).filter((c) => c === 'SillageProducts').length).toBe(3);
    expect((await productsOf(merchantId)).length).toBe(3);
  });

  it('a pull Shopify keeps refusing fails whole after four tries, and removes nothing', async () => {
    const merchantId = (await installOf(SHOP))?.merchantId as string;
    const [source] = await app.db.select().from(feedSources).where(eq(feedSources.merchantId, merchantId));
    const shelf = (await productsOf(merchantId)).map((p) => p.merchantProductId).sort();
    sim.throttleNext = 10;
    try {
      const calls = sim.calls.length;
      const pulled = await app.feeds.pullNow(source?.id as string, { force: true });
      expect(pulled).toMatchObject({ status: 'failed' });
      expect(sim.calls.slice(calls).filter((c) => c === 'SillageProducts').length).toBe(4);
      expect((await productsOf(merchantId)).map((p) => p.merchantProductId).sort()).toEqual(shelf);
    } finally {
      sim.throttleNext = 0;
    }
  });
});

describe('a pull that fails part-way', () => {
  it('a later page Shopify answers with errors fails the pull whole: nothing is removed', async () => {
    const many: ShopifySimProduct[] = Array.from({ length: 30 }, (_, i) => ({
      id: 7000 + i,
      title: `Perfume ${i} EDP`,
      vendor: 'Lattafa',
      variants: [{ title: '100ml', price: 100 + i }],
    }));
    sim.addShop('big-shop', many);
    await installFromShopify('big-shop');
    await app.jobs.drain();
    const merchantId = (await installOf('big-shop'))?.merchantId as string;
    expect(await productsOf(merchantId)).toHaveLength(30);
    const [source] = await app.db.select().from(feedSources).where(eq(feedSources.merchantId, merchantId));
    sim.failLaterPages = true;
    try {
      const pulled = await app.feeds.pullNow(source?.id as string, { force: true });
      expect(pulled).toMatchObject({ status: 'failed' });
      expect(JSON.stringify(pulled)).toContain('Page 2 could not be read');
      expect(await productsOf(merchantId)).toHaveLength(30);
    } finally {
      sim.failLaterPages = false;
    }
  });
});

describe('setup problems', () => {
  it('a pixel Shopify refuses is shown in the console and set up by the periodic retry', async () => {
    sim.addShop('pixel-later', SHELF.slice(0, 2));
    sim.refusePixel = true;
    const { callback } = await installFromShopify('pixel-later');
    const cookie = cookieOf(callback.headers['set-cookie'], 'console_session') as string;
    await app.jobs.drain();
    const read = async () =>
      (await app.inject({ method: 'GET', url: '/console/m/shopify-pixel-later/install?lang=en', headers: { cookie } }))
        .body;
    expect(await read()).toMatch(/Setting up the app on Shopify failed \(web pixel: No web pixel extension found\)/);
    expect((await installOf('pixel-later'))?.setupError).toMatch(/web pixel/);
    sim.refusePixel = false;
    await app.jobs.send('platforms.shopify.resetup', {});
    await app.jobs.drain();
    expect(await read()).toContain('Webhooks and the storefront script set up on');
    expect(sim.shops.get('pixel-later')?.pixel).not.toBeNull();
    // set up again: nothing is subscribed twice
    await app.jobs.send('platforms.shopify.setup', { shop: 'pixel-later' });
    await app.jobs.drain();
    expect(sim.shops.get('pixel-later')?.webhooks).toHaveLength(5);
  });
});

describe('privacy webhooks, uninstall and reinstall', () => {
  it("customers/redact erases the customer's leads and the listed orders' purchases, and nothing else", async () => {
    const key = await keyOf();
    const session = await scoredSession(app, key, ORIGIN);
    expect((await submitLead(app, key, session, { email: 'shopper@sim.example' }, ORIGIN)).statusCode).toBe(202);
    await app.inject(sim.webhook(SHOP, 'orders/create', sim.order(80003, [{ product: KHAMRAH, price: 250 }])));
    await app.jobs.drain();
    const merchantId = (await installOf(SHOP))?.merchantId as string;
    const leadCount = async () =>
      rows(await app.db.execute(sql`select count(*)::int as n from leads where merchant_id = ${merchantId}`))[0]?.n;
    expect(await leadCount()).toBe(1);
    const r = await app.inject(
      sim.webhook(SHOP, 'customers/redact', {
        shop_id: 1,
        shop_domain: `${SHOP}.myshopify.com`,
        customer: { id: 7, email: 'shopper@sim.example', phone: null },
        orders_to_redact: [80003],
      }),
    );
    expect(r.statusCode).toBe(200);
    await app.jobs.drain();
    expect(await leadCount()).toBe(0);
    expect(await purchases('80003')).toEqual([]);
    expect(await purchases('80001')).toHaveLength(1);
  });

  it('app/uninstalled revokes the keys; shop/redact then erases the purchases; a reinstall finds the same merchant', async () => {
    const merchantId = (await installOf(SHOP))?.merchantId as string;
    sim.uninstall(SHOP);
    const uninstalled = {
      id: 1,
      name: 'بيت العود',
      domain: 'oud-house.sim.example',
      myshopify_domain: `${SHOP}.myshopify.com`,
    };
    await app.inject(sim.webhook(SHOP, 'app/uninstalled', uninstalled));
    await app.jobs.drain();
    expect(await installOf(SHOP)).toMatchObject({ status: 'uninstalled', accessTokenEncrypted: null });
    const widget = await app.inject({ method: 'GET', url: `/api/platforms/shopify/shops/${SHOP}/widget` });
    expect(widget.statusCode).toBe(404);
    const live = await app.db.select().from(apiKeys).where(eq(apiKeys.merchantId, merchantId));
    expect(live.every((k) => k.revokedAt !== null)).toBe(true);
    // the shop's own webhooks are refused now; the privacy request still comes through
    const late = await app.inject(
      sim.webhook(SHOP, 'orders/create', sim.order(80004, [{ product: KHAMRAH, price: 1 }])),
    );
    expect(late.statusCode).toBe(404);
    const redact = await app.inject(
      sim.webhook(SHOP, 'shop/redact', { shop_id: 1, shop_domain: `${SHOP}.myshopify.com` }),
    );
    expect(redact.statusCode).toBe(200);
    await app.jobs.drain();
    expect(await purchases('80001')).toEqual([]);
    // a privacy request about a shop that never installed: acknowledged, nothing kept
    const before = await webhookRows();
    const stranger = await app.inject(
      sim.webhook('never-installed', 'shop/redact', { shop_domain: 'never-installed.myshopify.com' }),
    );
    expect(stranger.statusCode).toBe(200);
    expect(await webhookRows()).toBe(before);

    const { callback } = await installFromShopify(SHOP);
    expect(callback.statusCode).toBe(303);
    await app.jobs.drain();
    expect(await installOf(SHOP)).toMatchObject({ status: 'installed', merchantId, setupError: null });
    const key = await keyOf();
    expect(JSON.parse(sim.shops.get(SHOP)?.pixel?.settings ?? '{}')).toMatchObject({ key });
  });
});
