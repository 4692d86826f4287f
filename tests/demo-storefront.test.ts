import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeHtml } from '../lib/html.ts';
import { DEMO_CSP } from '../routes/demo/index.ts';
import { formatPrice } from '../routes/demo/pages.ts';
import { DEMO_SLUG, listDemoProducts } from '../services/demo.ts';
import { syncProducts } from '../services/products.ts';
import { labelOf } from '../vocabulary/index.ts';
import { resolveNote } from '../vocabulary/notes.ts';
import { buildTestApp, closeTestApp, type TestApp, verify } from './helper.ts';

let app: TestApp;
beforeAll(async () => {
  app = await buildTestApp({ SEED_DEMO: 'true' });
});
afterAll(() => closeTestApp(app));

const get = (url: string) => app.inject({ method: 'GET', url });

/** The page keeps to the CSP it is served with: no inline script, no style attribute or element. */
function expectNoInlineCode(body: string) {
  expect(body).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/i);
  expect(body).not.toMatch(/\sstyle\s*=/i);
  expect(body).not.toMatch(/<style/i);
  // an event handler attribute inside a tag (escaped text may well say "onerror=")
  expect(body).not.toMatch(/<[^>]*\son[a-z]+\s*=/i);
}

function expectPageHeaders(res: Awaited<ReturnType<typeof get>>) {
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(res.headers['content-security-policy']).toBe(DEMO_CSP);
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
  expect(res.headers['cache-control']).toBe('no-store');
}

const unescapeAttr = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

function attr(body: string, element: RegExp, name: string): string | undefined {
  const tag = element.exec(body)?.[0] ?? '';
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m?.[1] === undefined ? undefined : unescapeAttr(m[1]);
}

describe('demo seeding (plugin, onReady)', () => {
  it('seeds the demo merchant, its test key and the feed, matched to the catalog, before the app is ready', async () => {
    const info = app.demo.info();
    expect(info?.merchant.slug).toBe(DEMO_SLUG);
    expect(info?.key).toMatch(/^pk_test_/);
    expect(info?.feed).toMatchObject({ upserted: 46, rejected: 0 });
    expect(info?.feed?.matched).toBeGreaterThanOrEqual(35);
    const res = await verify(app, { api_key: info?.key }, { origin: 'http://127.0.0.1:3000' });
    expect(res.statusCode).toBe(200);
  });
});

describe('GET /demo (shop page)', () => {
  it('is Arabic and right-to-left by default, lists the products with SAR prices and links to their pages', async () => {
    const res = await get('/demo');
    expect(res.statusCode).toBe(200);
    expectPageHeaders(res);
    const body = res.body;
    expect(body).toContain('<html lang="ar" dir="rtl">');
    expect(body).toContain('متجر سيلاج التجريبي');
    expect(body).toContain('href="/demo?lang=en"');
    const rows = await listDemoProducts(app.db, app.demo.info()?.merchant.id ?? '');
    const first = rows[0];
    expect(first?.matchStatus).toBe('matched');
    expect(body).toContain(`href="/demo/products/${encodeURIComponent(first?.merchantProductId ?? '')}?lang=ar"`);
    expect(body).toContain(formatPrice(first?.price ?? null, first?.currency ?? null, 'ar'));
    expect(body).toContain('خمرة من لطافة 100 مل');
    expect(body).toContain(
      `<script src="/widget/v1/sillage.js" data-key="${app.demo.info()?.key}" data-locale="ar" async></script>`,
    );
    expect(body.match(/class="card"/g)?.length).toBe(rows.length);
    expectNoInlineCode(body);
  });

  it('is English and left-to-right with ?lang=en', async () => {
    const res = await get('/demo?lang=en');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<html lang="en" dir="ltr">');
    expect(res.body).toContain('Sillage Demo Store');
    expect(res.body).toContain('test key');
    expect(res.body).toContain(formatPrice(595, 'SAR', 'en'));
    expect(res.body).toContain('href="/demo?lang=ar"');
    expect(res.body).toContain('data-locale="en"');
    expectNoInlineCode(res.body);
  });

  it('refuses an unknown language with the JSON error shape', async () => {
    const res = await get('/demo?lang=fr');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'validation_failed' });
  });
});

