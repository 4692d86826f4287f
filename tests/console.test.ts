import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../db/client.ts';
import { consoleSessions, leads } from '../schema/index.ts';
import { createConsoleUser, purgeConsoleSessions } from '../services/console-users.ts';
import { createMerchant } from '../services/merchants.ts';
import { syncProducts } from '../services/products.ts';
import { Browser, PASSWORD } from './console-session.ts';
import {
  ADMIN_TOKEN,
  buildTestApp,
  closeTestApp,
  createMerchantWithKey,
  scoredSession,
  type TestApp,
} from './helper.ts';

/**
 * The merchant console through HTTP, as a browser uses it: cookies kept between requests, the
 * CSRF token read from each form. (tests/browser-console.test.ts drives the same pages in Chromium.)
 */

let app: TestApp;
const ORIGIN = 'https://shop.example';

beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(async () => closeTestApp(app));

const figure = (body: string, id: string) => new RegExp(`data-figure="${id}">([^<]*)<`).exec(body)?.[1];

async function shop(slug: string) {
  const merchant = await createMerchant(app.db, { name: `Shop ${slug}`, slug });
  await createConsoleUser(app.db, {
    email: `owner@${slug}.example`,
    password: PASSWORD,
    role: 'owner',
    merchant: merchant.id,
  });
  await createConsoleUser(app.db, {
    email: `staff@${slug}.example`,
    password: PASSWORD,
    role: 'staff',
    merchant: merchant.id,
  });
  return merchant;
}

describe('the first operator', () => {
  it('is made with ADMIN_TOKEN while none exists, and the door closes after', async () => {
    const b = new Browser(app, '10.0.1.1');
    const home = await b.get('/console');
    expect(home.statusCode).toBe(303);
    expect(home.headers.location).toBe('/console/setup');
    await b.get('/console/setup');
    const wrong = await b.post('/console/setup', {
      token: 'not-the-token',
      email: 'op@sillage.example',
      password: PASSWORD,
    });
    expect(wrong.statusCode).toBe(401);
    const made = await b.post('/console/setup', {
      token: ADMIN_TOKEN,
      email: 'op@sillage.example',
      password: PASSWORD,
    });
    expect(made.statusCode).toBe(303);
    const list = await b.get('/console');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('op@sillage.example');
    // a second visitor finds the setup closed
    const other = new Browser(app, '10.0.1.2');
    expect((await other.get('/console/setup')).headers.location).toBe('/console/sign-in');
    await other.get('/console/sign-in');
    const again = await other.post('/console/setup', {
      token: ADMIN_TOKEN,
      email: 'op2@sillage.example',
      password: PASSWORD,
    });
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe('/console/sign-in');
  });
});

