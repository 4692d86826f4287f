import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signConnect, wooStoreId } from '../../platforms/woocommerce.ts';
import { NEW_STORES_PER_ADDRESS_PER_HOUR, NEW_STORES_PER_HOUR } from '../../plugins/app/woocommerce.ts';
import { CONNECT_STARTS_PER_MINUTE } from '../../routes/console/woocommerce.ts';
import { consoleUsers, merchants, platformInstalls } from '../../schema/index.ts';
import { createConsoleUser } from '../../services/console-users.ts';
import { createMerchant } from '../../services/merchants.ts';
import { Browser, PASSWORD } from '../console-session.ts';
import { adminHeaders, buildTestApp, closeTestApp, scoredSession, submitLead, type TestApp } from '../helper.ts';
import { installFromShopify, ShopifySimulator } from '../shopify-sim.ts';
import { connectFromWoo, startFromWoo, type WooSimProduct, WooSimulator } from '../woo-sim.ts';
import { cookieOf } from '../zid-sim.ts';

/**
 * The WooCommerce connection attacked (issue 44): what a store proves, not its address or an email
 * anyone can type, decides whose merchant and whose console it opens. Stores are tests/woo-sim.ts.
 */
let sim: WooSimulator;
let shopify: ShopifySimulator;
let app: TestApp;
const logs: string[] = [];
const SHELF: WooSimProduct[] = [{ id: 101, name: 'Sauvage Eau de Toilette 100ml', brand: 'Dior', price: 520 }];

beforeAll(async () => {
  sim = await new WooSimulator().start();
  shopify = await new ShopifySimulator().start();
  app = await buildTestApp({ ...sim.env(), ...shopify.env(), REDIS_URL: undefined, LOG_LEVEL: 'info' }, undefined, {
    logStream: { write: (line: string) => void logs.push(line) },
  });
});
afterAll(async () => {
  await closeTestApp(app);
  await sim.stop();
  await shopify.stop();
});

const accountOf = async (email: string) =>
  (await app.db.select().from(consoleUsers).where(eq(consoleUsers.email, email)))[0];
const storeIdOf = (path: string) => wooStoreId(sim.url(path), sim.stores.get(path)?.installation.key ?? null);
const installOf = async (storeId: string) =>
  (await app.db.select().from(platformInstalls).where(eq(platformInstalls.storeId, storeId)))[0];
/** A lead a shopper leaves on the store's storefront (its live key, its origin). */
async function leaveLead(path: string, publishableKey: string, email: string) {
  const origin = new URL(sim.url(path)).origin;
  const session = await scoredSession(app, publishableKey, origin);
  expect((await submitLead(app, publishableKey, session, { email }, origin)).statusCode).toBe(202);
}

describe('13. the connect token in the log', () => {
  it("WooCommerce's return carries the token as user_id: the request log keeps no trace of it", async () => {
    sim.addStore('logged', SHELF);
    const c = await connectFromWoo(app, sim, 'logged');
    expect(c.token.length).toBeGreaterThan(40);
    const lines = logs.join('\n');
    expect(lines).toContain('/console/woocommerce/return');
    expect(lines).not.toContain(c.token);
    expect(lines).not.toContain(encodeURIComponent(c.token));
    expect(lines).not.toContain(c.token.split('.')[1] as string);
  });
});

