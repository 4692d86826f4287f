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
import { createConsoleUser } from '../services/console-users.ts';
import { storeTokens } from '../services/platforms.ts';
import { buildTestApp, closeTestApp, expectPlatformOff, scoredSession, type TestApp } from './helper.ts';
import { cookieOf, installFromZid as install, type ZidSimProduct, ZidSimulator } from './zid-sim.ts';

/**
 * The Zid app end to end against a simulated Zid (tests/zid-sim.ts): the merchant installs from
 * Zid through the OAuth code flow and lands in the console signed in; the store gets a merchant,
 * keys, webhook subscriptions carrying a secret of its own, its storefront script and its products,
 * which the widget then recommends; product webhooks read the product again; orders become
 * purchases that merge with the browser's; a refresh is sent once however many ask; an unsigned
 * uninstall notice is believed only once Zid refuses the store's tokens; and a webhook without the
 * store's secret is refused without a trace.
 */
let sim: ZidSimulator;
let app: TestApp;

const KHAMRAH = '0b7c5f4e-1111-4a6b-9c0d-000000000001';
const ASAD = '0b7c5f4e-1111-4a6b-9c0d-000000000002';
const BADEE = '0b7c5f4e-1111-4a6b-9c0d-000000000003';
const SOLD_OUT = '0b7c5f4e-1111-4a6b-9c0d-000000000004';
const DRAFT = '0b7c5f4e-1111-4a6b-9c0d-000000000005';
const SHELF: ZidSimProduct[] = [
  {
    id: KHAMRAH,
    name: 'لطافة خمرة أو دو بارفان',
    nameEn: 'Lattafa Khamrah EDP',
    price: 250,
    sizes: [
      { label: '100 مل', price: 250 },
      { label: '50 مل', price: 160, quantity: 0 },
    ],
  },
  { id: ASAD, name: 'Asad EDP 100ml', price: 180, sale: 150, infinite: true },
  { id: BADEE, name: 'عطر بديع العود مجد للأبد 100 مل', price: 220 },
  { id: SOLD_OUT, name: 'Ana Abiyedh Rouge EDP 60ml', price: 120, quantity: 0 },
  { id: DRAFT, name: 'Hidden draft', price: 10, published: false },
];
const STORE = 5001;
const ORIGIN = 'https://store-5001.zid.sim.example';

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
  sim = await new ZidSimulator().start();
  app = await buildTestApp(sim.env());
});

const installFromZid = (store: number) => install(app, sim, store);
afterAll(async () => {
  await closeTestApp(app);
  await sim.stop();
});

describe('a service without the Zid app', () => {
  it('answers 404 platform_not_configured on every Zid route', async () => {
    await expectPlatformOff([
      { method: 'GET' as const, url: '/console/zid/install' },
      { method: 'GET' as const, url: '/api/platforms/zid/stores/1/script.js' },
      { method: 'GET' as const, url: '/api/platforms/zid/stores/1/widget' },
      {
        method: 'POST' as const,
        url: '/api/platforms/zid/webhooks/1?event=order.create&token=x',
        payload: '{}',
        headers: { 'content-type': 'application/json' },
      },
      {
        method: 'POST' as const,
        url: '/api/platforms/zid/app-events',
        payload: '{}',
        headers: { 'content-type': 'application/json' },
      },
    ]);
  });
});

