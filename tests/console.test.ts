import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../db/client.ts';
import { consoleSessions, consoleUsers, leads } from '../schema/index.ts';
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

/**
 * What a reader sees of a page's main part: its text, without tags, and without what is written left
 * to right on purpose (emails, origins, key prefixes, the script tag: codes, not words), nor the
 * start of a key a sentence names (random letters and digits), nor what a source of the catalog
 * gave, quoted as it gave it (another text's words).
 */
function mainText(body: string): string {
  const main = body.slice(body.indexOf('<main'), body.indexOf('</main>'));
  return main
    .replace(/<(\w+)[^>]*\bdir="ltr"[^>]*>[\s\S]*?<\/\1>/g, ' ')
    .replace(/<q\b[^>]*>[\s\S]*?<\/q>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&[a-z#0-9]+;/g, ' ')
    .replace(/pk_(live|test)_\w+/g, ' ');
}
/** text as read: the marks that only steer its direction left out, a no-break space as a space */
const plain = (text: string | undefined) => (text ?? '').replace(/[\u200e\u200f\u061c]/g, '').replace(/\u00a0/g, ' ');
/** the reason a product's page gives */
const reasonOn = (page: string) => /<dd data-reason>([\s\S]*?)<\/dd>/.exec(page)?.[1];
/** the text of the elements of a page that carry an attribute, by its value */
const textsOf = (body: string, attribute: string) =>
  Object.fromEntries(
    [...body.matchAll(new RegExp(`<(\\w+)[^>]*\\b${attribute}="([^"]*)"[^>]*>([\\s\\S]*?)</\\1>`, 'g'))].map((m) => [
      m[2],
      (m[3] ?? '').replace(/<[^>]+>/g, '').trim(),
    ]),
  );

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
    // Arabic-Indic digits on an Arabic page, as the widget writes them
    const page = await b.get('/console/m/figures-shop/');
    expect(figure(page.body, 'views')).toBe('٣');
    expect(figure(page.body, 'starts')).toBe('٣');
    expect(figure(page.body, 'completions')).toBe('٢');
    const test = await b.get('/console/m/figures-shop/?traffic=test');
    expect(figure(test.body, 'views')).toBe('٠');
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
    const trialPage = await t.get('/console/m/trial-shop/?lang=en');
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

describe('one rule for digits, and every word in the page’s language', () => {
  it('writes every number of an Arabic page in Arabic-Indic digits, and of an English page in Latin ones', async () => {
    const { merchant, key } = await createMerchantWithKey(app, { slug: 'digits-shop' });
    await createConsoleUser(app.db, {
      email: 'owner@digits-shop.example',
      password: PASSWORD,
      role: 'owner',
      merchant: merchant.id,
    });
    await syncProducts(app.db, app.catalog.current(), merchant.id, [
      // a name without digits: a name is the merchant's own text, written as the merchant wrote it
      { merchant_product_id: 'D1', name: 'Khamrah Eau de Parfum', house: 'Lattafa', price: 145 },
    ]);
    const session = await scoredSession(app, key);
    const sent = await app.inject({
      method: 'POST',
      url: '/api/widget/event',
      payload: {
        api_key: key,
        session_id: session,
        events: [
          { type: 'widget_loaded' },
          { type: 'quiz_started' },
          { type: 'quiz_completed' },
          { type: 'recommendation_clicked', merchant_product_id: 'D1', position: 1 },
          {
            type: 'purchase_completed',
            order_id: 'o-digits-1',
            total: 1450,
            currency: 'SAR',
            items: [{ merchant_product_id: 'D1', quantity: 10, price: 145 }],
          },
        ],
      },
      headers: { origin: ORIGIN },
    });
    expect(sent.statusCode).toBe(202);
    const b = new Browser(app, '10.0.15.1');
    await b.signIn('owner@digits-shop.example');
    const ar = (await b.get('/console/m/digits-shop/?lang=ar')).body;
    // the revenue with its currency, the funnel's shares, the days, the chart's scale: not one Latin digit
    expect(plain(textsOf(ar, 'data-figure').revenue)).toBe('١٬٤٥٠٫٠٠ ر.س.');
    expect(ar).toMatch(/<dd data-figure="revenue"><span class="amount">[^<]+<\/span><\/dd>/);
    expect(ar).toContain('<td>١٠٠٫٠٪');
    expect(mainText(ar)).toMatch(/[٠-٩]/);
    expect(mainText(ar)).not.toMatch(/[0-9]/);
    for (const path of ['asks', 'shelf', 'shelf/product?id=D1&q=khamrah', 'install', 'team']) {
      const page = (await b.get(`/console/m/digits-shop/${path}`)).body;
      expect(mainText(page), path).not.toMatch(/[0-9]/);
    }
    const en = (await b.get('/console/m/digits-shop/?lang=en')).body;
    expect(plain(textsOf(en, 'data-figure').revenue)).toBe('SAR 1,450.00');
    expect(en).toContain('<td>100.0%');
    expect(mainText(en)).not.toMatch(/[٠-٩]/);
    // the day table names each day as the language writes a date
    const today = new Date().toISOString().slice(0, 10);
    const [y, m, d] = today.split('-').map(Number) as [number, number, number];
    const enDay = new Date(Date.UTC(y, m - 1, d)).toLocaleDateString('en-GB', {
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      timeZone: 'UTC',
    });
    expect(en).toContain(`<th scope="row">${enDay}</th>`);
  });

  it('gives the shelf’s and a product’s reason in the page’s language, from the matcher’s decision', async () => {
    const m = await shop('reasons-shop');
    await syncProducts(app.db, app.catalog.current(), m.id, [
      { merchant_product_id: 'R1', name: 'Khamrah EDP 100ml', house: 'Lattafa', price: 145 },
      { merchant_product_id: 'R2', name: 'Khamrah', house: 'Lattafa', price: 145 },
      { merchant_product_id: 'R3', name: 'Khamrah Body Lotion 200ml', house: 'Lattafa', price: 60 },
      { merchant_product_id: 'R4', name: 'Qwzxv Jpqrt 100ml', house: 'Lattafa', price: 60 },
    ]);
    const b = new Browser(app, '10.0.16.1');
    await b.signIn('owner@reasons-shop.example');
    const reasons = (body: string) => {
      const out: Record<string, string> = {};
      for (const row of body.matchAll(/<tr data-product="([^"]+)">([\s\S]*?)<\/tr>/g)) {
        out[row[1] as string] = (/<td class="why">([\s\S]*?)<\/td>/.exec(row[2] as string)?.[1] ?? '').trim();
      }
      return out;
    };
    const ar = reasons((await b.get('/console/m/reasons-shop/shelf?lang=ar')).body);
    expect(ar).toEqual({
      R1: 'طابقناه مع خمرة (أو دو بارفان) من لطافة.',
      R2: 'طابقناه مع خمرة (أو دو بارفان) من لطافة. لم يُذكر التركيز: اعتمدنا الإصدار الأصلي من السلسلة.',
      R3: 'ليس عطرًا: منتج للعناية بالجسم.',
      R4: 'لا يحمل أي عطر من لطافة هذا الاسم.',
    });
    for (const [id, reason] of Object.entries(ar)) expect(reason, id).not.toMatch(/[A-Za-z]/);
    const en = reasons((await b.get('/console/m/reasons-shop/shelf?lang=en')).body);
    expect(en).toEqual({
      R1: 'Matched to Khamrah (Eau de Parfum) by Lattafa.',
      R2: 'Matched to Khamrah (Eau de Parfum) by Lattafa. No concentration is listed: the line’s original.',
      R3: 'Not a perfume: a body care product.',
      R4: 'No perfume of Lattafa has this name.',
    });
    for (const [id, reason] of Object.entries(en)) expect(reason, id).not.toMatch(/[\u0600-\u06ff]/);
    // the product page says the same, with the perfume, the house read and the concentration in words
    const product = (await b.get('/console/m/reasons-shop/shelf/product?id=R1&lang=ar')).body;
    expect(reasonOn(product)).toBe(ar.R1);
    expect(product).toContain('<dd data-perfume="lattafa-khamrah-edp">خمرة (أو دو بارفان) من لطافة');
    expect(product).toMatch(/<dt>التركيز<\/dt><dd>أو دو بارفان<\/dd>/);
    expect(product).toMatch(/<dt>الدار<\/dt><dd>لطافة<\/dd>/);
    // a search in English, answered in Arabic: the catalog's names, the concentration as a word
    const found = (await b.get('/console/m/reasons-shop/shelf/product?id=R4&q=khamrah&lang=ar')).body;
    const khamrah = /<li><span>خمرة<\/span> <span class="muted">([^<]*)<\/span>/.exec(found)?.[1];
    expect(khamrah).toBe('لطافة · أو دو بارفان · ٢٠٢٢');
    // pinned by hand: the confirmation and the reason name the perfume in Arabic, "edp" nowhere
    await b.post('/console/m/reasons-shop/shelf/pin', { product: 'R4', perfume: 'lattafa-khamrah-edp' });
    const pinned = (await b.get('/console/m/reasons-shop/shelf/product?id=R4&done=pinned&lang=ar')).body;
    expect(pinned).toContain('ثُبّت على خمرة (أو دو بارفان) من لطافة. تستخدمه التوصيات التالية.');
    expect(reasonOn(pinned)).toBe('ثُبّت يدويًا على خمرة (أو دو بارفان) من لطافة.');
    // (the house "Lattafa" shown is the merchant's own field, as the merchant wrote it)
    expect(mainText(pinned)).not.toMatch(/\bedp\b|Khamrah/i);
  });

  it('names loved perfumes in Arabic on the asks page, and says why its count differs from the overview’s', async () => {
    const { merchant, key } = await createMerchantWithKey(app, { slug: 'loved-shop' });
    await createConsoleUser(app.db, {
      email: 'owner@loved-shop.example',
      password: PASSWORD,
      role: 'owner',
      merchant: merchant.id,
    });
    await syncProducts(app.db, app.catalog.current(), merchant.id, [
      { merchant_product_id: 'L1', name: 'Khamrah EDP 100ml', house: 'Lattafa', price: 145 },
    ]);
    // two quizzes scored through the API (the second a gift for her), one completion event from the widget
    for (let i = 0; i < 2; i++) {
      const r = await app.inject({
        method: 'POST',
        url: '/api/widget/score',
        payload: {
          api_key: key,
          quiz: { loved_perfumes: ['lattafa-khamrah-edp'], ...(i === 1 ? { gift: true, gender: 'women' } : {}) },
        },
        headers: { origin: ORIGIN },
      });
      expect(r.statusCode).toBe(200);
    }
    await app.sessions.flush();
    await app.inject({
      method: 'POST',
      url: '/api/widget/event',
      payload: { api_key: key, session_id: randomUUID(), type: 'quiz_completed' },
      headers: { origin: ORIGIN },
    });
    const b = new Browser(app, '10.0.17.1');
    await b.signIn('owner@loved-shop.example');
    const ar = (await b.get('/console/m/loved-shop/asks?lang=ar')).body;
    expect(ar).toContain('<td>خمرة (أو دو بارفان) من لطافة</td><td>٢</td>');
    expect(figure(ar, 'scored')).toBe('٢');
    // the gift path's quizzes, counted apart by recipient
    expect(figure(ar, 'gifts')).toBe('١');
    expect(textsOf(ar, 'data-note').gifts).toBe('اختبارات مسار الهدية محسوبة على حدة: له ٠، لها ١، لأي أحد ٠.');
    expect(textsOf(ar, 'data-note').scored).toContain('(١)');
    const en = (await b.get('/console/m/loved-shop/asks?lang=en')).body;
    expect(en).toContain('<td>Khamrah (Eau de Parfum) by Lattafa</td><td>2</td>');
    expect(textsOf(en, 'data-note').scored).toBe(
      'Counted from the answers the service scored: 2 in this period, through the widget or the API (a headless storefront, a shopper who changes an answer). The overview’s “Quizzes completed” (1) counts the widget’s completion events only, so the two can differ.',
    );
    expect(textsOf(en, 'data-note').gifts).toBe(
      'Quizzes of the gift path, counted apart: for him 0, for her 1, for anyone 0.',
    );
    expect(figure((await b.get('/console/m/loved-shop/?lang=en')).body, 'completions')).toBe('1');
  });

  it('names the install check’s outcomes and events in words, and lists a widget version once however it was named', async () => {
    const { merchant, key } = await createMerchantWithKey(app, { slug: 'words-shop', origins: [ORIGIN] });
    await createConsoleUser(app.db, {
      email: 'owner@words-shop.example',
      password: PASSWORD,
      role: 'owner',
      merchant: merchant.id,
    });
    // the same widget, once naming its version and once not
    for (const headers of [{ origin: ORIGIN }, { origin: ORIGIN, 'x-widget-version': 'v1' }]) {
      const r = await app.inject({ method: 'POST', url: '/api/widget/verify', payload: { api_key: key }, headers });
      expect(r.statusCode).toBe(200);
    }
    await app.inject({
      method: 'POST',
      url: '/api/widget/verify',
      payload: { api_key: key },
      headers: { origin: 'https://elsewhere.example' },
    });
    await app.keyStore.flush();
    const session = await scoredSession(app, key);
    const sent = await app.inject({
      method: 'POST',
      url: '/api/widget/event',
      payload: {
        api_key: key,
        session_id: session,
        events: [
          { type: 'widget_loaded' },
          {
            type: 'purchase_completed',
            order_id: 'o-words-1',
            total: 10,
            currency: 'SAR',
            items: [{ merchant_product_id: 'W1', quantity: 1, price: 10 }],
          },
        ],
      },
      headers: { origin: ORIGIN },
    });
    expect(sent.statusCode, sent.body).toBe(202);
    const b = new Browser(app, '10.0.18.1');
    await b.signIn('owner@words-shop.example');
    const ar = (await b.get('/console/m/words-shop/install?lang=ar')).body;
    const seen = [...ar.matchAll(/<tr><td dir="ltr">https:\/\/shop\.example<\/td>[\s\S]*?<\/tr>/g)].map((m) => m[0]);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain('<td dir="ltr">v1</td>');
    expect(seen[0]).toContain('<td data-outcome="ok">مقبول</td><td>٢</td>');
    expect(textsOf(ar, 'data-outcome').origin_not_allowed).toBe('مرفوض: النطاق غير مسموح به');
    expect(textsOf(ar, 'data-event')).toMatchObject({ purchase_completed: 'عملية شراء', widget_loaded: 'ظهرت الأداة' });
    expect(mainText(ar)).not.toMatch(/purchase_completed|widget_loaded|origin_not_allowed|\bok\b/);
    const en = (await b.get('/console/m/words-shop/install?lang=en')).body;
    expect(textsOf(en, 'data-event').purchase_completed).toBe('Purchase');
    expect(textsOf(en, 'data-outcome').ok).toBe('Let in');
    // the revoke asks its question with the language's own question mark
    expect(ar).toMatch(/data-confirm="إلغاء المفتاح pk_live_\w{4}…؟"/);
  });

  it('writes a list with the comma of the page’s language', async () => {
    const { merchant, key } = await createMerchantWithKey(app, { slug: 'comma-shop' });
    await createConsoleUser(app.db, {
      email: 'owner@comma-shop.example',
      password: PASSWORD,
      role: 'owner',
      merchant: merchant.id,
    });
    await syncProducts(app.db, app.catalog.current(), merchant.id, [
      { merchant_product_id: 'C1', name: 'Khamrah EDP 100ml', house: 'Lattafa', price: 145 },
      { merchant_product_id: 'C2', name: 'Yara EDP 100ml', house: 'Lattafa', price: 120 },
    ]);
    const r = await app.inject({
      method: 'POST',
      url: '/api/widget/event',
      payload: {
        api_key: key,
        session_id: await scoredSession(app, key),
        type: 'lead_submitted',
        email: 'huda@example.com',
        consent: true,
        consent_version: 'v1',
      },
      headers: { origin: ORIGIN },
    });
    expect(r.statusCode).toBe(202);
    const b = new Browser(app, '10.0.19.1');
    await b.signIn('owner@comma-shop.example');
    for (const path of ['leads', 'shelf/product?id=C1']) {
      const en = (await b.get(`/console/m/comma-shop/${path}${path.includes('?') ? '&' : '?'}lang=en`)).body;
      expect(mainText(en), path).not.toContain('،');
      expect(mainText(en), path).toMatch(/\w, \w/);
      const ar = (await b.get(`/console/m/comma-shop/${path}${path.includes('?') ? '&' : '?'}lang=ar`)).body;
      expect(mainText(ar), path).toContain('، ');
    }
  });
});

describe('the team page', () => {
  it('offers no Remove on your own row, and answers a removal of yourself with the team page and why', async () => {
    const m = await shop('team-shop');
    const b = new Browser(app, '10.0.20.1');
    await b.signIn('owner@team-shop.example');
    const page = (await b.get('/console/m/team-shop/team?lang=ar')).body;
    const rows = [...page.matchAll(/<tr><td dir="ltr">([^<]+)<\/td>([\s\S]*?)<\/tr>/g)];
    const removable = rows.filter((r) => (r[2] as string).includes('team/remove')).map((r) => r[1]);
    expect(removable).toEqual(['staff@team-shop.example']);
    expect(page).toContain('data-confirm="إزالة staff@team-shop.example؟"');
    const [me] = await app.db
      .select({ id: consoleUsers.id })
      .from(consoleUsers)
      .where(eq(consoleUsers.email, 'owner@team-shop.example'));
    const refused = await b.post('/console/m/team-shop/team/remove', { user: me?.id as string });
    expect(refused.statusCode).toBe(400);
    expect(refused.headers['content-type']).toContain('text/html');
    expect(refused.body).toContain('<p class="flash error" role="alert">لا يمكنك إزالة نفسك');
    // the page to go on from: the team and the console's navigation
    expect(refused.body).toContain('staff@team-shop.example');
    expect(refused.body).toContain(`href="/console/m/team-shop/"`);
    const users = await app.db.select().from(consoleUsers).where(eq(consoleUsers.merchantId, m.id));
    expect(users).toHaveLength(2);
    // a script is answered in JSON, as every console error is
    const json = await app.inject({
      method: 'POST',
      url: '/console/m/team-shop/team/remove',
      payload: new URLSearchParams({ _csrf: b.csrf, user: me?.id as string }).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
      remoteAddress: '10.0.20.1',
    });
    expect(json.statusCode).toBe(400);
    expect(json.json()).toMatchObject({ code: 'cannot_remove_self' });
  });
});

describe('the console’s own pieces', () => {
  it('serves its icon from its own origin, linked from every page', async () => {
    const icon = await app.inject({ method: 'GET', url: '/console/assets/favicon.svg' });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toBe('image/svg+xml');
    expect(icon.body).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    const b = new Browser(app, '10.0.21.1');
    const page = await b.get('/console/sign-in');
    expect(page.body).toContain('<link rel="icon" href="/console/assets/favicon.svg" type="image/svg+xml">');
    // the pages' policy lets it in: images of the console's own origin
    expect(page.headers['content-security-policy']).toContain("img-src 'self'");
  });

  it('says what is not found once, with its status and the way back', async () => {
    const b = new Browser(app, '10.0.22.1');
    const missing = await b.get('/console/nothing-here?lang=ar');
    expect(missing.statusCode).toBe(404);
    const text = mainText(missing.body);
    expect(text.split('لا يوجد شيء هنا.').length - 1).toBe(1);
    expect(missing.body).toContain('<p class="muted">٤٠٤</p>');
    expect(missing.body).toContain('<a href="/console">العودة إلى اللوحة</a>');
  });
});