describe('6. an email typed by someone else never holds its owner out', () => {
  it('a fake WooCommerce store connected with a Shopify merchant’s email: the real Shopify install still signs them in', async () => {
    const victim = 'layla@oud-house.example';
    sim.addStore('squat', SHELF);
    const squat = await connectFromWoo(app, sim, 'squat', { email: victim });
    expect(squat.claim.statusCode).toBe(200);
    const squatted = await accountOf(victim);
    expect(squatted).toMatchObject({ role: 'owner', emailProven: false });

    shopify.addShop('oud-house', [], { email: victim });
    const { callback } = await installFromShopify(app, shopify, 'oud-house');
    // before: 303 to /console/sign-in and no session (the address was the fake store's owner's)
    expect(callback.statusCode).toBe(303);
    expect(callback.headers.location).toBe('/console/m/shopify-oud-house/install');
    const session = cookieOf(callback.headers['set-cookie'], 'console_session') as string;
    expect(session).toBeTruthy();
    const page = await app.inject({
      method: 'GET',
      url: '/console/m/shopify-oud-house/install',
      headers: { cookie: session },
    });
    expect(page.statusCode).toBe(200);
    const now = await accountOf(victim);
    expect(now?.id).not.toBe(squatted?.id);
    expect(now).toMatchObject({ role: 'owner', emailProven: true });
    // the squatter's merchant keeps no account with that address
    expect(now?.merchantId).not.toBe(squatted?.merchantId);
  });

  it("the operator creates the account of an address a WooCommerce connection or an owner's Team page took first", async () => {
    sim.addStore('squat-two', SHELF);
    await connectFromWoo(app, sim, 'squat-two', { email: 'omar@perfumes.example' });
    const target = await createMerchant(app.db, { name: 'Perfumes', slug: 'perfumes-target' });
    const made = await app.inject({
      method: 'POST',
      url: '/api/admin/console-users',
      headers: adminHeaders,
      payload: { email: 'omar@perfumes.example', password: PASSWORD, role: 'owner', merchant: target.id },
    });
    // before: 409 email_taken
    expect(made.statusCode, made.body).toBe(201);
    expect(await accountOf('omar@perfumes.example')).toMatchObject({ merchantId: target.id, emailProven: true });

    // an owner of another shop adds the operator's next colleague on the Team page first
    const squatter = await createMerchant(app.db, { name: 'Squatter', slug: 'squatter-team' });
    await createConsoleUser(app.db, {
      email: 'owner@squatter-team.example',
      password: PASSWORD,
      role: 'owner',
      merchant: squatter.id,
    });
    const b = new Browser(app, '10.44.6.1');
    await b.signIn('owner@squatter-team.example');
    await b.get('/console/m/squatter-team/team');
    const added = await b.post('/console/m/squatter-team/team', {
      email: 'sara@perfumes.example',
      password: PASSWORD,
      role: 'staff',
    });
    expect(added.statusCode).toBe(303);
    expect(await accountOf('sara@perfumes.example')).toMatchObject({ merchantId: squatter.id, emailProven: false });
    const operator = await app.inject({
      method: 'POST',
      url: '/api/admin/console-users',
      headers: adminHeaders,
      payload: { email: 'sara@perfumes.example', password: PASSWORD, role: 'staff', merchant: target.id },
    });
    expect(operator.statusCode, operator.body).toBe(201);
    expect(await accountOf('sara@perfumes.example')).toMatchObject({ merchantId: target.id });
  });

  it('an address typed again never takes one: a proven account stays, and the first typed one is not replaced by a second', async () => {
    const shop = await createMerchant(app.db, { name: 'Proven', slug: 'proven-shop' });
    const proven = await createConsoleUser(app.db, {
      email: 'huda@proven.example',
      password: PASSWORD,
      role: 'owner',
      merchant: shop.id,
    });
    sim.addStore('typed-again', SHELF);
    const c = await connectFromWoo(app, sim, 'typed-again', { email: 'huda@proven.example' });
    expect(c.claim.statusCode).toBe(200);
    expect(cookieOf(c.returned.headers['set-cookie'], 'console_session')).toBeUndefined();
    expect(await accountOf('huda@proven.example')).toMatchObject({ id: proven.id, merchantId: shop.id });
    // an owner's Team page cannot take an address another shop's Team page typed first
    const teams = [];
    for (const slug of ['first-team', 'second-team']) {
      const m = await createMerchant(app.db, { name: slug, slug });
      await createConsoleUser(app.db, {
        email: `owner@${slug}.example`,
        password: PASSWORD,
        role: 'owner',
        merchant: m.id,
      });
      const b = new Browser(app, '10.44.6.2');
      await b.signIn(`owner@${slug}.example`);
      await b.get(`/console/m/${slug}/team`);
      teams.push(
        await b.post(`/console/m/${slug}/team`, { email: 'nour@elsewhere.example', password: PASSWORD, role: 'staff' }),
      );
    }
    expect(teams.map((r) => r.statusCode)).toEqual([303, 409]);
    expect(await accountOf('nour@elsewhere.example')).toMatchObject({ emailProven: false });
  });
});

