import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  graphqlUrl,
  PRODUCT_QUERY,
  PRODUCTS_QUERY,
  shopifyGraphql,
  shopifyProductRows,
} from '../feeds/shopify-graphql.ts';
import {
  activationLink,
  authorizeUrl,
  bodyShop,
  isShopifyTopic,
  ORDER_QUERY,
  ORDER_WEBHOOK_AHEAD_MS,
  ORDER_WEBHOOK_MAX_AGE_MS,
  orderOfShop,
  orderWebhookFresh,
  QUERY_MAX_AGE_S,
  queryFresh,
  queryHmacValid,
  scopesGranted,
  shopBase,
  shopHandle,
  shopifyId,
  shopifyOrder,
  shopifyRedaction,
  shopifyShop,
  shopifyThrottle,
  shopifyTokens,
  shopifyWebhookOrder,
  shopifyWebhookProduct,
  signQuery,
  signWebhook,
  throttleWaitMs,
  userErrors,
  webhookHmacValid,
} from '../platforms/shopify.ts';
import { fetchFeedPage } from '../services/feed-fetch.ts';
import { storeSlug } from '../services/platforms.ts';
import { graphqlProduct } from './shopify-sim.ts';

/** What the service reads from Shopify (platforms/shopify.ts, feeds/shopify-graphql.ts), rule by rule. */
const SECRET = 'hush';
const NOW = Date.UTC(2026, 10, 27, 12, 0, 0);

describe('a shop parameter', () => {
  it('is a myshopify.com domain, read as its handle; anything else names no shop', () => {
    expect(shopHandle('Oud-House.myshopify.com')).toBe('oud-house');
    expect(shopHandle(' oud.myshopify.com ')).toBe('oud');
    for (const bad of [
      'oud.example.com',
      'oud.myshopify.com.evil.example',
      'evil.example/oud.myshopify.com',
      'oud.myshopify.com:8443',
      '-oud.myshopify.com',
      'https://oud.myshopify.com',
      'a.b.myshopify.com',
      '',
      null,
      42,
    ]) {
      expect(shopHandle(bad), String(bad)).toBeNull();
    }
  });

  it('whatever is sent, the OAuth address built from the handle stays on the shop', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (s) => {
        const handle = shopHandle(s);
        if (handle === null) return;
        const u = new URL(
          authorizeUrl('https://{shop}', handle, { clientId: 'c', redirectUri: 'https://x/cb', state: 's' }),
        );
        expect(u.hostname).toBe(`${handle}.myshopify.com`);
        expect(u.pathname).toBe('/admin/oauth/authorize');
      }),
    );
  });

  it("the consent address asks for the app's scopes, its redirect and the state", () => {
    const u = new URL(
      authorizeUrl('https://{shop}', 'oud', { clientId: 'cid', redirectUri: 'https://svc/cb', state: 'st&x' }),
    );
    expect(Object.fromEntries(u.searchParams)).toEqual({
      client_id: 'cid',
      scope: 'read_products,read_orders,write_pixels,read_customer_events',
      redirect_uri: 'https://svc/cb',
      state: 'st&x',
    });
  });
});