describe('install from Zid → signed in → import → recommendation', () => {
  it('the callback installs the store and signs its manager in to the console as its owner', async () => {
    sim.addStore(STORE, SHELF, { title: 'متجر زد للعطور', url: `${ORIGIN}/` });
    const { callback } = await installFromZid(STORE);
    expect(callback.statusCode, callback.body).toBe(303);
    expect(callback.headers.location).toBe(`/console/m/zid-${STORE}/install`);
    const session = cookieOf(callback.headers['set-cookie'], 'console_session');
    expect(session).toBeTruthy();
    const page = await app.inject({
      method: 'GET',
      url: callback.headers.location as string,
      headers: { cookie: session as string },
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('متجر زد للعطور');
    await app.jobs.drain();

    const install = await installOf(STORE);
    expect(install).toMatchObject({ platform: 'zid', status: 'installed', setupError: null });
    expect(install?.setupAt).toBeInstanceOf(Date);
    // both tokens and the webhook secret are encrypted at rest
    const zidStore = sim.stores.get(STORE);
    for (const field of [install?.accessTokenEncrypted, install?.authTokenEncrypted, install?.webhookSecretEncrypted]) {
      expect(field).toMatch(/^v1\./);
    }
    expect(install?.authTokenEncrypted).not.toContain(zidStore?.authorization);
    const [merchant] = await app.db
      .select()
      .from(merchants)
      .where(eq(merchants.id, install?.merchantId as string));
    expect(merchant).toMatchObject({ name: 'متجر زد للعطور', slug: `zid-${STORE}` });
    const keys = await app.db
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.merchantId, merchant?.id as string));
    expect(keys.map((k) => [k.mode, k.allowedOrigins]).sort()).toEqual([
      ['live', [ORIGIN]],
      ['test', ['*']],
    ]);
    const [source] = await app.db
      .select()
      .from(feedSources)
      .where(eq(feedSources.merchantId, merchant?.id as string));
    expect(source).toMatchObject({ kind: 'zid', url: sim.apiUrl });

    // on Zid: one subscription per event, each URL with the store's secret; the storefront script
    expect([...(zidStore?.webhooks.keys() ?? [])].sort()).toEqual([
      'order.create',
      'order.payment_status.update',
      'product.create',
      'product.delete',
      'product.publish',
      'product.update',
    ]);
    for (const w of zidStore?.webhooks.values() ?? []) {
      expect(w.target_url).toMatch(
        new RegExp(`^${app.config.publicBaseUrl}/api/platforms/zid/webhooks/${STORE}\\?event=`),
      );
      expect(new URL(w.target_url).searchParams.get('token')?.length).toBeGreaterThanOrEqual(32);
    }
    expect(zidStore?.scripts).toEqual([
      { url: `${app.config.publicBaseUrl}/api/platforms/zid/stores/${STORE}/script.js` },
    ]);

    // the draft is not the shop's to sell; sizes folded into one product; the sold-out one stored, never recommended
    const stored = await productsOf(merchant?.id as string);
    expect(stored.map((p) => p.merchantProductId).sort()).toEqual([KHAMRAH, ASAD, BADEE, SOLD_OUT].sort());
    const khamrah = stored.find((p) => p.merchantProductId === KHAMRAH);
    expect(khamrah).toMatchObject({ house: 'لطافة', price: 250, available: true });
    expect(khamrah?.sillagePerfumeId).toBe('lattafa-khamrah-edp');
    expect(stored.find((p) => p.merchantProductId === ASAD)).toMatchObject({ available: true, price: 180 });
    expect(stored.find((p) => p.merchantProductId === SOLD_OUT)?.available).toBe(false);

    // the storefront script and the widget settings it reads; the widget recommends the store's products
    const script = await app.inject({ method: 'GET', url: `/api/platforms/zid/stores/${STORE}/script.js` });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
    expect(() => new Function(script.body)).not.toThrow();
    expect(script.body).toContain(`var STORE = "${STORE}";`);
    const widget = await app.inject({ method: 'GET', url: `/api/platforms/zid/stores/${STORE}/widget` });
    const key = widget.json().publishable_key as string;
    expect(key).toMatch(/^pk_live_/);
    const score = await app.inject({
      method: 'POST',
      url: '/api/widget/score',
      headers: { origin: ORIGIN },
      payload: { api_key: key, limit: 12, quiz: { families: ['amber', 'gourmand', 'spicy', 'woody'] } },
    });
    expect(score.statusCode, score.body).toBe(200);
    const ids = (score.json().recommendations as { merchant_product_id: string }[]).map((r) => r.merchant_product_id);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids).not.toContain(SOLD_OUT);
    for (const id of ids) expect([KHAMRAH, ASAD, BADEE]).toContain(id);
  });

  it('a callback this browser did not start is refused, and nobody is signed in', async () => {
    sim.addStore(5002, SHELF);
    const { back } = await installFromZid(5002).catch(() => ({ back: null as unknown as URL }));
    // the same callback without the state cookie (another browser), or with a state of its own
    sim.installing = 5002;
    const noCookie = await app.inject({
      method: 'GET',
      url: `/console/zid/callback?code=abc&state=${back?.searchParams.get('state')}`,
    });
    expect(noCookie.statusCode).toBe(400);
    expect(noCookie.json()).toMatchObject({ code: 'invalid_oauth_state' });
    expect(cookieOf(noCookie.headers['set-cookie'], 'console_session')).toBeUndefined();
    const start = await app.inject({ method: 'GET', url: '/console/zid/install' });
    const cookie = cookieOf(start.headers['set-cookie'], 'zid_oauth_state') as string;
    const forged = await app.inject({
      method: 'GET',
      url: '/console/zid/callback?code=abc&state=not-the-state',
      headers: { cookie },
    });
    expect(forged.json()).toMatchObject({ code: 'invalid_oauth_state' });
    // the merchant declined on Zid
    const declined = await app.inject({
      method: 'GET',
      url: '/console/zid/callback?error=access_denied',
      headers: { cookie },
    });
    expect(declined.json()).toMatchObject({ code: 'install_refused' });
  });

  it("a manager whose email is another merchant's user is installed, not signed in to that account", async () => {
    const other = (
      await app.db
        .select()
        .from(merchants)
        .where(eq(merchants.slug, `zid-${STORE}`))
    )[0];
    sim.addStore(5003, SHELF.slice(0, 1), { email: 'shared@zid.sim.example' });
    await createConsoleUser(app.db, {
      email: 'shared@zid.sim.example',
      password: 'a long enough password',
      role: 'owner',
      merchant: other?.id as string,
    });
    const { callback } = await installFromZid(5003);
    expect(callback.statusCode).toBe(303);
    expect(callback.headers.location).toBe('/console/sign-in');
    expect(cookieOf(callback.headers['set-cookie'], 'console_session')).toBeUndefined();
    expect((await installOf(5003))?.status).toBe('installed');
  });
});