describe('escaping', () => {
  const evil = '<img src=x onerror=alert(1)>';
  const evilId = `x"'<>&?#/1`;
  beforeAll(async () => {
    const summary = await syncProducts(
      app.db,
      app.catalog.current(),
      DEMO_SLUG,
      [{ merchant_product_id: evilId, name: evil, house: '<b>"House"</b>', price: 12.5 }],
      { replace: false },
    );
    expect(summary.upserted).toBe(1);
  });

  it('escapes product names, houses and ids on the shop page', async () => {
    const res = await get('/demo?lang=en');
    expect(res.body).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(res.body).not.toContain('<img src=x');
    expect(res.body).not.toContain('<b>');
    expect(res.body).toContain(`href="${escapeHtml(`/demo/products/${encodeURIComponent(evilId)}?lang=en`)}"`);
    expect(res.body).toContain(formatPrice(12.5, 'SAR', 'en'));
    expectNoInlineCode(res.body);
  });

  it('escapes them on the product and thank-you pages too', async () => {
    const product = await get(`/demo/products/${encodeURIComponent(evilId)}?lang=en`);
    expect(product.statusCode).toBe(200);
    expect(product.body).toContain('&lt;img');
    expect(product.body).not.toContain('<img src=x');
    const buy = attr(product.body, /<a class="button"[^>]*>/, 'href');
    expect(buy).toBe(`/demo/thank-you?${new URLSearchParams({ product: evilId, lang: 'en' })}`);

    const thanks = await get(buy ?? '');
    expect(thanks.statusCode).toBe(200);
    expect(thanks.body).toContain('&lt;img');
    expect(thanks.body).not.toContain('<img src=x');
    const items = JSON.parse(attr(thanks.body, /<div id="sillage-order"[^>]*>/, 'data-items') ?? '');
    expect(items).toEqual([{ merchant_product_id: evilId, quantity: 1, price: 12.5 }]);
    expectNoInlineCode(thanks.body);
  });
});