describe('sign-in', () => {
  it('refuses a wrong password, throttles guessing per email and address, and lets the right one in otherwise', async () => {
    await shop('throttle-shop');
    const b = new Browser(app, '10.0.2.1');
    const ok = await b.signIn('owner@throttle-shop.example');
    expect(ok.statusCode).toBe(303);
    const guesser = new Browser(app, '10.0.2.2');
    for (let i = 0; i < 5; i++) {
      const res = await guesser.signIn('staff@throttle-shop.example', `wrong password ${i}`);
      expect(res.statusCode).toBe(401);
    }
    // the right password too, from that address: the email is locked there for the window
    const locked = await new Browser(app, '10.0.2.2').signIn('staff@throttle-shop.example');
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    // from another address the staff member signs in (tests/security/sign-in.test.ts: the rest of the rules)
    expect((await new Browser(app, '10.0.2.3').signIn('staff@throttle-shop.example')).statusCode).toBe(303);
  });

  it('sends a signed-out visitor to the sign-in page and an expired session there too', async () => {
    await shop('expiry-shop');
    const b = new Browser(app, '10.0.3.1');
    expect((await b.get('/console/m/expiry-shop/')).headers.location).toBe('/console/sign-in');
    await b.signIn('owner@expiry-shop.example');
    expect((await b.get('/console/m/expiry-shop/')).statusCode).toBe(200);
    await app.db.update(consoleSessions).set({ expiresAt: new Date(Date.now() - 1000) });
    expect((await b.get('/console/m/expiry-shop/')).headers.location).toBe('/console/sign-in');
    // the retention purge frees the expired rows
    expect(await purgeConsoleSessions(app.db)).toBeGreaterThan(0);
    expect(await app.db.select().from(consoleSessions)).toHaveLength(0);
  });

  it('signs out: the session is gone from the store, and its cookie opens nothing', async () => {
    await shop('signout-shop');
    const b = new Browser(app, '10.0.4.1');
    await b.signIn('owner@signout-shop.example');
    await b.get('/console/m/signout-shop/');
    const stolen = new Map(b.cookies);
    const before = await app.db.select({ n: sql<number>`count(*)::int` }).from(consoleSessions);
    const out = await b.post('/console/sign-out', {});
    expect(out.statusCode).toBe(303);
    const after = await app.db.select({ n: sql<number>`count(*)::int` }).from(consoleSessions);
    expect(Number(after[0]?.n)).toBe(Number(before[0]?.n) - 1);
    const replay = new Browser(app, '10.0.4.2');
    replay.cookies = stolen;
    expect((await replay.get('/console/m/signout-shop/')).headers.location).toBe('/console/sign-in');
  });
});

