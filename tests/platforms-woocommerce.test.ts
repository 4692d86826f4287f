import { createHash } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wooStoreId } from '../platforms/woocommerce.ts';
import {
  apiKeys,
  feedSources,
  merchantProducts,
  merchants,
  platformInstalls,
  platformWebhooks,
} from '../schema/index.ts';
import { storeSlug } from '../services/platforms.ts';
import { buildTestApp, closeTestApp, expectPlatformOff, scoredSession, type TestApp } from './helper.ts';
import { connectFromWoo, startFromWoo, type WooSimProduct, WooSimulator } from './woo-sim.ts';
import { cookieOf } from './zid-sim.ts';

/**
 * The WooCommerce plugin's connection end to end against simulated stores (tests/woo-sim.ts): the
 * admin presses Connect, approves read-only keys on the store's own key screen, WooCommerce posts
 * them to the service (which tries them against the store before installing it), the admin comes
 * back signed in to the console, and the plugin claims its key and webhook secret with a secret
 * only it holds; the store's products are imported from its Store API and recommended; signed
 * webhooks bring product changes (read again from the store), orders (counted once with the
 * widget's report) and the disconnection; anything unsigned, forged or for another store is
 * refused without a trace.
 */
let sim: WooSimulator;
let app: TestApp;

const SHELF: WooSimProduct[] = [
  { id: 101, name: 'عطر خمرة أو دو بارفان 100 مل', brand: 'لطافة', price: 220, sale: 180 },
  { id: 102, name: 'Sauvage Eau de Toilette 100ml', brand: 'Dior', price: 520 },
  { id: 103, name: 'Asad EDP 100ml', brand: 'Lattafa', price: 150, inStock: false },
];
const STORE = 'attar';
const installOf = async (store: string) =>
  (await app.db.select().from(platformInstalls).where(eq(platformInstalls.storeId, store)))[0];
const storeIdOf = (path: string) => wooStoreId(sim.url(path), sim.stores.get(path)?.installation.key ?? null);
const productsOf = async (merchantId: string) =>
  app.db.select().from(merchantProducts).where(eq(merchantProducts.merchantId, merchantId));
const webhookRows = async () => (await app.db.select({ n: sql<number>`count(*)::int` }).from(platformWebhooks))[0]?.n;
const rows = (r: unknown) =>
  (Array.isArray(r) ? r : ((r as { rows: unknown[] }).rows ?? [])) as Record<string, unknown>[];
const purchases = async (orderId: string) =>
  rows(await app.db.execute(sql`select session_id, total from purchases where order_id = ${orderId}`));

beforeAll(async () => {
  sim = await new WooSimulator().start();
  app = await buildTestApp(sim.env());
});
afterAll(async () => {
  await closeTestApp(app);
  await sim.stop();
});

describe('a service without the WooCommerce app', () => {
  it('answers 404 platform_not_configured on every WooCommerce route', async () => {
    await expectPlatformOff([
      { method: 'GET' as const, url: '/console/woocommerce/connect?store=https://x.example' },
      { method: 'GET' as const, url: '/console/woocommerce/return' },
      { method: 'POST' as const, url: '/api/platforms/woocommerce/keys', payload: {} },
      { method: 'POST' as const, url: '/api/platforms/woocommerce/connections/claim', payload: {} },
      { method: 'POST' as const, url: '/api/platforms/woocommerce/webhooks/x-example', payload: {} },
    ]);
  });
});