describe('GET /demo/products/:id', () => {
  it('shows the product and what the catalog knows of its perfume: name, concentration, accords and notes', async () => {
    const rows = await listDemoProducts(app.db, app.demo.info()?.merchant.id ?? '');
    const row = rows.find((r) => r.merchantProductId === 'dm-001');
    expect(row?.matchStatus).toBe('matched');
    const perfume = app.catalog.current().byId.get(row?.sillagePerfumeId ?? '');
    expect(perfume).toBeDefined();
    if (!row || !perfume) return;

    const res = await get('/demo/products/dm-001?lang=en');
    expect(res.statusCode).toBe(200);
    expectPageHeaders(res);
    const body = res.body;
    expect(body).toContain('<html lang="en" dir="ltr">');
    expect(body).toContain(row.name);
    expect(body).toContain(`<bdi>${perfume.name}</bdi>`);
    expect(body).toContain(labelOf('concentration', perfume.concentration ?? '', 'en') ?? '');
    const top = [...perfume.accords].sort((a, b) => b.weight - a.weight)[0];
    expect(body).toContain(`<span>${labelOf('accord', top?.name ?? '', 'en')}</span>`);
    for (const note of [perfume.notes.top?.[0], perfume.notes.heart?.[0], perfume.notes.base?.[0]]) {
      if (note) expect(body).toContain(note);
    }
    expect(body).toContain('href="/demo/thank-you?product=dm-001&amp;lang=en"');
    expect(body).toContain('Buy now (demo)');
    expectNoInlineCode(body);

    const ar = await get('/demo/products/dm-001');
    expect(ar.body).toContain('<html lang="ar" dir="rtl">');
    expect(ar.body).toContain(labelOf('accord', top?.name ?? '', 'ar') ?? '');
    // its notes in Arabic, as the notes knowledge base names them; none left in English that it knows
    const notes = /<dl class="notes">([\s\S]*?)<\/dl>/.exec(ar.body)?.[1] ?? '';
    for (const note of [...(perfume.notes.top ?? []), ...(perfume.notes.heart ?? []), ...(perfume.notes.base ?? [])]) {
      const arabic = resolveNote(note)?.ar;
      if (arabic) {
        expect(notes).toContain(arabic);
        expect(notes).not.toContain(`>${note}<`);
      }
    }
    expect(notes).toMatch(/[\u0600-\u06FF]/);
    expect(ar.body).toContain('href="/demo/products/dm-001?lang=en"');
  });

  it('says so, without a profile, for a product that is not matched', async () => {
    const rows = await listDemoProducts(app.db, app.demo.info()?.merchant.id ?? '');
    const unmatched = rows.find((r) => r.matchStatus === 'unmatched');
    const res = await get(`/demo/products/${encodeURIComponent(unmatched?.merchantProductId ?? '')}?lang=en`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('not matched to our catalog');
    expect(res.body).not.toContain('class="accords"');
  });

  it('answers an unknown product with a small HTML 404 page under the same policy', async () => {
    for (const url of ['/demo/products/no-such-product?lang=en', '/demo/thank-you?product=no-such-product&lang=en']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expectPageHeaders(res);
      expect(res.body).toContain('We could not find this product');
      expect(res.body).toContain('href="/demo?lang=en"');
      expectNoInlineCode(res.body);
    }
  });
});

describe('GET /demo/thank-you', () => {
  it('confirms a demo order of 1 × the product and hands it to the widget as a valid purchase', async () => {
    const res = await get('/demo/thank-you?product=dm-005&lang=en');
    expect(res.statusCode).toBe(200);
    expectPageHeaders(res);
    const body = res.body;
    const order = /<div id="sillage-order"[^>]*>/;
    const orderId = attr(body, order, 'data-order-id') ?? '';
    expect(orderId).toMatch(/^demo-[0-9a-f]{16}$/);
    expect(body).toContain(`<strong dir="ltr">${orderId}</strong>`);
    const purchase = {
      order_id: orderId,
      total: Number(attr(body, order, 'data-total')),
      currency: attr(body, order, 'data-currency'),
      items: JSON.parse(attr(body, order, 'data-items') ?? ''),
    };
    expect(purchase).toEqual({
      order_id: orderId,
      total: 145,
      currency: 'SAR',
      items: [{ merchant_product_id: 'dm-005', quantity: 1, price: 145 }],
    });
    // the widget, no launcher, then the script that reports the order
    expect(body).toContain(
      `<script src="/widget/v1/sillage.js" data-key="${app.demo.info()?.key}" data-locale="en" data-mount="none" async></script>`,
    );
    expect(body).toContain('<script src="/demo/assets/thank-you.js" defer></script>');
    expect(body).toMatch(/<p id="sillage-order-status"[^>]*hidden/);
    expectNoInlineCode(body);

    // what thank-you.js sends through the widget is a purchase the event API stores
    const stored = await app.inject({
      method: 'POST',
      url: '/api/widget/event',
      headers: { origin: 'http://127.0.0.1:3000' },
      payload: { api_key: app.demo.info()?.key, session_id: randomUUID(), type: 'purchase_completed', ...purchase },
    });
    expect(stored.statusCode).toBe(202);
    expect(stored.json()).toEqual({ accepted: 1, duplicates: 0 });

    // every load is a new order
    const again = await get('/demo/thank-you?product=dm-005&lang=en');
    expect(attr(again.body, order, 'data-order-id')).not.toBe(orderId);
  });

  it('needs a product', async () => {
    const res = await get('/demo/thank-you?lang=en');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'validation_failed' });
  });
});

describe('assets', () => {
  it('serves the stylesheet and the thank-you script with their types, cached for five minutes', async () => {
    const css = await get('/demo/assets/demo.css');
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['cache-control']).toBe('public, max-age=300');
    expect(css.headers['x-content-type-options']).toBe('nosniff');
    expect(css.body).toContain('margin-inline');

    const js = await get('/demo/assets/thank-you.js');
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=300');
    expect(js.body).toContain('trackPurchase');
    expect(js.body).toContain('sillage:ready');
  });

  it('answers other paths under /demo with the JSON 404', async () => {
    const res = await get('/demo/assets/other.js');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'not_found' });
  });
});

describe('demo off', () => {
  let off: TestApp;
  beforeAll(async () => {
    off = await buildTestApp({ SEED_DEMO: 'false' });
  });
  afterAll(() => closeTestApp(off));

  it('answers every /demo route 404 demo_disabled, saying how to turn it on', async () => {
    expect(off.demo.info()).toBeNull();
    for (const url of [
      '/demo',
      '/demo?lang=en',
      '/demo/products/dm-001',
      '/demo/thank-you?product=dm-001',
      '/demo/assets/demo.css',
      '/demo/assets/thank-you.js',
      '/demo/anything',
    ]) {
      const res = await off.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json(), url).toMatchObject({
        code: 'demo_disabled',
        error: expect.stringContaining('SEED_DEMO=true'),
      });
    }
  });
});