describe('the console’s view of the install', () => {
  it('shows where the shop installed from and how the setup went; a failed setup is a problem, tried again', async () => {
    const page = async () => {
      const owner = (await app.db.select().from(merchants).where(eq(merchants.slug, 'zid-5004')))[0];
      const { callback } = await installFromZid(5004);
      const cookie = cookieOf(callback.headers['set-cookie'], 'console_session') as string;
      void owner;
      return async () =>
        (await app.inject({ method: 'GET', url: '/console/m/zid-5004/install?lang=en', headers: { cookie } })).body;
    };
    sim.addStore(5004, SHELF.slice(0, 2));
    sim.refuseScripts = true;
    const read = await page();
    await app.jobs.drain();
    let body = await read();
    expect(body).toContain('Your Zid app');
    expect(body).toContain('Installed from Zid (store 5004)');
    expect(body).toContain('there is no script tag to paste');
    expect(body).toMatch(/Setting up the app on Zid failed \(storefront script: [^)]*403\)/);
    // the install check lists it too
    expect(body.split('What is wrong')[1] ?? '').toContain('Setting up the app on Zid failed');
    expect((await installOf(5004))?.setupError).toMatch(/storefront script/);

    // Zid approves the script: the periodic retry sets it up, and the problem is gone
    sim.refuseScripts = false;
    await app.jobs.send('platforms.zid.resetup', {});
    await app.jobs.drain();
    body = await read();
    expect(body).toContain('Webhooks and the storefront script set up on');
    expect(body).not.toContain('failed');
    expect(sim.stores.get(5004)?.scripts).toHaveLength(1);
  });
});