describe('connect → keys → signed in → claim → import → recommendation', () => {
  it('connects the store, signs its admin in and gives the plugin its key and webhook secret', async () => {
    sim.addStore(STORE, SHELF);
    const c = await connectFromWoo(app, sim, STORE);
    const screen = new URL(c.start.headers.location as string);
    expect(screen.pathname).toBe(`/${STORE}/`);
    expect(screen.searchParams.get('wc-auth-version')).toBe('1');
    expect(screen.searchParams.get('wc-auth-route')).toBe('authorize');
    expect(new URL(c.start.headers.location as string).searchParams.get('scope')).toBe('read');
    expect(c.keys?.statusCode, c.keys?.body).toBe(200);
    // back from the key screen, the browser that started is offered the console; its button signs in
    expect(c.offered.statusCode).toBe(200);
    expect(c.offered.body).toContain('action="/console/woocommerce/return"');
    expect(cookieOf(c.offered.headers['set-cookie'], 'console_session')).toBeUndefined();
    expect(c.returned.statusCode).toBe(303);
    expect(c.page?.toString()).toMatch(
      new RegExp(`^${sim.url(STORE)}/wp-admin/admin\\.php\\?page=sillage&sillage_connect=`),
    );
    expect(c.page?.searchParams.get('success')).toBe('1');
    const session = cookieOf(c.returned.headers['set-cookie'], 'console_session');
    expect(session).toBeTruthy();
    expect(c.claim.statusCode, c.claim.body).toBe(200);
    const claimed = c.claim.json();
    const id = storeIdOf(STORE);
    expect(claimed).toMatchObject({
      store_id: id,
      publishable_key: expect.stringMatching(/^pk_live_/),
      webhook_url: `${app.config.publicBaseUrl}/api/platforms/woocommerce/webhooks/${id}`,
      console_url: `${app.config.publicBaseUrl}/console/m/${storeSlug('woocommerce', id)}/install`,
    });
    expect(claimed.webhook_secret.length).toBeGreaterThanOrEqual(32);
    // the same claim again answers the same (the plugin may retry)
    const again = await app.inject({
      method: 'POST',
      url: '/api/platforms/woocommerce/connections/claim',
      payload: { token: c.token, secret: c.secret },
    });
    expect(again.json()).toEqual(claimed);
    // the admin lands in the console signed in
    const console = await app.inject({
      method: 'GET',
      url: `/console/m/${storeSlug('woocommerce', id)}/install?lang=en`,
      headers: { cookie: session as string },
    });
    expect(console.statusCode).toBe(200);
    expect(console.body).toContain('Your WooCommerce app');

    await app.jobs.drain();
    const install = await installOf(id);
    expect(install).toMatchObject({ platform: 'woocommerce', status: 'installed' });
    expect(install?.accessTokenEncrypted).toMatch(/^v1\./);
    expect(install?.authTokenEncrypted).not.toContain(sim.stores.get(STORE)?.keys?.secret);
    const [merchant] = await app.db
      .select()
      .from(merchants)
      .where(eq(merchants.id, install?.merchantId as string));
    const keys = await app.db
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.merchantId, merchant?.id as string));
    expect(keys.map((k) => [k.mode, k.allowedOrigins]).sort()).toEqual([
      ['live', [new URL(sim.url(STORE)).origin]],
      ['test', ['*']],
    ]);
    const [source] = await app.db
      .select()
      .from(feedSources)
      .where(eq(feedSources.merchantId, merchant?.id as string));
    expect(source).toMatchObject({ kind: 'woocommerce', url: sim.url(STORE) });
    const stored = await productsOf(merchant?.id as string);
    expect(stored.map((p) => p.merchantProductId).sort()).toEqual(['101', '102', '103']);
    expect(stored.find((p) => p.merchantProductId === '101')).toMatchObject({
      sillagePerfumeId: 'lattafa-khamrah-edp',
      price: 220,
      salePrice: 180,
    });
    const score = await app.inject({
      method: 'POST',
      url: '/api/widget/score',
      headers: { origin: new URL(sim.url(STORE)).origin },
      payload: {
        api_key: claimed.publishable_key,
        limit: 6,
        quiz: { families: ['amber', 'gourmand', 'fresh', 'woody'] },
      },
    });
    expect(score.statusCode, score.body).toBe(200);
    const ids = (score.json().recommendations as { merchant_product_id: string }[]).map((r) => r.merchant_product_id);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids).not.toContain('103');
  });

  it('refuses a store address that is not https or public, a forged or ended token, keys for another store', async () => {
    const proof = 'a'.repeat(64);
    for (const store of [
      'http://shop.example',
      'https://user:pw@shop.example',
      'https://shop.example/?x=1',
      'javascript:alert(1)',
    ]) {
      const r = await app.inject({
        method: 'GET',
        url: `/console/woocommerce/connect?${new URLSearchParams({ store, proof })}`,
      });
      expect(r.statusCode, store).toBe(400);
    }
    const noProof = await app.inject({ method: 'GET', url: `/console/woocommerce/connect?store=https://shop.example` });
    expect(noProof.statusCode).toBe(400);
    // keys posted with a token the service did not sign
    const forged = await app.inject({
      method: 'POST',
      url: '/api/platforms/woocommerce/keys',
      payload: {
        user_id: 'eyJzIjoiaHR0cHM6Ly9ldmlsIn0.AAAA',
        consumer_key: 'ck_1',
        consumer_secret: 'cs_1',
        key_permissions: 'read',
      },
    });
    expect(forged.statusCode).toBe(401);
    // a store that does not confirm the connection (its plugin did not start it): no token, sent nowhere
    sim.addStore('liar', SHELF.slice(0, 1));
    const unconfirmed = await app.inject({
      method: 'GET',
      url: `/console/woocommerce/connect?${new URLSearchParams({ store: sim.url('liar'), proof })}`,
    });
    expect(unconfirmed.statusCode).toBe(400);
    expect(unconfirmed.headers.location).toBeUndefined();
    // a real token for a store, with keys that do not open it: nothing installed
    const { start } = await startFromWoo(app, sim, 'liar');
    const token = new URL(start.headers.location as string).searchParams.get('user_id') as string;
    const wrong = await app.inject({
      method: 'POST',
      url: '/api/platforms/woocommerce/keys',
      payload: { user_id: token, consumer_key: 'ck_other', consumer_secret: 'cs_other', key_permissions: 'read' },
    });
    expect(wrong.statusCode).toBe(400);
    expect(await installOf(storeIdOf('liar'))).toBeUndefined();
    // a claim without the plugin's secret
    const claim = await app.inject({
      method: 'POST',
      url: '/api/platforms/woocommerce/connections/claim',
      payload: { token, secret: 'not-the-secret' },
    });
    expect(claim.statusCode).toBe(401);
  });

  it('a connection whose keys never came opens nothing of an installed store: no sign-in, no claim', async () => {
    // someone starts a connection for a store that is connected already, with a secret of their own:
    // the store's plugin did not start it, so it is not confirmed and no token is made
    const proof = createHash('sha256').update('mallory').digest('hex');
    const refused = await app.inject({
      method: 'GET',
      url: `/console/woocommerce/connect?${new URLSearchParams({ store: sim.url(STORE), proof, email: 'mallory@evil.example' })}`,
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.headers.location).toBeUndefined();
    // the store's own connection, started and never approved, comes back saying it was
    const { start, browser, secret } = await startFromWoo(app, sim, STORE, { email: 'mallory@evil.example' });
    const token = new URL(start.headers.location as string).searchParams.get('user_id') as string;
    const back = await browser.get(`/console/woocommerce/return?success=1&user_id=${encodeURIComponent(token)}`);
    expect(back.statusCode).toBe(303);
    expect(new URL(back.headers.location as string).searchParams.get('success')).toBe('0');
    expect(cookieOf(back.headers['set-cookie'], 'console_session')).toBeUndefined();
    const signIn = await browser.post('/console/woocommerce/return', { user_id: token });
    expect(cookieOf(signIn.headers['set-cookie'], 'console_session')).toBeUndefined();
    const claim = await app.inject({
      method: 'POST',
      url: '/api/platforms/woocommerce/connections/claim',
      payload: { token, secret },
    });
    expect(claim.statusCode).toBe(409);
    expect(claim.body).not.toContain('webhook_secret');
    const users = rows(
      await app.db.execute(sql`select count(*)::int as n from console_users where email = 'mallory@evil.example'`),
    );
    expect(users[0]?.n).toBe(0);
  });

  it('a store whose API answers anyone alike proves nothing: made-up keys install nothing', async () => {
    sim.addStore('open-site', SHELF.slice(0, 1));
    sim.openApi = true;
    try {
      const c = await connectFromWoo(app, sim, 'open-site');
      expect(c.keys?.statusCode).toBe(400);
      expect(await installOf(storeIdOf('open-site'))).toBeUndefined();
    } finally {
      sim.openApi = false;
    }
  });

  it('a return this browser did not start signs nobody in; a declined key screen installs nothing', async () => {
    sim.addStore('declined', SHELF.slice(0, 1));
    sim.decline = true;
    try {
      const c = await connectFromWoo(app, sim, 'declined');
      expect(c.keys).toBeNull();
      expect(c.page?.searchParams.get('success')).toBe('0');
      expect(cookieOf(c.returned.headers['set-cookie'], 'console_session')).toBeUndefined();
      expect(c.claim.statusCode).toBe(409);
      expect(await installOf(storeIdOf('declined'))).toBeUndefined();
    } finally {
      sim.decline = false;
    }
    // the return link of a connected store, opened by another browser
    sim.addStore('other-browser', SHELF.slice(0, 1));
    const c = await connectFromWoo(app, sim, 'other-browser');
    const again = await app.inject({
      method: 'GET',
      url: `/console/woocommerce/return?success=1&user_id=${encodeURIComponent(c.token)}`,
    });
    expect(again.statusCode).toBe(303);
    expect(cookieOf(again.headers['set-cookie'], 'console_session')).toBeUndefined();
  });
});