describe("Shopify's signatures", () => {
  it("a redirect's query is Shopify's only with the hex HMAC of all its other parameters, sorted", () => {
    const q = { shop: 'oud.myshopify.com', timestamp: '1700000000', host: 'YWRtaW4', code: 'abc' };
    const hmac = signQuery(q, SECRET);
    expect(queryHmacValid({ ...q, hmac }, SECRET)).toBe(true);
    expect(queryHmacValid({ ...q, hmac: hmac.toUpperCase() }, SECRET)).toBe(true);
    expect(queryHmacValid({ ...q, hmac, signature: 'ignored' }, SECRET)).toBe(true);
    expect(queryHmacValid({ ...q, hmac }, 'other')).toBe(false);
    expect(queryHmacValid({ ...q, shop: 'evil.myshopify.com', hmac }, SECRET)).toBe(false);
    expect(queryHmacValid({ ...q, extra: '1', hmac }, SECRET)).toBe(false);
    expect(queryHmacValid(q, SECRET)).toBe(false);
    expect(queryHmacValid({ ...q, hmac: hmac.slice(2) }, SECRET)).toBe(false);
    expect(queryHmacValid({ ...q, hmac: 'z'.repeat(64) }, SECRET)).toBe(false);
  });

  it('a value holding & or = cannot move the parameters’ boundaries (a state chosen on one shop naming another)', () => {
    const signed = { code: 'c', shop: 'evil.myshopify.com', state: 'x&shop=victim.myshopify.com', timestamp: '1' };
    const hmac = signQuery(signed, SECRET);
    expect(queryHmacValid({ ...signed, hmac }, SECRET)).toBe(true);
    // joined without encoding, both would read code=c&shop=evil…&state=x&shop=victim…&timestamp=1
    const forged = { code: 'c&shop=evil.myshopify.com&state=x', shop: 'victim.myshopify.com', timestamp: '1' };
    expect(queryHmacValid({ ...forged, hmac }, SECRET)).toBe(false);
  });

  it('a signed redirect is fresh for a day either way', () => {
    const s = (sec: number) => String(Math.floor(NOW / 1000) + sec);
    expect(queryFresh(s(0), NOW)).toBe(true);
    expect(queryFresh(s(-QUERY_MAX_AGE_S), NOW)).toBe(true);
    expect(queryFresh(s(-QUERY_MAX_AGE_S - 1), NOW)).toBe(false);
    expect(queryFresh(s(QUERY_MAX_AGE_S + 1), NOW)).toBe(false);
    for (const bad of [undefined, '', 'soon', '1e9', '-5']) expect(queryFresh(bad, NOW)).toBe(false);
  });

  it("a webhook is Shopify's only with the base64 HMAC of its exact bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat({ max: 299 }), (bytes, at) => {
        const raw = Buffer.from(bytes);
        const header = signWebhook(raw, SECRET);
        expect(webhookHmacValid(raw, header, SECRET)).toBe(true);
        expect(webhookHmacValid(raw, header, 'other')).toBe(false);
        if (raw.length > 0) {
          const changed = Buffer.from(raw);
          changed[at % raw.length] = ((changed[at % raw.length] as number) + 1) % 256;
          expect(webhookHmacValid(changed, header, SECRET)).toBe(false);
        }
      }),
    );
    const raw = Buffer.from('{"id":1}');
    for (const bad of [undefined, '', 'not base64!', signWebhook(raw, SECRET).slice(0, 20), 'A'.repeat(200)]) {
      expect(webhookHmacValid(raw, bad, SECRET)).toBe(false);
    }
  });

  it('knows the five shop topics and the three privacy topics, nothing else', () => {
    for (const t of [
      'products/create',
      'products/update',
      'products/delete',
      'orders/create',
      'app/uninstalled',
      'customers/data_request',
      'customers/redact',
      'shop/redact',
    ]) {
      expect(isShopifyTopic(t), t).toBe(true);
    }
    for (const t of ['orders/paid', 'carts/update', '', null, 'products/create '])
      expect(isShopifyTopic(t)).toBe(false);
  });
});

