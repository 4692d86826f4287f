import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { localized, zid, zidProductRows } from '../feeds/zid.ts';
import {
  isZidStoreEvent,
  ZID_STORE_EVENTS,
  zidAppEvent,
  zidOrder,
  zidProductId,
  zidProfile,
  zidSecretValid,
  zidStoreId,
  zidTokens,
  zidWebhookProduct,
  zidWebhookUrl,
} from '../platforms/zid.ts';
import { zidProduct } from './zid-sim.ts';

/** What the service reads from Zid (platforms/zid.ts, feeds/zid.ts), rule by rule. */
const NOW = Date.UTC(2026, 10, 27, 12, 0, 0);
const P1 = '2829a483-7c1e-4f4e-9a57-0c3f1b2d4e01';
const P2 = '2829a483-7c1e-4f4e-9a57-0c3f1b2d4e02';

describe("Zid's tokens", () => {
  it('reads the two tokens, the refresh token and expires_in in seconds (either spelling of authorization)', () => {
    const t = zidTokens({ access_token: 'm', authorization: 'a', refresh_token: 'r', expires_in: 31536000 }, NOW);
    expect(t).toEqual({
      accessToken: 'm',
      authorization: 'a',
      refreshToken: 'r',
      expiresAt: new Date(NOW + 31536000 * 1000),
      scope: null,
    });
    expect(
      zidTokens({ access_token: 'm', Authorization: 'A', refresh_token: 'r', expires_in: '60' }, NOW)?.authorization,
    ).toBe('A');
  });

  it('is null without any of the four, or with an expiry that is not a number of seconds', () => {
    const full = { access_token: 'm', authorization: 'a', refresh_token: 'r', expires_in: 60 };
    for (const k of Object.keys(full)) {
      const { [k as keyof typeof full]: _, ...rest } = full;
      expect(zidTokens(rest, NOW), k).toBeNull();
    }
    for (const expires_in of [0, -5, 'soon', Number.NaN, 1e12, null]) {
      expect(zidTokens({ ...full, expires_in }, NOW), String(expires_in)).toBeNull();
    }
    expect(zidTokens({ ...full, access_token: 'x'.repeat(5000) }, NOW)).toBeNull();
    expect(zidTokens(null)).toBeNull();
  });
});

describe("the manager's profile", () => {
  it('reads the store under user.store: its id, title, storefront origin, and the manager’s email', () => {
    expect(
      zidProfile({
        status: 'object',
        user: {
          id: 3,
          email: 'owner@shop.sa',
          store: { id: 507530, title: ' متجر العطور ', username: 'perfumes', url: 'https://wyatt.com.sa/' },
        },
      }),
    ).toEqual({ storeId: '507530', name: 'متجر العطور', origin: 'https://wyatt.com.sa', email: 'owner@shop.sa' });
  });

  it('falls back to the store’s username, a domain without a scheme, and is null without a store id', () => {
    expect(zidProfile({ user: { store: { id: '42', username: 'shop42', domain: 'shop42.zid.store' } } })).toEqual({
      storeId: '42',
      name: 'shop42',
      origin: 'https://shop42.zid.store',
      email: null,
    });
    expect(zidProfile({ user: { store: { title: 'x' } } })).toBeNull();
    expect(zidProfile({ user: { store: { id: -1 } } })).toBeNull();
    expect(zidProfile('nope')).toBeNull();
  });
});