describe('4. a store is what its plugin proves, not its address', () => {
  /** The merchant a claim answered for (its console's address names it) and its install. */
  const claimed = async (c: { claim: { json(): { console_url: string } } }) => {
    const slug = new URL(c.claim.json().console_url).pathname.split('/')[3] as string;
    const [merchant] = await app.db.select().from(merchants).where(eq(merchants.slug, slug));
    const [install] = await app.db
      .select()
      .from(platformInstalls)
      .where(eq(platformInstalls.merchantId, merchant?.id as string));
    return { slug, merchant, install };
  };

  it("after the signed disconnection, a new WordPress at the address is a new merchant: the previous shop's leads stay with its owner", async () => {
    sim.addStore('changed-hands', SHELF);
    const first = await connectFromWoo(app, sim, 'changed-hands', { email: 'owner@changed-hands.example' });
    expect(first.claim.statusCode).toBe(200);
    const before = await claimed(first);
    await leaveLead('changed-hands', first.claim.json().publishable_key, 'shopper@private.example');
    await app.inject(sim.webhook('changed-hands', 'sillage.disconnected', { store_id: before.install?.storeId }));
    await app.jobs.drain();

    // the address changes hands: another WordPress there connects with another email
    sim.newWordPress('changed-hands');
    const next = await connectFromWoo(app, sim, 'changed-hands', { email: 'mallory@evil.example' });
    expect(next.claim.statusCode).toBe(200);
    const mallory = cookieOf(next.returned.headers['set-cookie'], 'console_session') as string;
    expect(mallory).toBeTruthy();
    // before: signed in as the owner of the same merchant, the previous shop's leads in her CSV
    const theirs = await app.inject({
      method: 'GET',
      url: `/console/m/${before.slug}/leads.csv`,
      headers: { cookie: mallory },
    });
    expect(theirs.body).not.toContain('shopper@private.example');
    expect(theirs.statusCode).toBe(404);
    const after = await claimed(next);
    expect(after.merchant?.id).not.toBe(before.merchant?.id);
    expect(after.install?.storeId).not.toBe(before.install?.storeId);
    const own = await app.inject({
      method: 'GET',
      url: `/console/m/${after.slug}/leads.csv`,
      headers: { cookie: mallory },
    });
    expect(own.statusCode).toBe(200);
    expect(own.body).not.toContain('shopper@private.example');
    // the previous owner is the previous merchant's only, and mallory is not among its users
    expect(await accountOf('owner@changed-hands.example')).toMatchObject({ merchantId: before.merchant?.id });
    expect(await accountOf('mallory@evil.example')).toMatchObject({ merchantId: after.merchant?.id });
    expect(await installOf(before.install?.storeId as string)).toMatchObject({ status: 'uninstalled' });
  });

  it('a reconnect while installed must come from the installation that connected: another is refused or gets a merchant of its own', async () => {
    sim.addStore('held', SHELF);
    const first = await connectFromWoo(app, sim, 'held', { email: 'owner@held.example' });
    expect(first.claim.statusCode).toBe(200);
    const held = await claimed(first);
    // "Connect again" from the same installation: the same merchant, its keys replaced
    const again = await connectFromWoo(app, sim, 'held', { email: 'owner@held.example' });
    expect(again.claim.statusCode).toBe(200);
    expect((await claimed(again)).merchant?.id).toBe(held.merchant?.id);
    const tokens = (await installOf(held.install?.storeId as string))?.accessTokenEncrypted;

    // another installation of the plugin on the same WordPress (whose keys still open the store)
    const store = sim.stores.get('held');
    const pair = generateKeyPairSync('ed25519');
    if (store) {
      store.installation = { privateKey: pair.privateKey, key: pair.publicKey.export({ format: 'jwk' }).x as string };
    }
    const other = await startFromWoo(app, sim, 'held', { email: 'mallory@evil.example' });
    // before: sent to the key screen, then the tokens replaced and mallory signed in as the owner
    expect(other.start.statusCode).toBe(409);
    expect(other.start.headers.location).toBeUndefined();
    expect(await installOf(held.install?.storeId as string)).toMatchObject({
      status: 'installed',
      accessTokenEncrypted: tokens,
    });

    // a new WordPress at the address (the old keys refused there): the old installation is
    // uninstalled, and the new one is a merchant of its own
    sim.newWordPress('held');
    const fresh = await connectFromWoo(app, sim, 'held', { email: 'mallory@evil.example' });
    expect(fresh.claim.statusCode).toBe(200);
    expect((await claimed(fresh)).merchant?.id).not.toBe(held.merchant?.id);
    expect(await installOf(held.install?.storeId as string)).toMatchObject({
      status: 'uninstalled',
      merchantId: held.merchant?.id,
      accessTokenEncrypted: null,
    });
  });
});

