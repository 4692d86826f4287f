import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleUsers } from '../../schema/index.ts';
import { createConsoleUser } from '../../services/console-users.ts';
import { createMerchant } from '../../services/merchants.ts';
import { Browser, PASSWORD } from '../console-session.ts';
import { adminHeaders, buildTestApp, closeTestApp, type TestApp } from '../helper.ts';
import { installFromShopify, ShopifySimulator } from '../shopify-sim.ts';
import { connectFromWoo, type WooSimProduct, WooSimulator } from '../woo-sim.ts';
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