describe("Shopify's answers", () => {
  it('an offline token has nothing to refresh and no expiry', () => {
    expect(shopifyTokens({ access_token: 'shpat_1', scope: 'read_products' })).toEqual({
      accessToken: 'shpat_1',
      refreshToken: null,
      expiresAt: null,
      scope: 'read_products',
    });
    expect(shopifyTokens({ scope: 'x' })).toBeNull();
    expect(shopifyTokens({ access_token: '' })).toBeNull();
  });

  it('the scopes granted must hold every scope the app asks for (a write scope holds its read)', () => {
    expect(scopesGranted('read_products,read_orders,write_pixels,read_customer_events')).toBe(true);
    expect(scopesGranted('write_products,write_orders,write_pixels,read_customer_events')).toBe(true);
    expect(scopesGranted('read_products, read_orders, write_pixels, read_customer_events')).toBe(true);
    expect(scopesGranted('read_products,read_orders,read_pixels,read_customer_events')).toBe(false);
    expect(scopesGranted('read_products')).toBe(false);
    expect(scopesGranted(null)).toBe(false);
  });

  it("reads the shop's name, owner email, currency and primary domain", () => {
    expect(
      shopifyShop({
        data: {
          shop: {
            name: ' بيت العود ',
            email: 'o@x.example',
            currencyCode: 'aed',
            primaryDomain: { url: 'https://x.example/' },
          },
        },
      }),
    ).toEqual({ name: 'بيت العود', email: 'o@x.example', currency: 'AED', origin: 'https://x.example' });
    expect(shopifyShop({ data: { shop: { name: '' } } })).toMatchObject({ name: null, email: null, currency: 'SAR' });
    expect(shopifyShop({ data: {} })).toBeNull();
    expect(shopifyShop(null)).toBeNull();
  });

  it('an id is the digits of a number, of text or of a GID', () => {
    expect(shopifyId(123)).toBe('123');
    expect(shopifyId('123')).toBe('123');
    expect(shopifyId('gid://shopify/Product/123')).toBe('123');
    for (const bad of [0, -1, 1.5, 'gid://shopify/Product/x', 'gid://evil/Product/1', '1 2', '', null]) {
      expect(shopifyId(bad), String(bad)).toBeNull();
    }
    expect(shopifyWebhookProduct({ id: 5 })).toBe('5');
    expect(shopifyWebhookProduct({ admin_graphql_api_id: 'gid://shopify/Product/6' })).toBe('6');
    expect(shopifyWebhookProduct({})).toBeNull();
  });

  it('an order is a purchase by its lines; a test, cancelled, voided or refunded order is none', () => {
    const order = {
      id: 820982911946154500,
      admin_graphql_api_id: 'gid://shopify/Order/820982911946154508',
      total_price: '270.00',
      currency: 'SAR',
      created_at: '2026-11-27T15:00:00+03:00',
      financial_status: 'paid',
      line_items: [
        { product_id: 632910392, quantity: 2, price: '100.00' },
        { product_id: null, quantity: 1, price: '70.00' },
        { product_id: 632910393, quantity: 0, price: '1.00' },
      ],
    };
    expect(shopifyOrder(order, new Date(NOW))).toEqual({
      orderId: '820982911946154508',
      total: 270,
      currency: 'SAR',
      items: [{ merchant_product_id: '632910392', quantity: 2, price: 100 }],
      occurredAt: new Date('2026-11-27T12:00:00Z'),
    });
    // a number past 2^53 is not exact: without the GID the order is not read
    expect(shopifyOrder({ ...order, admin_graphql_api_id: undefined }, new Date(NOW))).toBeNull();
    expect(shopifyOrder({ ...order, admin_graphql_api_id: undefined, id: 5234567890123 }, new Date(NOW))?.orderId).toBe(
      '5234567890123',
    );
    for (const no of [
      { test: true },
      { cancelled_at: '2026-11-27T16:00:00+03:00' },
      { financial_status: 'voided' },
      { financial_status: 'refunded' },
      { id: null, admin_graphql_api_id: null },
      { total_price: 'free' },
    ]) {
      expect(shopifyOrder({ ...order, ...no }, new Date(NOW)), JSON.stringify(no)).toBeNull();
    }
    expect(shopifyOrder({ ...order, created_at: 'yesterday' }, new Date(NOW))?.occurredAt).toEqual(new Date(NOW));
    const many = {
      ...order,
      line_items: Array.from({ length: 500 }, (_, i) => ({ product_id: i + 1, quantity: 1, price: '1' })),
    };
    expect(shopifyOrder(many, new Date(NOW))?.items).toHaveLength(200);
  });

  it('a redaction names the customer and every order (the 1 MB body bounds the list)', () => {
    expect(
      shopifyRedaction({
        customer: { email: ' a@b.example ', phone: '+966500000000' },
        orders_to_redact: [1, 'x', '2'],
      }),
    ).toEqual({ email: 'a@b.example', phone: '+966500000000', orders: ['1', '2'] });
    expect(shopifyRedaction({})).toEqual({ email: null, phone: null, orders: [] });
    expect(shopifyRedaction({ orders_to_redact: Array.from({ length: 3000 }, (_, i) => i + 1) }).orders).toHaveLength(
      3000,
    );
  });

  it("reads GraphQL's throttle and how long to wait for a query's points", () => {
    const throttled = {
      errors: [{ message: 'Throttled', extensions: { code: 'THROTTLED' } }],
      extensions: {
        cost: {
          requestedQueryCost: 526,
          throttleStatus: { maximumAvailable: 2000, currentlyAvailable: 26, restoreRate: 100 },
        },
      },
    };
    const t = shopifyThrottle(throttled);
    expect(t).toEqual({ available: 26, restoreRate: 100, requested: 526, throttled: true });
    expect(throttleWaitMs(t, 526)).toBe(5000);
    expect(throttleWaitMs(t, 10)).toBe(0);
    expect(throttleWaitMs({ available: 0, restoreRate: 1, requested: 0, throttled: true }, 1000)).toBe(30_000);
    expect(throttleWaitMs(null, 1000)).toBe(0);
    expect(shopifyThrottle({ data: {} })).toBeNull();
    expect(
      shopifyThrottle({ extensions: { cost: { throttleStatus: { currentlyAvailable: 5, restoreRate: 0 } } } }),
    ).toBeNull();
  });

  it("a mutation's problems are its userErrors and the answer's errors", () => {
    expect(userErrors({ data: { m: { userErrors: [] } } }, 'm')).toBeNull();
    expect(userErrors({ data: { m: { userErrors: [{ message: 'Taken' }] } } }, 'm')).toBe('Taken');
    expect(userErrors({ errors: [{ message: 'Access denied' }] }, 'm')).toBe('Access denied');
  });

  it('the deep link opens the theme editor with the app embed to switch on', () => {
    const u = new URL(activationLink('oud', 'cid'));
    expect(u.origin).toBe('https://oud.myshopify.com');
    expect(u.pathname).toBe('/admin/themes/current/editor');
    expect(Object.fromEntries(u.searchParams)).toEqual({ context: 'apps', activateAppId: 'cid/sillage-quiz' });
  });

  it("a store's merchant slug stays a slug however long the shop's handle", () => {
    expect(storeSlug('shopify', 'oud')).toBe('shopify-oud');
    const long = storeSlug('shopify', 'a'.repeat(60));
    expect(long.length).toBeLessThanOrEqual(64);
    expect(long).toMatch(/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/);
    expect(storeSlug('shopify', `${'a'.repeat(59)}b`)).not.toBe(long);
  });
});