describe('7. one link signs nobody in', () => {
  it("a link through an attacker's store ends on a page whose button signs in, never on a session", async () => {
    // the attacker's own fake store: its "plugin" confirms anything, its key screen approves at once
    sim.addStore('csrf-shop', SHELF, { confirmsAny: true });
    await connectFromWoo(app, sim, 'csrf-shop', { email: 'attacker@evil.example' });
    const link = `/console/woocommerce/connect?${new URLSearchParams({
      store: sim.url('csrf-shop'),
      proof: 'e'.repeat(64),
      email: 'attacker@evil.example',
    })}`;
    // the victim's browser follows the link, every step a GET
    const victim = new Browser(app, '10.44.7.1');
    const start = await victim.get(link);
    expect(start.statusCode).toBe(302);
    const consent = await fetch(start.headers.location as string, { redirect: 'manual' });
    const post = sim.posted.shift();
    if (post) {
      await app.inject({
        method: 'POST',
        url: new URL(post.url).pathname,
        headers: { 'content-type': 'application/json' },
        payload: post.body,
        remoteAddress: '10.44.7.2',
      });
    }
    const back = new URL(consent.headers.get('location') as string);
    const landed = await victim.get(`${back.pathname}${back.search}`);
    // before: 303 with a console_session of the attacker's console
    expect(landed.statusCode).toBe(200);
    expect(victim.cookies.has('console_session')).toBe(false);
    expect(landed.body).toContain('attacker@evil.example');
    // the button needs this page's CSRF token and this browser's start
    const forged = await victim.post(
      '/console/woocommerce/return',
      { user_id: back.searchParams.get('user_id') as string },
      { csrf: null },
    );
    expect(forged.statusCode).toBe(403);
    const elsewhere = new Browser(app, '10.44.7.3');
    await elsewhere.get('/console/sign-in');
    const other = await elsewhere.post('/console/woocommerce/return', {
      user_id: back.searchParams.get('user_id') as string,
    });
    expect(other.statusCode).toBe(303);
    expect(elsewhere.cookies.has('console_session')).toBe(false);
    expect(victim.cookies.has('console_session')).toBe(false);
  });
});

describe('8. no redirect to an address nobody proved', () => {
  it('the connect route sends nobody to a store that does not confirm the connection, and makes no token for it', async () => {
    const asked = sim.confirmations;
    for (const store of ['https://evil.example/login', sim.url('login')]) {
      const r = await app.inject({
        method: 'GET',
        url: `/console/woocommerce/connect?${new URLSearchParams({ store, proof: 'f'.repeat(64) })}`,
        remoteAddress: '10.44.8.1',
      });
      // before: 302 to https://evil.example/login/?wc-auth-version=1… with a token
      expect(r.statusCode, store).toBe(400);
      expect(r.headers.location).toBeUndefined();
      expect(r.json()).toMatchObject({ code: 'invalid_oauth_state', error: expect.any(String) });
      expect(cookieOf(r.headers['set-cookie'], 'woocommerce_connect')).toBeUndefined();
    }
    expect(sim.confirmations).toBe(asked + 1);
    // a browser gets the console's error page, not a redirect
    const page = await new Browser(app, '10.44.8.2').get(
      `/console/woocommerce/connect?${new URLSearchParams({ store: 'https://evil.example/login', proof: 'f'.repeat(64) })}`,
    );
    expect(page.statusCode).toBe(400);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
  });

  it('the return route redirects only with a token the service made for a store that confirmed', async () => {
    const forged = signConnect(
      {
        store: 'https://evil.example',
        proof: 'f'.repeat(64),
        email: null,
        admin: 'https://evil.example/wp-admin/admin.php',
        key: 'A'.repeat(43),
        exp: Date.now() + 60_000,
      },
      Buffer.alloc(32, 1),
    );
    // a token asked of the connect route for a site that is no store (before: one was made, at will)
    const start = await app.inject({
      method: 'GET',
      url: `/console/woocommerce/connect?${new URLSearchParams({ store: sim.url('not-a-store'), proof: 'f'.repeat(64), admin: `${sim.url('not-a-store')}/wp-admin/admin.php` })}`,
      remoteAddress: '10.44.8.3',
    });
    const minted = start.headers.location
      ? new URL(start.headers.location as string).searchParams.get('user_id')
      : null;
    for (const token of [minted ?? forged, forged]) {
      const r = await app.inject({
        method: 'GET',
        url: `/console/woocommerce/return?success=1&user_id=${encodeURIComponent(token)}`,
      });
      // before: 303 to the chosen origin's wp-admin/admin.php?page=sillage…
      expect(r.statusCode).toBe(400);
      expect(r.headers.location).toBeUndefined();
      expect(r.json()).toMatchObject({ code: 'invalid_oauth_state' });
    }
    // a store that confirmed: back to its own plugin page, on its own origin
    sim.addStore('goes-back', SHELF);
    const c = await connectFromWoo(app, sim, 'goes-back');
    expect(c.page?.origin).toBe(new URL(sim.url('goes-back')).origin);
    expect(c.page?.pathname).toBe('/goes-back/wp-admin/admin.php');
  });
});