describe('store webhooks', () => {
  it('are refused without a trace unless their URL carries the store’s secret', async () => {
    const before = await webhookRows();
    const good = sim.webhook(STORE, 'product.update', { id: ASAD });
    const u = new URL(good.url, 'http://x');
    const token = u.searchParams.get('token') as string;
    const tries = [
      [`/api/platforms/zid/webhooks/${STORE}?event=product.update`, 401, 'invalid_signature'],
      [`/api/platforms/zid/webhooks/${STORE}?event=product.update&token=${token.slice(1)}x`, 401, 'invalid_signature'],
      [`/api/platforms/zid/webhooks/999999?event=product.update&token=${token}`, 404, 'unknown_store'],
      [`/api/platforms/zid/webhooks/${STORE}?event=customer.create&token=${token}`, 400, 'invalid_platform_webhook'],
    ] as const;
    for (const [url, status, code] of tries) {
      const r = await app.inject({ ...good, url });
      expect(r.statusCode, url).toBe(status);
      expect(r.json()).toMatchObject({ code });
    }
    const notJson = await app.inject({ ...good, payload: '[1,2' });
    expect(notJson.json()).toMatchObject({ code: 'invalid_platform_webhook' });
    expect(await webhookRows()).toBe(before);
  });

  it('read the product again from Zid: the payload is never trusted alone; a delivery sent again is worked once', async () => {
    const store = sim.stores.get(STORE);
    const install = await installOf(STORE);
    store?.products.set(ASAD, { id: ASAD, name: 'Asad EDP 100ml', price: 199, infinite: true });
    const update = sim.webhook(STORE, 'product.update', { id: ASAD, price: 1 });
    expect((await app.inject(update)).json()).toEqual({ received: true, duplicate: false });
    expect((await app.inject(update)).json()).toEqual({ received: true, duplicate: true });
    const NEW = '0b7c5f4e-1111-4a6b-9c0d-000000000006';
    store?.products.set(NEW, { id: NEW, name: 'Hawas for Him EDP 100ml', price: 300, brand: 'Rasasi' });
    await app.inject(sim.webhook(STORE, 'product.create', { id: NEW }));
    store?.products.delete(BADEE);
    await app.inject(sim.webhook(STORE, 'product.delete', { id: BADEE }));
    await app.jobs.drain();
    const stored = await productsOf(install?.merchantId as string);
    expect(stored.find((p) => p.merchantProductId === ASAD)?.price).toBe(199);
    expect(stored.find((p) => p.merchantProductId === NEW)).toMatchObject({ house: 'Rasasi', price: 300 });
    expect(stored.map((p) => p.merchantProductId)).not.toContain(BADEE);
    const rows = await app.db
      .select()
      .from(platformWebhooks)
      .where(eq(platformWebhooks.storeId, String(STORE)));
    expect(rows.every((r) => r.status === 'done' && r.attempts === 1 && r.bodyEncrypted === null)).toBe(true);
  });

  it('the same body for another event is another delivery (the event is in the URL, not the body)', async () => {
    const install = await installOf(STORE);
    const body = { id: ASAD };
    await app.inject(sim.webhook(STORE, 'product.publish', body));
    await app.jobs.drain();
    sim.stores.get(STORE)?.products.delete(ASAD);
    const gone = await app.inject(sim.webhook(STORE, 'product.delete', body));
    expect(gone.json()).toEqual({ received: true, duplicate: false });
    await app.jobs.drain();
    expect((await productsOf(install?.merchantId as string)).map((p) => p.merchantProductId)).not.toContain(ASAD);
    // back on the shelf for the tests that follow
    sim.stores.get(STORE)?.products.set(ASAD, { id: ASAD, name: 'Asad EDP 100ml', price: 199, infinite: true });
    await app.inject(sim.webhook(STORE, 'product.create', { id: ASAD, n: 2 }));
    await app.jobs.drain();
  });
});