describe('the Admin GraphQL products connector', () => {
  const source = { kind: 'shopify_graphql' as const, url: 'https://oud.myshopify.com', currency: 'SAR' };
  const product = (over: object = {}) => ({
    ...graphqlProduct(
      {
        id: 7,
        title: 'Khamrah EDP',
        vendor: 'Lattafa',
        tags: ['Oriental', 'عطور'],
        description: 'Top notes: cinnamon',
        variants: [
          { title: '100ml', price: 250, compareAt: 300 },
          { title: '50ml', price: 160, available: false },
        ],
      },
      'oud.example',
    ),
    ...over,
  });

  it('asks with POST, its cursor in the body; the next page is the answer’s end cursor', () => {
    const first = shopifyGraphql.firstUrl(source);
    expect(first).toBe('https://oud.myshopify.com/admin/api/2025-10/graphql.json');
    expect(JSON.parse(shopifyGraphql.body?.(first, source) ?? '')).toEqual({
      query: PRODUCTS_QUERY,
      variables: { first: 25, after: null },
    });
    const page = shopifyGraphql.parse(
      JSON.stringify({
        data: { products: { pageInfo: { hasNextPage: true, endCursor: 'eyJs' }, nodes: [product()] } },
      }),
      first,
      source,
    );
    expect(page.next).toBe(`${first}#after=eyJs`);
    expect(JSON.parse(shopifyGraphql.body?.(page.next as string, source) ?? '').variables.after).toBe('eyJs');
    expect(shopifyGraphql.headers?.(source, 'shpat_x')).toMatchObject({ 'X-Shopify-Access-Token': 'shpat_x' });
    const last = shopifyGraphql.parse(
      JSON.stringify({ data: { products: { pageInfo: { hasNextPage: false, endCursor: 'x' }, nodes: [product()] } } }),
      first,
      source,
    );
    expect(last.next).toBeNull();
  });

  it('reads a product: vendor as house, sizes folded, a compare-at price as the sale, its page and image', () => {
    const page = shopifyGraphql.parse(
      JSON.stringify({ data: { products: { pageInfo: { hasNextPage: false }, nodes: [product()] } } }),
      shopifyGraphql.firstUrl(source),
      source,
    );
    expect(page.rejected).toEqual([]);
    expect(page.rows).toHaveLength(1);
    expect(page.rows[0]).toMatchObject({
      merchant_product_id: '7',
      name: 'Khamrah EDP',
      house: 'Lattafa',
      price: 300,
      sale_price: 250,
      currency: 'SAR',
      available: true,
      product_url: 'https://oud.example/products/khamrah-edp',
      image_url: 'https://cdn.shopify.sim.example/7.jpg',
      description: 'Top notes: cinnamon',
    });
    expect(page.rows[0]?.categories).toEqual(expect.arrayContaining(['Oriental', 'عطور']));
    expect(page.rows[0]?.sizes.map((s) => [s.ml, s.available])).toEqual([
      [100, true],
      [50, false],
    ]);
  });

  it('rejects with why: a product not active, without a vendor, without variants; an error answer whole', () => {
    const page = shopifyGraphql.parse(
      JSON.stringify({
        data: {
          products: {
            pageInfo: {},
            nodes: [
              product({ id: 'gid://shopify/Product/8', status: 'DRAFT' }),
              product({ id: 'gid://shopify/Product/9', vendor: '' }),
              product({ id: 'gid://shopify/Product/10', variants: { nodes: [] } }),
            ],
          },
        },
      }),
      shopifyGraphql.firstUrl(source),
      source,
    );
    // no vendor: read with no house, which the matcher reads from the title
    expect(page.rows.map((r) => [r.merchant_product_id, r.house])).toEqual([['9', '']]);
    expect(page.rejected.map((r) => [r.id, r.reason])).toEqual([
      ['8', 'the product is DRAFT'],
      ['10', 'the product has no variants (no price)'],
    ]);
    const refused = shopifyGraphql.parse(
      JSON.stringify({ errors: [{ message: 'Access denied for products field.' }] }),
      shopifyGraphql.firstUrl(source),
      source,
    );
    expect(refused.rejected).toEqual([{ reason: 'Shopify answered: Access denied for products field.' }]);
    expect(refused.next).toBeNull();
  });

  it('one product (a webhook’s refetch): its rows, none when Shopify has it no more', () => {
    expect(shopifyProductRows({ data: { product: product() } }, source).map((r) => r.merchant_product_id)).toEqual([
      '7',
    ]);
    expect(shopifyProductRows({ data: { product: null } }, source)).toEqual([]);
    expect(shopifyProductRows({ data: { product: product({ status: 'ARCHIVED' }) } }, source)).toEqual([]);
  });

  it('the endpoint of a shop given with a path (a simulator) or an admin address', () => {
    expect(graphqlUrl('http://127.0.0.1:4000/oud.myshopify.com')).toBe(
      'http://127.0.0.1:4000/oud.myshopify.com/admin/api/2025-10/graphql.json',
    );
    expect(graphqlUrl('https://oud.myshopify.com/admin')).toBe(
      'https://oud.myshopify.com/admin/api/2025-10/graphql.json',
    );
    expect(graphqlUrl('oud.myshopify.com/')).toBe('https://oud.myshopify.com/admin/api/2025-10/graphql.json');
  });
});