describe('3. new merchants from store connections are bounded', () => {
  it(`one address starts at most ${CONNECT_STARTS_PER_MINUTE} connections a minute: the ${CONNECT_STARTS_PER_MINUTE + 1}th asks no store`, async () => {
    const asked = sim.confirmations;
    const browser = new Browser(app, '10.44.3.1');
    for (let i = 0; i < CONNECT_STARTS_PER_MINUTE; i++) {
      const r = await browser.get(
        `/console/woocommerce/connect?${new URLSearchParams({ store: sim.url('nobody'), proof: 'f'.repeat(64) })}`,
      );
      expect(r.statusCode).toBe(400);
    }
    const r = await app.inject({
      method: 'GET',
      url: `/console/woocommerce/connect?${new URLSearchParams({ store: sim.url('nobody'), proof: 'f'.repeat(64) })}`,
      remoteAddress: '10.44.3.1',
    });
    expect(r.statusCode).toBe(429);
    expect(r.json()).toMatchObject({ code: 'rate_limited' });
    expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    expect(sim.confirmations).toBe(asked + CONNECT_STARTS_PER_MINUTE);
  });

  it(`one store server makes at most ${NEW_STORES_PER_ADDRESS_PER_HOUR} new merchants an hour`, async () => {
    const made: string[] = [];
    for (let i = 0; i <= NEW_STORES_PER_ADDRESS_PER_HOUR; i++) {
      const path = `spam-${i}`;
      sim.addStore(path, SHELF);
      const c = await connectFromWoo(app, sim, path, { storeIp: '203.0.113.44' });
      made.push(String(c.keys?.statusCode));
    }
    // before: every one a merchant
    expect(made).toEqual([...Array(NEW_STORES_PER_ADDRESS_PER_HOUR).fill('200'), '429']);
    expect(await installOf(storeIdOf(`spam-${NEW_STORES_PER_ADDRESS_PER_HOUR}`))).toBeUndefined();
    // a store already connected reconnects from that address all the same
    const again = await connectFromWoo(app, sim, 'spam-0', { storeIp: '203.0.113.44' });
    expect(again.keys?.statusCode).toBe(200);
  });

  it(`the service makes at most ${NEW_STORES_PER_HOUR} new WooCommerce merchants an hour in all`, async () => {
    const recent = await app.db
      .select({ id: platformInstalls.id })
      .from(platformInstalls)
      .innerJoin(merchants, eq(merchants.id, platformInstalls.merchantId))
      .where(eq(platformInstalls.platform, 'woocommerce'));
    const filler: string[] = [];
    for (let i = recent.length; i < NEW_STORES_PER_HOUR; i++) {
      const m = await createMerchant(app.db, { name: `filler ${i}`, slug: `woo-filler-${i}` });
      filler.push(m.id);
      await app.db
        .insert(platformInstalls)
        .values({ platform: 'woocommerce', storeId: `filler-${randomUUID()}`, merchantId: m.id });
    }
    try {
      sim.addStore('one-too-many', SHELF);
      const c = await connectFromWoo(app, sim, 'one-too-many');
      expect(c.keys?.statusCode).toBe(429);
      expect(c.keys?.json()).toMatchObject({ code: 'rate_limited' });
      expect(await installOf(storeIdOf('one-too-many'))).toBeUndefined();
    } finally {
      await app.db.delete(merchants).where(inArray(merchants.id, filler));
    }
  });
});