describe('orders', () => {
  const keyOf = async () =>
    (await app.inject({ method: 'GET', url: `/api/platforms/zid/stores/${STORE}/widget` })).json()
      .publishable_key as string;
  const event = (key: string, body: object) =>
    app.inject({
      method: 'POST',
      url: '/api/widget/event',
      headers: { origin: ORIGIN, 'content-type': 'application/json' },
      payload: JSON.stringify({ api_key: key, ...body }),
    });
  const purchases = async (orderId: string) => {
    const r = (await app.db.execute(
      sql`select session_id, total, attributed from purchases where order_id = ${orderId}`,
    )) as unknown;
    return (Array.isArray(r) ? r : ((r as { rows: unknown[] }).rows ?? [])) as {
      session_id: string | null;
      total: string | number;
      attributed: boolean;
    }[];
  };

  it("an order Zid reports and the shopper's browser reports is counted once, with its session", async () => {
    const key = await keyOf();
    const session = await scoredSession(app, key, ORIGIN);
    await event(key, {
      session_id: session,
      type: 'recommendation_clicked',
      merchant_product_id: KHAMRAH,
      position: 1,
    });
    await app.inject(sim.webhook(STORE, 'order.create', sim.order(STORE, 70001, [{ product: KHAMRAH, price: 250 }])));
    // the payment update carries the same order: still one purchase
    await app.inject(
      sim.webhook(STORE, 'order.payment_status.update', sim.order(STORE, 70001, [{ product: KHAMRAH, price: 250 }])),
    );
    await app.jobs.drain();
    expect(await purchases('70001')).toEqual([expect.objectContaining({ session_id: null })]);
    const browser = await event(key, {
      session_id: session,
      type: 'purchase_completed',
      order_id: '70001',
      total: 250,
      currency: 'SAR',
      items: [{ merchant_product_id: KHAMRAH, quantity: 1, price: 250 }],
    });
    expect(browser.statusCode).toBe(202);
    const rows = await purchases('70001');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ session_id: session, attributed: true });
    expect(Number(rows[0]?.total)).toBe(250);
  });

  it('a cancelled or failed order is no purchase', async () => {
    await app.inject(
      sim.webhook(STORE, 'order.create', sim.order(STORE, 70002, [{ product: ASAD, price: 199 }], 'canceled')),
    );
    await app.jobs.drain();
    expect(await purchases('70002')).toEqual([]);
  });
});