describe('a feed page asked for with a body', () => {
  it('is sent with POST and its body, and is never redirected (the query would go elsewhere)', async () => {
    const seen: { method?: string; body: string; length?: string }[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        seen.push({
          method: req.method,
          body: Buffer.concat(chunks).toString(),
          length: req.headers['content-length'],
        });
        if (req.url === '/moved') {
          res.writeHead(301, { location: '/elsewhere' });
          return res.end();
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const body = JSON.stringify({ query: 'query Q { shop { name } }', variables: { after: 'عطر' } });
      const ok = await fetchFeedPage(`${base}/graphql.json#after=x`, { body, allowPrivateHosts: ['127.0.0.1'] });
      expect(ok).toMatchObject({ status: 200, body: '{"ok":true}' });
      expect(seen[0]).toEqual({ method: 'POST', body, length: String(Buffer.byteLength(body)) });
      const moved = await fetchFeedPage(`${base}/moved`, { body, allowPrivateHosts: ['127.0.0.1'] });
      expect(moved).toMatchObject({ status: 'error', code: 'feed_http_error', httpStatus: 301 });
      expect(seen).toHaveLength(2);
      const get = await fetchFeedPage(`${base}/plain`, { allowPrivateHosts: ['127.0.0.1'] });
      expect(get.status).toBe(200);
      expect(seen[2]).toMatchObject({ method: 'GET', body: '' });
    } finally {
      server.close();
    }
  });
});

describe('the Admin GraphQL connector, edge by edge', () => {
  const source = { kind: 'shopify_graphql' as const, url: 'https://oud.myshopify.com', currency: 'SAR' };
  const page = (nodes: unknown[], pageInfo: object = { hasNextPage: false }) =>
    shopifyGraphql.parse(
      JSON.stringify({ data: { products: { pageInfo, nodes } } }),
      shopifyGraphql.firstUrl(source),
      source,
    );
  const node = (over: Record<string, unknown> = {}, variant: Record<string, unknown> = {}) => ({
    id: 'gid://shopify/Product/7',
    title: 'Khamrah EDP',
    vendor: 'Lattafa',
    handle: 'khamrah',
    status: 'ACTIVE',
    variants: { nodes: [{ title: '100ml', price: '250.00', availableForSale: true, selectedOptions: [], ...variant }] },
    ...over,
  });

  it('the query asks for what is read, active products only, and names itself', () => {
    for (const field of [
      'vendor',
      'productType',
      'tags',
      'onlineStoreUrl',
      'description(truncateAt: 4000)',
      'compareAtPrice',
      'availableForSale',
      'barcode',
      'selectedOptions',
      'pageInfo { hasNextPage endCursor }',
      'status:active',
    ]) {
      expect(PRODUCTS_QUERY, field).toContain(field);
    }
    expect(PRODUCTS_QUERY).toMatch(/^query SillageProducts\(/);
    expect(PRODUCT_QUERY).toMatch(/^query SillageProduct\(\$id: ID!\)/);
    expect(PRODUCT_QUERY).toContain('...SillageProduct');
    expect(shopifyGraphql.headers?.(source, null)).toEqual({
      'content-type': 'application/json',
      accept: 'application/json',
    });
  });

  it("a size is named by the variant's title, else its options; Shopify's “Default Title” names nothing", () => {
    const size = (variant: Record<string, unknown>) => page([node({}, variant)]).rows[0]?.sizes[0]?.label;
    expect(size({ title: '50 مل' })).toBe('50 مل');
    expect(
      size({
        title: 'Default Title',
        selectedOptions: [
          { name: 'Size', value: '30ml' },
          { name: 'Type', value: 'EDP' },
        ],
      }),
    ).toBe('30ml / EDP');
    expect(
      size({ title: 'Default Title', selectedOptions: [{ name: 'Title', value: 'Default Title' }] }),
    ).not.toContain('Default');
    expect(size({ title: 7, selectedOptions: [{ value: 5 }, { value: '75ml' }] })).toBe('75ml');
    expect(
      page([node({}, { title: 'Default Title', selectedOptions: [{ value: '100 ml' }] })]).rows[0]?.sizes[0]?.ml,
    ).toBe(100);
  });

  it("reads each variant's barcode as its size's, and the default size's as the row's; a variant without one has none", () => {
    expect(PRODUCTS_QUERY).toMatch(/variants\(first: \d+\) \{\s*nodes \{[^}]*\bbarcode\b/);
    const read = page([
      node(
        {
          variants: {
            nodes: [
              { title: '100ml', price: '250.00', availableForSale: false, barcode: '6291106811018' },
              { title: '50ml', price: '160.00', availableForSale: true, barcode: ' 6291106811025 ' },
              { title: '30ml', price: '110.00', availableForSale: true, barcode: null },
            ],
          },
        },
        {},
      ),
    ]);
    const [row] = read.rows;
    // the 100ml is sold out: the row's price and barcode are the 50ml's
    expect(row).toMatchObject({ price: 160, barcode: '6291106811025' });
    expect(row?.sizes.map((z) => z.barcode)).toEqual(['6291106811018', '6291106811025', undefined]);
    expect(row?.sizes[2]).not.toHaveProperty('barcode');
    // a webhook's refetch reads the same
    expect(
      shopifyProductRows(
        {
          data: {
            product: node({}, { barcode: '6291106811018' }),
          },
        },
        source,
      )[0],
    ).toMatchObject({ barcode: '6291106811018', sizes: [{ barcode: '6291106811018' }] });
    // none at all: no barcode key on the row
    expect(page([node()]).rows[0]).not.toHaveProperty('barcode');
  });

  it('an id, a title and a vendor are needed; the page is the product’s own, else built from its handle', () => {
    expect(page([node({ id: null })]).rejected).toEqual([{ reason: 'the product has no id' }]);
    expect(page([node({ id: 'gid://shopify/Product/abc' })]).rows[0]?.merchant_product_id).toBe('abc');
    expect(page([node({ id: 'gid://shopify/Collection/5' })]).rows[0]?.merchant_product_id).toBe(
      'gid://shopify/Collection/5',
    );
    expect(page([node({ id: 42 })]).rows[0]?.merchant_product_id).toBe('42');
    expect(page([node({ title: '  ' })]).rejected).toEqual([{ id: '7', reason: 'the product has no title' }]);
    expect(page([node({ onlineStoreUrl: null, handle: ' oud wood ' })]).rows[0]?.product_url).toBe(
      'https://oud.myshopify.com/products/oud%20wood',
    );
    expect(page([node({ onlineStoreUrl: null, handle: 5 })]).rows[0]?.product_url).toBeNull();
    expect(page([node({ onlineStoreUrl: 'https://oud.example/p/k' })]).rows[0]?.product_url).toBe(
      'https://oud.example/p/k',
    );
    expect(page([node({ status: undefined })]).rows).toHaveLength(1);
  });

  it('the next page needs more pages, a cursor of at most 1,000 characters and products on this one', () => {
    expect(page([node()], { hasNextPage: true, endCursor: 'c'.repeat(1000) }).next).toContain('#after=');
    expect(page([node()], { hasNextPage: true, endCursor: 'c'.repeat(1001) }).next).toBeNull();
    expect(page([], { hasNextPage: true, endCursor: 'c' }).next).toBeNull();
    expect(page([node()], { hasNextPage: 'yes', endCursor: 'c' }).next).toBeNull();
    expect(page([node()], { hasNextPage: true, endCursor: 5 }).next).toBeNull();
    // a cursor longer than 1,000 characters in a page URL is not sent
    const long = `${shopifyGraphql.firstUrl(source)}#after=${'c'.repeat(1001)}`;
    expect(JSON.parse(shopifyGraphql.body?.(long, source) ?? '').variables.after).toBeNull();
  });

  it('errors beside data fail the page whole; a page that is not JSON too', () => {
    const both = shopifyGraphql.parse(
      JSON.stringify({ data: { products: { pageInfo: {}, nodes: [node()] } }, errors: [{ message: 'Timeout' }] }),
      shopifyGraphql.firstUrl(source),
      source,
    );
    expect(both).toMatchObject({ rows: [], rejected: [{ reason: 'Shopify answered: Timeout' }], failed: true });
    expect(shopifyGraphql.parse('{"data":{}}', shopifyGraphql.firstUrl(source), source).rejected).toEqual([
      { reason: 'the answer has no products' },
    ]);
    expect(shopifyGraphql.parse('<html>', shopifyGraphql.firstUrl(source), source).failed).toBe(true);
    expect(shopifyGraphql.kind).toBe('shopify_graphql');
  });
});

describe('what else is read from Shopify, edge by edge', () => {
  it('a body names its shop only for the privacy topics and the uninstall', () => {
    expect(bodyShop('shop/redact', { shop_domain: 'oud.myshopify.com' })).toBe('oud');
    expect(bodyShop('customers/data_request', { shop_domain: 'x.example' })).toBeNull();
    expect(
      bodyShop('app/uninstalled', { myshopify_domain: 'oud.myshopify.com', shop_domain: 'other.myshopify.com' }),
    ).toBe('oud');
    expect(bodyShop('products/update', { shop_domain: 'other.myshopify.com' })).toBeUndefined();
  });

  it("an order names its shop by its order_status_url's myshopify.com host; on another host it names none", () => {
    const status = (host: string) => ({ order_status_url: `https://${host}/548380009/orders/ab12/authenticate?key=k` });
    expect(bodyShop('orders/create', status('oud.myshopify.com'))).toBe('oud');
    expect(bodyShop('orders/create', status('OUD.myshopify.com'))).toBe('oud');
    // the shop's own domain, Shopify's checkout host, no URL, not a URL: the shop's API decides
    expect(bodyShop('orders/create', status('www.oud.example'))).toBeUndefined();
    expect(bodyShop('orders/create', status('checkout.shopify.com'))).toBeUndefined();
    expect(bodyShop('orders/create', {})).toBeUndefined();
    expect(bodyShop('orders/create', { order_status_url: 5 })).toBeUndefined();
    expect(bodyShop('orders/create', { order_status_url: 'oud.myshopify.com/1/orders' })).toBeUndefined();
    expect(bodyShop('orders/create', { shop_domain: 'other.myshopify.com' })).toBeUndefined();
  });

  it('an order webhook is known by its order, and taken within a day of its creation (an hour ahead at most)', () => {
    expect(shopifyWebhookOrder({ admin_graphql_api_id: 'gid://shopify/Order/5234567890123456789', id: 1 })).toBe(
      '5234567890123456789',
    );
    expect(shopifyWebhookOrder({ id: 77 })).toBe('77');
    expect(shopifyWebhookOrder({ id: 'x' })).toBeNull();
    const at = (ms: number) => ({ created_at: new Date(ms).toISOString() });
    expect(orderWebhookFresh(at(NOW), NOW)).toBe(true);
    expect(orderWebhookFresh(at(NOW - ORDER_WEBHOOK_MAX_AGE_MS), NOW)).toBe(true);
    expect(orderWebhookFresh(at(NOW - ORDER_WEBHOOK_MAX_AGE_MS - 1), NOW)).toBe(false);
    expect(orderWebhookFresh(at(NOW + ORDER_WEBHOOK_AHEAD_MS), NOW)).toBe(true);
    expect(orderWebhookFresh(at(NOW + ORDER_WEBHOOK_AHEAD_MS + 1), NOW)).toBe(false);
    expect(orderWebhookFresh({ created_at: '2026-11-27T15:00:00+03:00' }, Date.parse('2026-11-27T13:00:00Z'))).toBe(
      true,
    );
    for (const created of [undefined, null, NOW, 'yesterday', '']) {
      expect(orderWebhookFresh({ created_at: created }, NOW), String(created)).toBe(false);
    }
    // a number is no date, not even one Date.parse would read as a year
    expect(orderWebhookFresh({ created_at: 2026 }, Date.UTC(2026, 0, 1))).toBe(false);
    expect(ORDER_WEBHOOK_MAX_AGE_MS).toBe(24 * 3600_000);
    expect(ORDER_WEBHOOK_AHEAD_MS).toBe(3600_000);
    expect(orderWebhookFresh(at(Date.now()))).toBe(true);
  });

  it("the order query's answer says whether the order is the shop's, or nothing", () => {
    expect(ORDER_QUERY).toBe('query SillageOrder($id: ID!) { order(id: $id) { id } }');
    expect(orderOfShop({ data: { order: { id: 'gid://shopify/Order/9' } } }, '9')).toBe(true);
    expect(orderOfShop({ data: { order: { id: 'gid://shopify/Order/8' } } }, '9')).toBe(false);
    expect(orderOfShop({ data: { order: null } }, '9')).toBe(false);
    expect(orderOfShop({ data: { order: {} } }, '9')).toBe(false);
    expect(orderOfShop({ data: null, errors: [{ message: 'Internal error' }] }, '9')).toBeNull();
    expect(orderOfShop({ data: { shop: {} } }, '9')).toBeNull();
    expect(orderOfShop(null, '9')).toBeNull();
  });

  it('limits: a shop parameter of 100 characters at most, a handle of 60, signatures of their own shape', () => {
    expect(shopHandle(`${'a'.repeat(60)}.myshopify.com`)).toBe('a'.repeat(60));
    expect(shopHandle(`${'a'.repeat(61)}.myshopify.com`)).toBeNull();
    expect(shopHandle(`  ${'a'.repeat(40)}.myshopify.com${' '.repeat(50)}`)).toBeNull();
    expect(shopHandle('a-.myshopify.com')).toBeNull();
    expect(shopHandle('a.myshopify.com')).toBe('a');
    const raw = Buffer.from('{}');
    const good = signWebhook(raw, SECRET);
    expect(webhookHmacValid(raw, `${good} `, SECRET)).toBe(false);
    expect(webhookHmacValid(raw, `x${good}`, SECRET)).toBe(false);
    expect(webhookHmacValid(raw, `${good.replace(/=+$/, '')}===`, SECRET)).toBe(false);
    const q = { shop: 'oud.myshopify.com', timestamp: '1' };
    const h = signQuery(q, SECRET);
    expect(queryHmacValid({ ...q, hmac: `${h}0` }, SECRET)).toBe(false);
    expect(queryHmacValid({ ...q, hmac: `0${h}` }, SECRET)).toBe(false);
    expect(queryFresh(` ${Math.floor(NOW / 1000)}`, NOW)).toBe(false);
    expect(queryFresh(`${Math.floor(NOW / 1000)}x`, NOW)).toBe(false);
    expect(shopBase('https://{shop}/x', 'oud')).toBe('https://oud.myshopify.com/x');
    expect(isShopifyTopic('shop/redact')).toBe(true);
  });

  it('tokens, scopes and the shop: text read within its bounds', () => {
    expect(shopifyTokens({ access_token: 't', scope: 's'.repeat(3000) })?.scope).toHaveLength(2000);
    expect(shopifyTokens({ access_token: 't', scope: 5 })?.scope).toBeNull();
    expect(scopesGranted('read_products,read_orders,write_pixels,write_customer_events')).toBe(true);
    expect(scopesGranted('read_products,read_orders,read_customer_events,xwrite_pixels')).toBe(false);
    expect(shopifyShop({ data: { shop: { email: `${'a'.repeat(320)}@x`, name: 5 } } })).toMatchObject({
      email: null,
      name: null,
    });
    expect(shopifyShop({ data: { shop: { email: ' o@x.example ', name: ` ${'n'.repeat(300)} ` } } })).toMatchObject({
      email: 'o@x.example',
      name: 'n'.repeat(200),
    });
    expect(shopifyId(' 12 ')).toBe('12');
    expect(shopifyId(Number.MAX_SAFE_INTEGER + 2)).toBeNull();
  });

  it('orders: an expired one is no sale; a quantity is a whole number; a line without a price is 0', () => {
    const base = {
      admin_graphql_api_id: 'gid://shopify/Order/9',
      total_price: '10.00',
      currency: 'SAR',
      line_items: [],
    };
    expect(shopifyOrder({ ...base, financial_status: 'expired' }, new Date(NOW))).toBeNull();
    expect(shopifyOrder({ ...base, financial_status: 'pending' }, new Date(NOW))).not.toBeNull();
    const lines = shopifyOrder(
      {
        ...base,
        line_items: [
          { product_id: 1, quantity: '2', price: 'x' },
          { product_id: 2, quantity: 1.5 },
        ],
      },
      new Date(NOW),
    )?.items;
    expect(lines).toEqual([
      { merchant_product_id: '1', quantity: 1, price: 0 },
      { merchant_product_id: '2', quantity: 1, price: 0 },
    ]);
    expect(shopifyOrder({ ...base, created_at: 5 }, new Date(NOW))?.occurredAt).toEqual(new Date(NOW));
    expect(shopifyOrder({ ...base, created_at: '2026-11-27T15:00:00+03:00' }, new Date(0))?.occurredAt).toEqual(
      new Date('2026-11-27T12:00:00Z'),
    );
    expect(shopifyOrder({ ...base, line_items: 'x' }, new Date(NOW))?.items).toEqual([]);
  });

  it('redactions and throttles read only what they are', () => {
    expect(shopifyRedaction({ customer: { email: '  ', phone: 'p'.repeat(41) } })).toMatchObject({
      email: null,
      phone: null,
    });
    expect(shopifyRedaction({ customer: { email: 'a@b', phone: ' +966 5 ' } })).toMatchObject({
      email: 'a@b',
      phone: '+966 5',
    });
    const cost = (status: object, errors: unknown[] = []) =>
      shopifyThrottle({ errors, extensions: { cost: { requestedQueryCost: 10, throttleStatus: status } } });
    expect(cost({ currentlyAvailable: 0, restoreRate: 50 })).toMatchObject({ available: 0, throttled: false });
    expect(cost({ currentlyAvailable: -1, restoreRate: 50 })).toBeNull();
    expect(cost({ currentlyAvailable: '5', restoreRate: 50 })).toBeNull();
    expect(cost({ currentlyAvailable: 5, restoreRate: Number.POSITIVE_INFINITY })).toBeNull();
    expect(
      cost({ currentlyAvailable: 5, restoreRate: 50 }, [
        { extensions: { code: 'ACCESS_DENIED' } },
        { extensions: { code: 'THROTTLED' } },
      ])?.throttled,
    ).toBe(true);
    expect(
      cost({ currentlyAvailable: 5, restoreRate: 50 }, [{ extensions: { code: 'ACCESS_DENIED' } }])?.throttled,
    ).toBe(false);
    expect(userErrors({ data: { m: { userErrors: [{ message: 'a' }, { message: 'b' }] } } }, 'm')).toBe('a; b');
    expect(userErrors({ errors: [{ message: 'x'.repeat(400) }] }, 'm')).toHaveLength(300);
  });
});