describe('who sees what', () => {
  it('answers 404 to a user of another merchant, for pages and for changes', async () => {
    await shop('mine-shop');
    const theirs = await shop('theirs-shop');
    await syncProducts(app.db, app.catalog.current(), theirs.id, [
      { merchant_product_id: 'T1', name: 'Khamrah EDP 100ml', house: 'Lattafa', price: 150 },
    ]);
    const b = new Browser(app, '10.0.5.1');
    await b.signIn('staff@mine-shop.example');
    for (const path of ['/', '/asks', '/shelf', '/install', '/leads', '/team', '/shelf/product?id=T1']) {
      const res = await b.get(`/console/m/theirs-shop${path}`);
      expect(res.statusCode, path).toBe(404);
      expect(res.body).not.toContain('Khamrah');
    }
    await b.get('/console/m/mine-shop/shelf');
    const pin = await b.post('/console/m/theirs-shop/shelf/pin', { product: 'T1', perfume: 'lattafa-khamrah-edp' });
    expect(pin.statusCode).toBe(404);
  });

  it('keeps staff out of keys, leads and the team, and lets the owner in', async () => {
    await shop('roles-shop');
    const staff = new Browser(app, '10.0.6.1');
    await staff.signIn('staff@roles-shop.example');
    expect((await staff.get('/console/m/roles-shop/shelf')).statusCode).toBe(200);
    for (const path of ['/install', '/leads', '/team', '/leads.csv']) {
      expect((await staff.get(`/console/m/roles-shop${path}`)).statusCode, path).toBe(403);
    }
    const owner = new Browser(app, '10.0.6.2');
    await owner.signIn('owner@roles-shop.example');
    for (const path of ['/install', '/leads', '/team']) {
      expect((await owner.get(`/console/m/roles-shop${path}`)).statusCode, path).toBe(200);
    }
  });

  it('refuses a change without the CSRF token, and with a token made for another user', async () => {
    const m = await shop('csrf-shop');
    await syncProducts(app.db, app.catalog.current(), m.id, [
      { merchant_product_id: 'C1', name: 'Mystery bottle 100ml', house: 'Nobody Knows', price: 90 },
    ]);
    const owner = new Browser(app, '10.0.7.1');
    await owner.signIn('owner@csrf-shop.example');
    await owner.get('/console/m/csrf-shop/shelf');
    const none = await owner.post(
      '/console/m/csrf-shop/shelf/pin',
      { product: 'C1', perfume: 'lattafa-khamrah-edp' },
      { csrf: null },
    );
    expect(none.statusCode).toBe(403);
    expect(none.body).toContain('<html');
    const json = await app.inject({
      method: 'POST',
      url: '/console/m/csrf-shop/shelf/pin',
      payload: 'product=C1&perfume=lattafa-khamrah-edp',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: [...owner.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
    });
    expect(json.statusCode).toBe(403);
    expect(json.json()).toMatchObject({ code: 'invalid_csrf_token' });
    // the staff member's token, sent in the owner's session
    const staff = new Browser(app, '10.0.7.2');
    await staff.signIn('staff@csrf-shop.example');
    await staff.get('/console/m/csrf-shop/shelf');
    const foreign = await owner.post(
      '/console/m/csrf-shop/shelf/pin',
      { product: 'C1', perfume: 'lattafa-khamrah-edp' },
      { csrf: staff.csrf },
    );
    expect(foreign.statusCode).toBe(403);
    const [row] = rowsOf<{ match_pinned: boolean }>(
      await app.db.execute(sql`select match_pinned from merchant_products where merchant_product_id = 'C1'`),
    );
    expect(row?.match_pinned).toBe(false);
  });
});

describe('the overview', () => {
  it('shows the figures of the events sent, live and test apart', async () => {
    const { merchant, key } = await createMerchantWithKey(app, { slug: 'figures-shop' });
    await createConsoleUser(app.db, {
      email: 'owner@figures-shop.example',
      password: PASSWORD,
      role: 'owner',
      merchant: merchant.id,
    });
    const send = (session: string, events: object[]) =>
      app.inject({
        method: 'POST',
        url: '/api/widget/event',
        payload: { api_key: key, session_id: session, events },
        headers: { origin: ORIGIN },
      });
    for (let i = 0; i < 3; i++) {
      const s = randomUUID();
      const r = await send(s, [
        { type: 'widget_loaded' },
        { type: 'quiz_started' },
        ...(i < 2 ? [{ type: 'quiz_completed' }] : []),
      ]);
      expect(r.statusCode).toBe(202);
    }
    const b = new Browser(app, '10.0.8.1');
    await b.signIn('owner@figures-shop.example');
    const page = await b.get('/console/m/figures-shop/');
    expect(figure(page.body, 'views')).toBe('3');
    expect(figure(page.body, 'starts')).toBe('3');
    expect(figure(page.body, 'completions')).toBe('2');
    const test = await b.get('/console/m/figures-shop/?traffic=test');
    expect(figure(test.body, 'views')).toBe('0');
    // a shop with only a test key (the demo's) is shown its test traffic by default
    const { merchant: trial, key: trialKey } = await createMerchantWithKey(app, { slug: 'trial-shop', mode: 'test' });
    await createConsoleUser(app.db, {
      email: 'owner@trial-shop.example',
      password: PASSWORD,
      role: 'owner',
      merchant: trial.id,
    });
    const sent = await app.inject({
      method: 'POST',
      url: '/api/widget/event',
      payload: { api_key: trialKey, session_id: randomUUID(), type: 'widget_loaded' },
      headers: { origin: ORIGIN },
    });
    expect(sent.statusCode).toBe(202);
    const t = new Browser(app, '10.0.8.2');
    await t.signIn('owner@trial-shop.example');
    const trialPage = await t.get('/console/m/trial-shop/');
    expect(figure(trialPage.body, 'views')).toBe('1');
    expect(trialPage.body).toMatch(/<option value="test" selected>/);
    const en = await b.get('/console/m/figures-shop/?lang=en');
    expect(en.body).toContain('<html lang="en" dir="ltr">');
    const missing = await b.get('/console/m/figures-shop/no-such-page');
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toContain('text/html');
    const ar = await b.get('/console/m/figures-shop/?lang=ar');
    expect(ar.body).toContain('<html lang="ar" dir="rtl">');
    expect(ar.headers['content-security-policy']).toContain("default-src 'none'");
  });

  it('refuses a period backwards or longer than a year', async () => {
    await shop('period-shop');
    const b = new Browser(app, '10.0.9.1');
    await b.signIn('owner@period-shop.example');
    expect((await b.get('/console/m/period-shop/?from=2026-02-01&to=2026-01-01')).statusCode).toBe(400);
    expect((await b.get('/console/m/period-shop/?from=2020-01-01&to=2026-01-01')).statusCode).toBe(400);
  });
});

describe('what shoppers ask for', () => {
  it('counts the families, accords, season and occasion chosen, and names products, not ids, in the page language', async () => {
    const { merchant, key } = await createMerchantWithKey(app, { slug: 'asks-shop' });
    await createConsoleUser(app.db, {
      email: 'owner@asks-shop.example',
      password: PASSWORD,
      role: 'owner',
      merchant: merchant.id,
    });
    await syncProducts(app.db, app.catalog.current(), merchant.id, [
      { merchant_product_id: 'K-100', name: 'Lattafa Khamrah EDP 100ml', house: 'Lattafa', price: 150 },
    ]);
    const session = randomUUID();
    for (let i = 0; i < 2; i++) {
      const r = await app.inject({
        method: 'POST',
        url: '/api/widget/score',
        payload: {
          api_key: key,
          session_id: i === 0 ? session : randomUUID(),
          quiz: {
            families: ['amber'],
            accord_ratings: { oud: 'love', citrus: 'avoid' },
            season: 'winter',
            occasion: 'evening',
          },
        },
        headers: { origin: ORIGIN },
      });
      expect(r.statusCode).toBe(200);
    }
    await app.sessions.flush();
    const click = await app.inject({
      method: 'POST',
      url: '/api/widget/event',
      payload: {
        api_key: key,
        session_id: session,
        type: 'recommendation_clicked',
        merchant_product_id: 'K-100',
        position: 1,
      },
      headers: { origin: ORIGIN },
    });
    expect(click.statusCode).toBe(202);
    const b = new Browser(app, '10.0.14.1');
    await b.signIn('owner@asks-shop.example');
    const ar = await b.get('/console/m/asks-shop/asks');
    expect(ar.statusCode).toBe(200);
    for (const label of ['عنبري', 'عود', 'الشتاء', 'السهرات', 'Lattafa Khamrah EDP 100ml'])
      expect(ar.body).toContain(label);
    expect(ar.body).not.toContain('>K-100<');
    const en = await b.get('/console/m/asks-shop/asks?lang=en');
    expect(en.body).toMatch(/<td>Amber<\/td><td>2<\/td>/);
    expect(en.body).toMatch(/<td>Lattafa Khamrah EDP 100ml<\/td><td>1<\/td>/);
  });
});

describe('the shelf', () => {
  it('pins a product found by an Arabic search, and the next score recommends it as that perfume', async () => {
    const { merchant, key } = await createMerchantWithKey(app, { slug: 'shelf-shop' });
    await createConsoleUser(app.db, {
      email: 'owner@shelf-shop.example',
      password: PASSWORD,
      role: 'owner',
      merchant: merchant.id,
    });
    await syncProducts(app.db, app.catalog.current(), merchant.id, [
      { merchant_product_id: 'S1', name: 'عطر المساء الخاص 100 مل', house: 'متجرنا', price: 180 },
    ]);
    const score = async () => {
      const r = await app.inject({
        method: 'POST',
        url: '/api/widget/score',
        payload: { api_key: key, quiz: { families: ['oriental', 'gourmand'] }, limit: 6 },
        headers: { origin: ORIGIN },
      });
      expect(r.statusCode).toBe(200);
      return r.json() as { recommendations: { merchant_product_id: string; sillage_perfume_id?: string | null }[] };
    };
    const before = await score();
    expect(before.recommendations.find((r) => r.merchant_product_id === 'S1')?.sillage_perfume_id ?? null).toBeNull();
    const b = new Browser(app, '10.0.10.1');
    await b.signIn('owner@shelf-shop.example');
    const shelf = await b.get('/console/m/shelf-shop/shelf?filter=unmatched');
    expect(shelf.body).toContain('عطر المساء الخاص');
    const found = await b.get(`/console/m/shelf-shop/shelf/product?id=S1&q=${encodeURIComponent('خمرة لطافة')}`);
    expect(found.statusCode).toBe(200);
    expect(found.body).toContain('value="lattafa-khamrah-edp"');
    const pinned = await b.post('/console/m/shelf-shop/shelf/pin', { product: 'S1', perfume: 'lattafa-khamrah-edp' });
    expect(pinned.statusCode).toBe(303);
    const after = await score();
    expect(after.recommendations.find((r) => r.merchant_product_id === 'S1')?.sillage_perfume_id).toBe(
      'lattafa-khamrah-edp',
    );
    const unpinned = await b.post('/console/m/shelf-shop/shelf/unpin', { product: 'S1' });
    expect(unpinned.statusCode).toBe(303);
    expect(
      (await score()).recommendations.find((r) => r.merchant_product_id === 'S1')?.sillage_perfume_id ?? null,
    ).toBeNull();
  });

  it('bulk-accepts suggestions, at most 100 at once', async () => {
    const m = await shop('bulk-shop');
    await syncProducts(app.db, app.catalog.current(), m.id, [
      { merchant_product_id: 'B1', name: 'Khamrah Qahwa', house: 'Unknown House', price: 100 },
    ]);
    const b = new Browser(app, '10.0.11.1');
    await b.signIn('owner@bulk-shop.example');
    const shelf = await b.get('/console/m/bulk-shop/shelf');
    const offered = /name="accept" value="([^"]+)"/.exec(shelf.body)?.[1];
    if (offered) {
      const res = await b.post('/console/m/bulk-shop/shelf/accept', { accept: [offered] });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toContain('n=1');
    }
    const tooMany = await b.post('/console/m/bulk-shop/shelf/accept', {
      accept: Array.from({ length: 101 }, (_, i) => `P${i}`),
    });
    expect(tooMany.statusCode).toBe(400);
  });
});