describe('webhook secrets and URLs', () => {
  it('a URL carries the store, the event and the secret, and only that secret passes', () => {
    const url = new URL(zidWebhookUrl('https://svc.example/', '77', 'order.create', 's3cret'));
    expect(url.pathname).toBe('/api/platforms/zid/webhooks/77');
    expect(url.searchParams.get('event')).toBe('order.create');
    expect(url.searchParams.get('token')).toBe('s3cret');
    expect(zidSecretValid('s3cret', 's3cret')).toBe(true);
    for (const bad of [undefined, '', 's3cre', 's3crett', 'S3CRET', 7, 'x'.repeat(500)]) {
      expect(zidSecretValid(bad, 's3cret'), String(bad)).toBe(false);
    }
    // a store without a secret (uninstalled) opens to nothing, not even an empty one
    expect(zidSecretValid('', null)).toBe(false);
    expect(zidSecretValid('anything', '')).toBe(false);
  });

  it('for any secret: it passes, and any other text does not', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 100 }), fc.string({ maxLength: 100 }), (secret, other) => {
        expect(zidSecretValid(secret, secret)).toBe(true);
        if (other !== secret) expect(zidSecretValid(other, secret)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('knows the store events the app subscribes to, and no other', () => {
    for (const e of ZID_STORE_EVENTS) expect(isZidStoreEvent(e)).toBe(true);
    for (const e of ['customer.create', 'order.status.update', '', null, 'product.create ']) {
      expect(isZidStoreEvent(e), String(e)).toBe(false);
    }
  });
});

describe('product webhooks and App Market notices', () => {
  it('name their product by its parent when it is a variant, in a bare body or a wrapper', () => {
    expect(zidWebhookProduct({ id: P1.toUpperCase() })).toBe(P1);
    expect(zidWebhookProduct({ id: P2, parent_id: P1 })).toBe(P1);
    expect(zidWebhookProduct({ event: 'product.update', data: { id: P2 } })).toBe(P2);
    expect(zidWebhookProduct({ product: { id: 123 } })).toBe('123');
    expect(zidWebhookProduct({ id: '../../etc' })).toBeNull();
    expect(zidWebhookProduct({})).toBeNull();
    expect(zidProductId(`${P1}x`)).toBeNull();
  });

  it('an App Market notice is its event_name and store_id', () => {
    expect(zidAppEvent({ event_name: 'app.market.application.uninstall', store_id: 507530 })).toEqual({
      event: 'app.market.application.uninstall',
      storeId: '507530',
    });
    expect(zidAppEvent({ store_id: 1 })).toBe('the body has no event_name');
    expect(zidAppEvent({ event_name: 'x', store_id: 'abc' })).toBe('the body has no store_id');
  });
});

describe('orders', () => {
  const order = {
    id: 25304285,
    store_id: 507530,
    order_status: { name: 'جديد', code: 'new' },
    currency_code: 'sar',
    order_total: '450.50',
    created_at: '2026-11-27 10:00:00',
    products: [
      { id: P1, quantity: 2, price: 150 },
      { id: P2, parent_id: P1, quantity: '1', total: 150.5 },
      { id: 'not-an-id', quantity: 1, price: 1 },
      { id: P2, quantity: 0, price: 5 },
    ],
  };

  it('reads the id, order_total, currency_code, Riyadh time and each line by its parent product', () => {
    expect(zidOrder(order, new Date(0))).toEqual({
      orderId: '25304285',
      total: 450.5,
      currency: 'SAR',
      occurredAt: new Date('2026-11-27T07:00:00Z'),
      items: [
        { merchant_product_id: P1, quantity: 2, price: 150 },
        { merchant_product_id: P1, quantity: 1, price: 150.5 },
      ],
    });
    expect(zidOrder({ data: order }, new Date(0))?.orderId).toBe('25304285');
  });

  it('is no purchase when cancelled, failed or refunded, or without an id or a total', () => {
    for (const code of ['canceled', 'cancelled', 'failed', 'refunded', 'Voided']) {
      expect(zidOrder({ ...order, order_status: { code } }, new Date(0)), code).toBeNull();
    }
    expect(zidOrder({ ...order, order_status: 'delivered' }, new Date(0))).not.toBeNull();
    expect(zidOrder({ ...order, order_total: 'free' }, new Date(0))).toBeNull();
    expect(zidOrder({ ...order, id: 'x' }, new Date(0))).toBeNull();
  });

  it('reads at most 200 lines of any order', () => {
    const many = { ...order, products: Array.from({ length: 5000 }, () => ({ id: P1, quantity: 1, price: 1 })) };
    expect(zidOrder(many, new Date(0))?.items).toHaveLength(200);
  });
});

describe("Zid's product pages", () => {
  const source = { kind: 'zid' as const, url: 'https://api.zid.sa/v1' };
  const page = (results: unknown[], next: string | null = null) =>
    JSON.stringify({ count: results.length, next, previous: null, results });

  it('asks for pages of 50 with both tokens, the store id and the manager role', () => {
    expect(zid.firstUrl(source)).toBe('https://api.zid.sa/v1/products/?page=1&page_size=50');
    expect(zid.headers?.({ ...source, zid: { storeId: '9', authorization: 'a' } }, 'm')).toEqual({
      Authorization: 'Bearer a',
      'Store-Id': '9',
      'X-Manager-Token': 'm',
      'Access-Token': 'm',
      Role: 'Manager',
      'Accept-Language': 'ar',
    });
  });

  it('reads the Arabic name, the brand attribute, price and sale, stock, image, URL and categories', () => {
    const { product } = zidProduct({
      id: P1,
      name: 'خمرة أو دو بارفان 100 مل',
      nameEn: 'Khamrah EDP',
      brand: 'لطافة',
      price: 250,
      sale: 199,
    });
    const read = zid.parse(page([product]), zid.firstUrl(source), source);
    expect(read.rejected).toEqual([]);
    expect(read.next).toBeNull();
    expect(read.rows).toEqual([
      expect.objectContaining({
        merchant_product_id: P1,
        name: 'خمرة أو دو بارفان 100 مل',
        house: 'لطافة',
        price: 250,
        sale_price: 199,
        currency: 'SAR',
        available: true,
        image_url: `https://media.sim.example/${P1}.jpg`,
        product_url: `https://store.sim.example/products/${P1}`,
        categories: ['عطور'],
      }),
    ]);
  });

  it('folds variants on the page into their parent as its sizes; a sold-out size leaves the product available', () => {
    const { product, variants } = zidProduct({
      id: P1,
      name: 'Khamrah EDP',
      price: 250,
      sizes: [
        { label: '100 مل', price: 250, quantity: 0 },
        { label: '50 مل', price: 160 },
      ],
    });
    const read = zid.parse(page([product, ...variants]), zid.firstUrl(source), source);
    expect(read.rows).toHaveLength(1);
    expect(read.rows[0]?.sizes.map((s) => [s.ml, s.price, s.available])).toEqual([
      [100, 250, false],
      [50, 160, true],
    ]);
    expect(read.rows[0]).toMatchObject({ price: 160, available: true });
    // a product webhook's refetch: the product with its variants embedded reads the same
    expect(zidProductRows({ ...product, variants }, source)).toEqual(read.rows);
  });

  it("reads the product's barcode and each variant's; a size without one has none", () => {
    const { product, variants } = zidProduct({
      id: P1,
      name: 'Khamrah EDP',
      price: 250,
      sizes: [
        { label: '100 مل', price: 250, quantity: 0 },
        { label: '50 مل', price: 160 },
        { label: '30 مل', price: 110 },
      ],
    });
    const [v100, v50, v30] = variants;
    const coded = [
      { ...v100, barcode: '6291108730508' },
      { ...v50, barcode: ' 6291108730515 ' },
      { ...v30, barcode: null },
    ];
    // the parent names none: the row's is its default size's (the 100 مل is sold out: the 50 مل's)
    const read = zid.parse(page([product, ...coded]), zid.firstUrl(source), source);
    expect(read.rows[0]).toMatchObject({ price: 160, barcode: '6291108730515' });
    expect(read.rows[0]?.sizes.map((z) => [z.ml, z.barcode])).toEqual([
      [100, '6291108730508'],
      [50, '6291108730515'],
      [30, undefined],
    ]);
    expect(read.rows[0]?.sizes[2]).not.toHaveProperty('barcode');
    // the parent's own barcode is the row's; the refetch with embedded variants reads the same
    const parent = { ...product, barcode: '6291108730492' };
    const rows = zid.parse(page([parent, ...coded]), zid.firstUrl(source), source).rows;
    expect(rows[0]?.barcode).toBe('6291108730492');
    expect(zidProductRows({ ...parent, variants: coded }, source)).toEqual(rows);
    // a product without variants is one size, with the product's barcode
    const single = zidProduct({ id: P2, name: 'Asad EDP 100 مل', price: 100 }).product;
    const [row] = zid.parse(page([{ ...single, barcode: 6291108735107 }]), zid.firstUrl(source), source).rows;
    expect(row).toMatchObject({ barcode: '6291108735107', sizes: [{ barcode: '6291108735107' }] });
    const [plain] = zid.parse(page([{ ...single, barcode: '' }]), zid.firstUrl(source), source).rows;
    expect(plain).toBeDefined();
    expect(plain).not.toHaveProperty('barcode');
    expect(plain?.sizes[0]).not.toHaveProperty('barcode');
  });

  it('skips drafts and unpublished products, reads one without a brand with no house, and counts pages itself', () => {
    const draft = { ...zidProduct({ id: P1, name: 'x', price: 1 }).product, is_draft: true };
    const unbranded = zidProduct({ id: P2, name: 'Oud Wood', price: 1, brand: null }).product;
    const read = zid.parse(
      page([draft, unbranded], 'https://evil.example/steal?page=99'),
      'https://api.zid.sa/v1/products/?page=3&page_size=50',
      source,
    );
    // no brand: no house, which the matcher reads from the name
    expect(read.rows.map((r) => [r.merchant_product_id, r.name, r.house])).toEqual([[P2, 'Oud Wood', '']]);
    expect(read.rejected).toEqual([]);
    // the next page is this one's page + 1 on the same host, whatever URL the answer names
    expect(read.next).toBe('https://api.zid.sa/v1/products/?page=4&page_size=50');
    expect(zid.parse(page([]), zid.firstUrl(source), source).next).toBeNull();
    expect(zid.parse('{"results": 5}', zid.firstUrl(source), source).rejected[0]?.reason).toMatch(/no "results"/);
  });

  it('an infinite product is in stock; a quantity of 0 is not; a missing quantity is taken as some', () => {
    const rows = (p: object) => zid.parse(page([p]), zid.firstUrl(source), source).rows[0]?.available;
    const base = zidProduct({ id: P1, name: 'Asad EDP', price: 100 }).product;
    expect(rows({ ...base, is_infinite: true, quantity: null })).toBe(true);
    expect(rows({ ...base, is_infinite: false, quantity: 0 })).toBe(false);
    expect(rows({ ...base, is_infinite: false, quantity: null })).toBe(true);
  });

  it('Arabic first, else English, for any {ar, en} text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }), (ar, en) => {
        const got = localized({ ar, en });
        if (ar.trim()) expect(got).toBe(ar);
        else if (en.trim()) expect(got).toBe(en);
        else expect(got).toBeNull();
      }),
    );
    expect(localized('plain')).toBe('plain');
  });
});