describe('tokens', () => {
  it('ten concurrent calls that find the tokens due send one refresh, and all get the new tokens', async () => {
    const install = await installOf(STORE);
    await app.db
      .update(platformInstalls)
      .set({ tokenExpiresAt: new Date(Date.now() + 86_400_000) })
      .where(eq(platformInstalls.id, install?.id as string));
    const before = sim.refreshCalls;
    const refresh = async (refreshToken: string) => {
      const { zidTokens } = await import('../platforms/zid.ts');
      const r = await fetch(`${sim.base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          client_id: '1234',
          client_secret: 'zid-client-secret',
          redirect_uri: 'x',
        }),
      });
      return zidTokens(await r.json()) as NonNullable<ReturnType<typeof zidTokens>>;
    };
    const all = await Promise.all(
      Array.from({ length: 10 }, () =>
        storeTokens(app.db, app.leadCipher, 'zid', String(STORE), refresh, { aheadMs: 60 * 86_400_000 }),
      ),
    );
    expect(sim.refreshCalls - before).toBe(1);
    const s = sim.stores.get(STORE);
    expect(new Set(all.map((t) => `${t.accessToken}|${t.authorization}`))).toEqual(
      new Set([`${s?.accessToken}|${s?.authorization}`]),
    );
    expect(s?.revoked).toBe(false);
  });
});

describe('uninstall and reinstall', () => {
  const notice = (store: number, event: string) => ({
    method: 'POST' as const,
    url: '/api/platforms/zid/app-events',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({
      app_id: 1234,
      store_id: store,
      store_url: `https://store-${store}.zid.sim.example/`,
      status: event.endsWith('uninstall') ? 'uninstalled' : 'active',
      event_name: event,
      merchant_email: `owner-${store}@zid.sim.example`,
    }),
  });

  it('takes only App Market notices, keeps only the uninstall, and limits how many one address sends', async () => {
    const before = await webhookRows();
    // a store event by the unsigned door: refused, so the store's secret cannot be gone around
    for (const event_name of ['product.delete', 'order.create']) {
      const r = await app.inject({
        method: 'POST',
        url: '/api/platforms/zid/app-events',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ event_name, store_id: STORE, id: ASAD, order_total: 1 }),
      });
      expect(r.statusCode, event_name).toBe(400);
      expect(r.json()).toMatchObject({ code: 'invalid_platform_webhook' });
    }
    // another App Market notice: acknowledged, nothing kept
    expect((await app.inject(notice(STORE, 'app.market.application.rated'))).json()).toEqual({
      received: true,
      duplicate: false,
    });
    expect(await webhookRows()).toBe(before);
    const products = await productsOf((await installOf(STORE))?.merchantId as string);
    expect(products.map((p) => p.merchantProductId)).toContain(ASAD);
    // one address sends at most 60 a minute: the rest wait (this instance counts them)
    const answers = [];
    for (let i = 0; i < 60; i++) {
      answers.push(
        (await app.inject({ ...notice(STORE, 'app.market.application.rated'), remoteAddress: '203.0.113.9' }))
          .statusCode,
      );
    }
    const over = await app.inject({ ...notice(STORE, 'app.market.application.rated'), remoteAddress: '203.0.113.9' });
    expect(answers.every((s) => s === 200)).toBe(true);
    expect(over.statusCode).toBe(429);
    expect(over.json()).toMatchObject({ code: 'rate_limited' });
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('a 403 or a 5xx from Zid is not taken for an uninstall', async () => {
    for (const status of [403, 503]) {
      sim.profileStatus = status;
      const n = notice(STORE, 'app.market.application.uninstall');
      await app.inject({ ...n, payload: n.payload.replace('"app_id":1234', `"app_id":1234,"try":${status}`) });
      await app.jobs.drain();
      expect((await installOf(STORE))?.status, String(status)).toBe('installed');
    }
    sim.profileStatus = null;
    // both notices wait to be looked at again (the dispatch of stored webhooks sends them), with why
    const waiting = await app.db
      .select()
      .from(platformWebhooks)
      .where(eq(platformWebhooks.event, 'app.market.application.uninstall'));
    expect(waiting.map((w) => [w.status, w.error?.match(/answered (\d+)/)?.[1]]).sort()).toEqual([
      ['received', '403'],
      ['received', '503'],
    ]);
  });

  it('an uninstall notice is believed only once Zid refuses the store’s tokens', async () => {
    // forged: Zid still accepts the store's tokens, so nothing changes
    const forged = await app.inject(notice(STORE, 'app.market.application.uninstall'));
    expect(forged.statusCode).toBe(200);
    await app.jobs.drain();
    expect((await installOf(STORE))?.status).toBe('installed');
    // a store that never installed: refused, nothing kept
    const before = await webhookRows();
    expect((await app.inject(notice(424242, 'app.market.application.uninstall'))).json()).toMatchObject({
      code: 'unknown_store',
    });
    expect(await webhookRows()).toBe(before);

    // the merchant really uninstalls: Zid's tokens stop working, and the notice is acted on
    sim.uninstall(STORE);
    const real = notice(STORE, 'app.market.application.uninstall');
    await app.inject({ ...real, payload: real.payload.replace('"app_id":1234', '"app_id":1234,"n":2') });
    await app.jobs.drain();
    const install = await installOf(STORE);
    expect(install).toMatchObject({ status: 'uninstalled', accessTokenEncrypted: null, authTokenEncrypted: null });
    expect(install?.webhookSecretEncrypted).toBeNull();
    const live = await app.db
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.merchantId, install?.merchantId as string));
    expect(live.every((k) => k.revokedAt !== null)).toBe(true);
    expect((await app.inject({ method: 'GET', url: `/api/platforms/zid/stores/${STORE}/widget` })).statusCode).toBe(
      404,
    );
  });

  it('a reinstall finds the same merchant, with new keys and a new webhook secret', async () => {
    const before = await installOf(STORE);
    const { callback } = await installFromZid(STORE);
    expect(callback.statusCode).toBe(303);
    await app.jobs.drain();
    const after = await installOf(STORE);
    expect(after).toMatchObject({ status: 'installed', merchantId: before?.merchantId });
    expect(
      (
        await app.db
          .select()
          .from(merchants)
          .where(eq(merchants.slug, `zid-${STORE}`))
      ).length,
    ).toBe(1);
    const keys = await app.db
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.merchantId, after?.merchantId as string));
    expect(keys.filter((k) => k.revokedAt === null)).toHaveLength(2);
    // the subscriptions were made again with the new secret; the old one opens nothing
    const fresh = sim.webhook(STORE, 'product.update', { id: ASAD });
    expect((await app.inject(fresh)).statusCode).toBe(200);
    const products = await productsOf(after?.merchantId as string);
    expect(products.length).toBeGreaterThan(0);
  });
});