describe('install', () => {
  it('creates a key shown once, revokes it for every request, and reports where the widget was seen', async () => {
    const { merchant, key } = await createMerchantWithKey(app, { slug: 'install-shop', origins: [ORIGIN] });
    await createConsoleUser(app.db, {
      email: 'owner@install-shop.example',
      password: PASSWORD,
      role: 'owner',
      merchant: merchant.id,
    });
    await app.inject({
      method: 'POST',
      url: '/api/widget/verify',
      payload: { api_key: key },
      headers: { origin: 'https://elsewhere.example' },
    });
    await app.keyStore.flush();
    const b = new Browser(app, '10.0.12.1');
    await b.signIn('owner@install-shop.example');
    const page = await b.get('/console/m/install-shop/install');
    expect(page.body).toContain('https://elsewhere.example');
    expect(page.body).toContain('origin_not_allowed');
    const created = await b.post('/console/m/install-shop/keys', {
      mode: 'test',
      origins: 'https://shop.example\nhttps://*.shop.example',
    });
    expect(created.statusCode).toBe(200);
    const plain = /id="new-key"[^>]*>(pk_test_[^<]+)</.exec(created.body)?.[1] as string;
    expect(plain).toBeTruthy();
    expect(created.body).toContain(`data-key=&quot;${plain}&quot;`);
    // shown once: the next view's tag says where the key goes, never a shortened key that would not work
    const later = (await b.get('/console/m/install-shop/install')).body;
    expect(later).not.toContain(plain);
    expect(later).toContain('data-key=&quot;YOUR_WIDGET_KEY&quot;');
    expect(later).not.toMatch(/data-key=&quot;pk_(live|test)_/);
    expect(later).toMatch(/ضع مفتاح الأداة مكان YOUR_WIDGET_KEY: المفتاح الذي يبدأ بـ pk_(live|test)_\w{4}…/);
    const ok = await app.inject({
      method: 'POST',
      url: '/api/widget/verify',
      payload: { api_key: plain },
      headers: { origin: ORIGIN },
    });
    expect(ok.statusCode).toBe(200);
    const keyId = new RegExp(`data-key="([0-9a-f-]{36})"><td dir="ltr"><code>${plain.slice(0, 12)}`).exec(
      (await b.get('/console/m/install-shop/install')).body,
    )?.[1] as string;
    expect(keyId).toBeTruthy();
    // its allowed origins changed: the old one refused at once, the new one let in; a bad one refused with its reason
    const changed = await b.post('/console/m/install-shop/keys/origins', {
      key: keyId,
      origins: 'https://new.shop.example',
    });
    expect(changed.statusCode).toBe(303);
    const at = (origin: string) =>
      app.inject({ method: 'POST', url: '/api/widget/verify', payload: { api_key: plain }, headers: { origin } });
    expect((await at(ORIGIN)).statusCode).toBe(403);
    expect((await at('https://new.shop.example')).statusCode).toBe(200);
    await b.get('/console/m/install-shop/install');
    const refusedOrigins = await b.post('/console/m/install-shop/keys/origins', { key: keyId, origins: 'ftp://x' });
    expect(refusedOrigins.statusCode).toBe(400);
    expect(refusedOrigins.body).toContain('ftp://x');
    const revoked = await b.post('/console/m/install-shop/keys/revoke', { key: keyId });
    expect(revoked.statusCode).toBe(303);
    const refused = await app.inject({
      method: 'POST',
      url: '/api/widget/verify',
      payload: { api_key: plain },
      headers: { origin: ORIGIN },
    });
    expect(refused.statusCode).toBe(403);
    const bad = await b.post('/console/m/install-shop/keys', { mode: 'live', origins: 'not an origin' });
    expect(bad.statusCode).toBe(400);
  });
});