describe('the edges of what is read from Zid', () => {
  const source = { kind: 'zid' as const, url: 'https://api.zid.sa/v1' };
  const one = (p: object) => zid.parse(JSON.stringify({ next: null, results: [p] }), zid.firstUrl(source), source);
  const base = zidProduct({ id: P1, name: 'Asad EDP', price: 100 }).product;

  it('reads a stock quantity written as text, and none that is not a whole number', () => {
    const available = (quantity: unknown) => one({ ...base, is_infinite: false, quantity }).rows[0]?.available;
    expect(available('0')).toBe(false);
    expect(available(' 5 ')).toBe(true);
    expect(available('-1')).toBe(false);
    expect(available('0 items')).toBe(true);
    expect(available('7a')).toBe(true);
    expect(available(Number.NaN)).toBe(true);
    expect(available(0)).toBe(false);
  });

  it('finds the house by the attribute’s slug, by a brand field, or by a variant; an empty one is none', () => {
    const attrs = (a: object[]) => ({ ...base, attributes: a });
    expect(one(attrs([{ name: 'Marke', slug: 'brand', value: { ar: 'رصاصي' } }])).rows[0]?.house).toBe('رصاصي');
    expect(one(attrs([{ name: 'الحجم', slug: 'size', value: { ar: 'Armaf' } }])).rows[0]?.house).toBe('');
    expect(one({ ...attrs([]), brand: 'Afnan' }).rows[0]?.house).toBe('Afnan');
    expect(one({ ...attrs([]), brand: { name: { ar: 'أفنان', en: 'Afnan' } } }).rows[0]?.house).toBe('أفنان');
    expect(one(attrs([{ name: 'الماركة', value: { ar: ' ', en: '' } }])).rows[0]?.house).toBe('');
    // the parent names none, its variant does
    const { product, variants } = zidProduct({
      id: P1,
      name: 'Oud 100 مل',
      price: 1,
      sizes: [{ label: '100 مل', price: 1 }],
    });
    const read = zid.parse(
      JSON.stringify({ results: [{ ...product, attributes: [] }, ...variants] }),
      zid.firstUrl(source),
      source,
    );
    expect(read.rows[0]?.house).toBe('لطافة');
  });

  it('names a variant without attributes of its own by its name, and takes its currency when the parent has none', () => {
    const child = {
      ...base,
      id: P2,
      parent_id: P1,
      attributes: [],
      name: { ar: 'عبوة 50 مل' },
      currency: 'AED',
      price: 80,
    };
    const read = zid.parse(
      JSON.stringify({ results: [{ ...base, currency: null }, child] }),
      zid.firstUrl(source),
      source,
    );
    expect(read.rows[0]?.sizes.map((s) => [s.label, s.ml])).toEqual([['عبوة 50 مل', 50]]);
    expect(read.rows[0]?.currency).toBe('AED');
  });

  it('rejects a product without an id or a name, with why', () => {
    expect(one({ ...base, id: null }).rejected).toEqual([{ reason: 'the product has no id' }]);
    expect(one({ ...base, name: { ar: '', en: '' } }).rejected).toEqual([
      { id: P1, reason: 'the product has no name' },
    ]);
  });

  it('reads the API base from the source’s URL, with or without /products', () => {
    for (const url of ['https://api.zid.sa/v1/products/', 'https://api.zid.sa/v1/', 'https://api.zid.sa/v1//']) {
      expect(zid.firstUrl({ kind: 'zid', url }), url).toBe('https://api.zid.sa/v1/products/?page=1&page_size=50');
    }
    expect(zid.firstUrl({ kind: 'zid', url: '  ' })).toBe('https://api.zid.sa/v1/products/?page=1&page_size=50');
    expect(zid.parse('{"next": "x", "results": [{}]}', 'not a url', source).next).toBeNull();
    expect(zid.parse('{"next": "x", "results": [{}]}', 'https://a.example/p?page=0', source).next).toBeNull();
  });

  it('takes whitespace for no text in {ar, en}', () => {
    expect(localized({ ar: '  ', en: 'Oud' })).toBe('Oud');
    expect(localized({ ar: '\n', en: ' ' })).toBeNull();
  });

  it('store ids and product ids: digits or a UUID, nothing near them', () => {
    for (const bad of [0, -5, 1.5, '42a', 'a42', '1'.repeat(21), '', null, Number.MAX_SAFE_INTEGER + 2]) {
      expect(zidStoreId(bad), String(bad)).toBeNull();
    }
    expect(zidStoreId(' 42 ')).toBe('42');
    expect(zidStoreId(7)).toBe('7');
    for (const bad of [0, -1, 2.5, `x${P1}`, `${P1.slice(0, -1)}g`, '1'.repeat(21), '12a', '']) {
      expect(zidProductId(bad), String(bad)).toBeNull();
    }
    expect(zidProductId(` ${P1.toUpperCase()} `)).toBe(P1);
    expect(zidProductId('123')).toBe('123');
    expect(zidProductId(123)).toBe('123');
    expect(isZidStoreEvent(123)).toBe(false);
  });

  it('tokens: the scope is kept (cut), expires_in may be digits, and twenty years is the longest believed', () => {
    const full = { access_token: 'm', authorization: 'a', refresh_token: 'r', expires_in: 60 };
    expect(zidTokens({ ...full, scope: 'x'.repeat(3000) }, NOW)?.scope).toHaveLength(2000);
    expect(zidTokens({ ...full, scope: 5 }, NOW)?.scope).toBeNull();
    expect(zidTokens({ ...full, expires_in: '3600' }, NOW)?.expiresAt).toEqual(new Date(NOW + 3_600_000));
    expect(zidTokens({ ...full, expires_in: 20 * 365 * 86400 }, NOW)).not.toBeNull();
    expect(zidTokens({ ...full, expires_in: 20 * 365 * 86400 + 1 }, NOW)).toBeNull();
  });

  it('the profile: the title first, then the name, then the username; an email too long is none', () => {
    const profile = (store: object, email: unknown = 'a@b.sa') =>
      zidProfile({ user: { email, store: { id: 1, ...store } } });
    expect(profile({ title: ' ', name: 'N', username: 'U' })?.name).toBe('N');
    expect(profile({ username: 'U' })?.name).toBe('U');
    expect(profile({ title: ` ${'x'.repeat(300)}` })?.name).toHaveLength(200);
    expect(profile({}, `${'a'.repeat(320)}@b.sa`)?.email).toBeNull();
    expect(profile({}, ' a@b.sa ')?.email).toBe('a@b.sa');
    expect(profile({}, 5)?.email).toBeNull();
    expect(zidProfile({ store: { id: 9, title: 'top' } })?.storeId).toBe('9');
  });

  it('orders: the object with both an id and a total, quantities as text, statuses in any case', () => {
    const line = { id: P1, quantity: '2', price: 10 };
    const wrapped = { id: 'delivery-1', data: { id: 5, order_total: 20, products: [line] } };
    expect(zidOrder(wrapped, new Date(0))).toMatchObject({ orderId: '5', items: [{ quantity: 2 }] });
    expect(zidOrder({ order: { id: 6, order_total: '1', products: 'none' } }, new Date(0))?.items).toEqual([]);
    expect(zidOrder({ id: 7, order_total: 1, order_status: { code: 'CANCELED' } }, new Date(0))).toBeNull();
    expect(
      zidOrder({ id: 7, order_total: 1, products: [{ id: P1, quantity: 1.5, price: 3 }] }, new Date(0))?.items,
    ).toEqual([{ merchant_product_id: P1, quantity: 1, price: 3 }]);
    expect(zidOrder({ id: 7 }, new Date(0))).toBeNull();
    expect(zidOrder({ id: 7, order_total: 1, created_at: 'yesterday' }, new Date(5))?.occurredAt).toEqual(new Date(5));
  });
});