describe('webhooks', () => {
  it('are refused without a trace unless signed with the store secret; a ping is acknowledged', async () => {
    const id = storeIdOf(STORE);
    const before = await webhookRows();
    const order = sim.order(501, [{ product: 101, price: 180 }]);
    const bad = await app.inject(sim.webhook(STORE, 'order.created', order, { secret: 'someone-else' }));
    expect(bad.statusCode).toBe(401);
    const otherStore = await app.inject({
      ...sim.webhook(STORE, 'order.created', order),
      url: `/api/platforms/woocommerce/webhooks/${storeIdOf('other-browser')}`,
    });
    expect(otherStore.statusCode).toBe(401);
    const unknown = await app.inject({
      ...sim.webhook(STORE, 'order.created', order),
      url: '/api/platforms/woocommerce/webhooks/never-connected',
    });
    expect(unknown.statusCode).toBe(404);
    const topic = await app.inject(sim.webhook(STORE, 'coupon.created', {}));
    expect(topic.statusCode).toBe(400);
    const ping = await app.inject({
      method: 'POST',
      url: `/api/platforms/woocommerce/webhooks/${id}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'webhook_id=12',
    });
    expect(ping.statusCode).toBe(200);
    expect(await webhookRows()).toBe(before);
  });

  it('read the product again from the store; orders count once, with the widget’s session; pending ones wait', async () => {
    const id = storeIdOf(STORE);
    const install = await installOf(id);
    const product = sim.stores.get(STORE)?.products.get(102) as WooSimProduct;
    product.price = 480;
    await app.inject(sim.webhook(STORE, 'product.updated', { id: 102, name: 'lies', price: '1' }));
    sim.stores.get(STORE)?.products.delete(103);
    await app.inject(sim.webhook(STORE, 'product.deleted', { id: 103 }));
    await app.jobs.drain();
    const stored = await productsOf(install?.merchantId as string);
    expect(stored.find((p) => p.merchantProductId === '102')?.price).toBe(480);
    expect(stored.map((p) => p.merchantProductId)).not.toContain('103');

    const key = (await app.db.select().from(platformInstalls).where(eq(platformInstalls.storeId, id)))[0]
      ?.publishableKey as string;
    const origin = new URL(sim.url(STORE)).origin;
    const session = await scoredSession(app, key, origin);
    await app.inject(sim.webhook(STORE, 'order.created', sim.order(601, [{ product: 101, price: 180 }], 'pending')));
    await app.jobs.drain();
    expect(await purchases('601')).toEqual([]);
    await app.inject(sim.webhook(STORE, 'order.updated', sim.order(601, [{ product: 101, price: 180 }], 'processing')));
    await app.jobs.drain();
    expect(await purchases('601')).toEqual([expect.objectContaining({ session_id: null })]);
    // the plugin's thank-you page reports the same order with the session
    const browser = await app.inject({
      method: 'POST',
      url: '/api/widget/event',
      headers: { origin, 'content-type': 'application/json' },
      payload: JSON.stringify({
        api_key: key,
        session_id: session,
        type: 'purchase_completed',
        order_id: '601',
        total: 180,
        currency: 'SAR',
        items: [{ merchant_product_id: '101', quantity: 1, price: 180 }],
      }),
    });
    expect(browser.statusCode, browser.body).toBe(202);
    expect(await purchases('601')).toEqual([expect.objectContaining({ session_id: session })]);
  });

  it('the plugin’s disconnection revokes the keys; connecting again finds the same merchant', async () => {
    const id = storeIdOf(STORE);
    const merchantId = (await installOf(id))?.merchantId;
    const r = await app.inject(sim.webhook(STORE, 'sillage.disconnected', { store_id: id, reason: 'deactivated' }));
    expect(r.statusCode).toBe(200);
    await app.jobs.drain();
    expect(await installOf(id)).toMatchObject({ status: 'uninstalled', accessTokenEncrypted: null });
    const keys = await app.db
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.merchantId, merchantId as string));
    expect(keys.every((k) => k.revokedAt !== null)).toBe(true);
    const late = await app.inject(sim.webhook(STORE, 'order.created', sim.order(602, [{ product: 101, price: 1 }])));
    expect(late.statusCode).toBe(404);
    const c = await connectFromWoo(app, sim, STORE);
    expect(c.claim.statusCode).toBe(200);
    expect(await installOf(id)).toMatchObject({ status: 'installed', merchantId });
  });
});