describe('leads', () => {
  it('lists, searches, exports and erases one lead', async () => {
    const { merchant, key } = await createMerchantWithKey(app, { slug: 'leads-shop' });
    await createConsoleUser(app.db, {
      email: 'owner@leads-shop.example',
      password: PASSWORD,
      role: 'owner',
      merchant: merchant.id,
    });
    for (const email of ['noura@example.com', 'fahad@example.com']) {
      const r = await app.inject({
        method: 'POST',
        url: '/api/widget/event',
        payload: {
          api_key: key,
          session_id: await scoredSession(app, key),
          type: 'lead_submitted',
          email,
          consent: true,
          consent_version: 'v1',
        },
        headers: { origin: ORIGIN },
      });
      expect(r.statusCode).toBe(202);
    }
    const b = new Browser(app, '10.0.13.1');
    await b.signIn('owner@leads-shop.example');
    const found = await b.get('/console/m/leads-shop/leads?q=noura');
    expect(found.body).toContain('noura@example.com');
    expect(found.body).not.toContain('fahad@example.com');
    const csv = await b.get('/console/m/leads-shop/leads.csv');
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body).toContain('fahad@example.com');
    const id = /data-lead="([0-9a-f-]{36})"/.exec(found.body)?.[1] as string;
    const erased = await b.post('/console/m/leads-shop/leads/erase', { lead: id });
    expect(erased.statusCode).toBe(303);
    const rows = await app.db.select().from(leads).where(eq(leads.merchantId, merchant.id));
    expect(rows).toHaveLength(1);
    expect((await b.get('/console/m/leads-shop/leads')).body).not.toContain('noura@example.com');
  });
});
