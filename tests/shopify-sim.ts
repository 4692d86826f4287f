import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect } from 'vitest';
import { SHOPIFY_SCOPES, signQuery, signWebhook } from '../platforms/shopify.ts';
import type { TestApp } from './helper.ts';
import { SimServer } from './sim-server.ts';
import { cookieOf } from './zid-sim.ts';

/**
 * Shopify on 127.0.0.1 for the tests (docs/platforms.md): each shop under `/{handle}.myshopify.com`
 * (SHOPIFY_SHOP_URL points there), with its OAuth consent (it sends the browser back with a code
 * and an HMAC-signed query), its token endpoint (an offline token and the scopes granted), and its
 * Admin GraphQL API for the operations the app sends, each named (`query SillageProducts`): the
 * shop, the products (cursor paging), one product, one order (known only to the shop whose webhook
 * carried it), the app installation, `metafieldsSet`, `webPixelCreate` (TAKEN when the app has
 * one) and `webPixelUpdate`, the webhook subscriptions. A
 * cost-based bucket answers THROTTLED when asked to; webhooks are signed as Shopify signs them
 * (base64 HMAC-SHA256 of the body with the app's secret). Shapes follow Shopify's published samples.
 *
 * A helper module, not a test file.
 */

export const SHOPIFY_SECRET = 'shopify-app-secret';
export const SHOPIFY_CLIENT = 'shopify-client-id';

export interface ShopifySimProduct {
  id: number;
  title: string;
  vendor: string;
  status?: 'ACTIVE' | 'DRAFT' | 'ARCHIVED';
  productType?: string;
  tags?: string[];
  description?: string;
  variants: { title: string; price: number; compareAt?: number | null; available?: boolean }[];
}

export interface SimShop {
  handle: string;
  name: string;
  email: string;
  currency: string;
  domain: string;
  token: string;
  revoked: boolean;
  scope: string;
  products: Map<number, ShopifySimProduct>;
  webhooks: { id: string; topic: string; uri: string }[];
  pixel: { id: string; settings: string } | null;
  metafields: { ownerId: string; namespace: string; key: string; type: string; value: string }[];
  installationId: string;
  /** the ids of the shop's orders (each orders/create webhook of the shop's adds its order) */
  orders: Set<string>;
}

const gid = (type: string, id: number | string) => `gid://shopify/${type}/${id}`;

/** A product as the Admin GraphQL API answers the app's fragment. */
export function graphqlProduct(p: ShopifySimProduct, domain: string) {
  const handle = p.title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  return {
    id: gid('Product', p.id),
    title: p.title,
    handle,
    vendor: p.vendor,
    productType: p.productType ?? 'Perfume',
    tags: p.tags ?? [],
    status: p.status ?? 'ACTIVE',
    onlineStoreUrl: p.status && p.status !== 'ACTIVE' ? null : `https://${domain}/products/${handle}`,
    description: p.description ?? '',
    featuredMedia: { preview: { image: { url: `https://cdn.shopify.sim.example/${p.id}.jpg` } } },
    variants: {
      nodes: p.variants.map((v, i) => ({
        id: gid('ProductVariant', p.id * 100 + i),
        title: v.title,
        price: v.price.toFixed(2),
        compareAtPrice: v.compareAt ? v.compareAt.toFixed(2) : null,
        availableForSale: v.available !== false,
        selectedOptions: [{ name: 'Size', value: v.title }],
      })),
    },
  };
}

export class ShopifySimulator extends SimServer {
  shops = new Map<string, SimShop>();
  codes = new Map<string, string>();
  /** GraphQL calls to answer THROTTLED before answering again */
  throttleNext = 0;
  /** a products page after the first answered with GraphQL errors and no data (Shopify failing inside) */
  failLaterPages = false;
  /** web pixels refused (the app's pixel extension not deployed yet) */
  refusePixel = false;
  /** the scopes the merchant grants at the next consent (all the app asks by default) */
  grant: string | null = null;
  calls: string[] = [];

  /** The service's settings for the Shopify app, pointed at this simulator (loopback: allowed as a feed host). */
  env(): Record<string, string> {
    return {
      SHOPIFY_CLIENT_ID: SHOPIFY_CLIENT,
      SHOPIFY_CLIENT_SECRET: SHOPIFY_SECRET,
      SHOPIFY_SHOP_URL: `${this.base}/{shop}`,
      FEED_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    };
  }

  addShop(handle: string, products: ShopifySimProduct[], o: { name?: string; domain?: string; email?: string } = {}) {
    const shop: SimShop = {
      handle,
      name: o.name ?? `Shop ${handle}`,
      email: o.email ?? `owner@${handle}.sim.example`,
      currency: 'SAR',
      domain: o.domain ?? `${handle}.sim.example`,
      token: '',
      revoked: true,
      scope: '',
      products: new Map(products.map((p) => [p.id, p])),
      webhooks: [],
      pixel: null,
      metafields: [],
      installationId: gid('AppInstallation', Math.floor(Math.random() * 1e9)),
      orders: new Set(),
    };
    this.shops.set(handle, shop);
    return shop;
  }

  /** The merchant uninstalls the app: the token stops working, the app's webhooks and pixel go. */
  uninstall(handle: string) {
    const s = this.shops.get(handle);
    if (!s) return;
    s.revoked = true;
    s.webhooks = [];
    s.pixel = null;
  }

  /** The signed query with which Shopify opens the app's URL from the shop's admin. */
  adminQuery(handle: string, o: { secret?: string; timestamp?: number } = {}) {
    const q: Record<string, string> = {
      host: Buffer.from(`admin.shopify.com/store/${handle}`).toString('base64url'),
      shop: `${handle}.myshopify.com`,
      timestamp: String(o.timestamp ?? Math.floor(Date.now() / 1000)),
    };
    q.hmac = signQuery(q, o.secret ?? SHOPIFY_SECRET);
    return new URLSearchParams(q).toString();
  }

  /** What Shopify posts to the app for `topic` of a shop, signed with `secret` (the app's by default). */
  webhook(handle: string, topic: string, body: unknown, o: { id?: string; secret?: string } = {}) {
    const payload = JSON.stringify(body);
    // Shopify sends a shop the webhooks of its own orders: the order is the shop's
    const order = (body as { id?: unknown } | null)?.id;
    if (topic.startsWith('orders/') && order !== undefined) this.shops.get(handle)?.orders.add(String(order));
    return {
      method: 'POST' as const,
      url: '/api/platforms/shopify/webhooks',
      headers: {
        'content-type': 'application/json',
        'x-shopify-topic': topic,
        'x-shopify-shop-domain': `${handle}.myshopify.com`,
        'x-shopify-hmac-sha256': signWebhook(payload, o.secret ?? SHOPIFY_SECRET),
        'x-shopify-webhook-id': o.id ?? randomUUID(),
        'x-shopify-api-version': '2025-10',
        'x-shopify-triggered-at': new Date().toISOString(),
      },
      payload,
    };
  }

  /** A product as the products/* webhooks carry it (the REST shape). */
  productPayload(p: ShopifySimProduct) {
    return {
      id: p.id,
      admin_graphql_api_id: gid('Product', p.id),
      title: p.title,
      vendor: p.vendor,
      status: (p.status ?? 'ACTIVE').toLowerCase(),
      variants: p.variants.map((v, i) => ({ id: p.id * 100 + i, title: v.title, price: v.price.toFixed(2) })),
    };
  }

  /**
   * An order as orders/create carries it (the REST shape); with `host`, its `order_status_url` on
   * that host (the shop's own domain, or its myshopify.com one), after the shop's numeric id.
   */
  order(
    id: number,
    lines: { product: number; quantity?: number; price: number }[],
    o: { test?: boolean; host?: string } = {},
  ) {
    const total = lines.reduce((t, l) => t + l.price * (l.quantity ?? 1), 0);
    return {
      id,
      ...(o.host
        ? {
            order_status_url: `https://${o.host}/548380009/orders/${randomBytes(16).toString('hex')}/authenticate?key=${randomBytes(16).toString('hex')}`,
          }
        : {}),
      admin_graphql_api_id: gid('Order', id),
      name: `#${id % 10000}`,
      currency: 'SAR',
      total_price: total.toFixed(2),
      subtotal_price: total.toFixed(2),
      financial_status: 'paid',
      test: o.test === true,
      cancelled_at: null,
      created_at: new Date(Math.ceil(Date.now() / 1000) * 1000).toISOString().replace('Z', '+00:00'),
      email: 'shopper@sim.example',
      customer: { id: 7, email: 'shopper@sim.example' },
      line_items: lines.map((l, i) => ({
        id: id * 10 + i,
        product_id: l.product,
        variant_id: l.product * 100,
        quantity: l.quantity ?? 1,
        price: l.price.toFixed(2),
        title: 'Perfume',
      })),
    };
  }

  private cost(requested: number) {
    return {
      requestedQueryCost: requested,
      actualQueryCost: requested,
      throttleStatus: { maximumAvailable: 2000, currentlyAvailable: 1800, restoreRate: 100 },
    };
  }

  protected async handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', this.base);
    const m = /^\/([a-z0-9-]+)\.myshopify\.com(\/.*)$/.exec(url.pathname);
    const shop = m ? this.shops.get(m[1] as string) : undefined;
    const path = m?.[2] ?? '';
    if (!shop) return this.json(res, 404, { errors: 'Not Found' });
    if (req.method === 'GET' && path === '/admin/oauth/authorize') {
      // the merchant approves the app: back to the redirect URI with a code, signed
      const redirect = url.searchParams.get('redirect_uri') ?? '';
      if (url.searchParams.get('client_id') !== SHOPIFY_CLIENT) return this.json(res, 400, {});
      const code = randomBytes(16).toString('hex');
      this.codes.set(code, shop.handle);
      const q: Record<string, string> = {
        code,
        host: Buffer.from(`admin.shopify.com/store/${shop.handle}`).toString('base64url'),
        shop: `${shop.handle}.myshopify.com`,
        state: url.searchParams.get('state') ?? '',
        timestamp: String(Math.floor(Date.now() / 1000)),
      };
      q.hmac = signQuery(q, SHOPIFY_SECRET);
      const back = new URL(redirect);
      for (const [k, v] of Object.entries(q)) back.searchParams.set(k, v);
      res.statusCode = 302;
      res.setHeader('location', back.toString());
      return res.end();
    }
    if (req.method === 'POST' && path === '/admin/oauth/access_token') {
      const b = JSON.parse(await this.body(req)) as { client_id?: string; client_secret?: string; code?: string };
      if (b.client_id !== SHOPIFY_CLIENT || b.client_secret !== SHOPIFY_SECRET) {
        return this.json(res, 401, { error: 'invalid_client' });
      }
      if (this.codes.get(b.code ?? '') !== shop.handle) return this.json(res, 400, { error: 'invalid_request' });
      this.codes.delete(b.code ?? '');
      shop.token = `shpat_${randomBytes(16).toString('hex')}`;
      shop.revoked = false;
      shop.scope = this.grant ?? SHOPIFY_SCOPES.join(',');
      return this.json(res, 200, { access_token: shop.token, scope: shop.scope });
    }
    if (req.method === 'POST' && /^\/admin\/api\/[0-9-]+\/graphql\.json$/.test(path)) {
      if (shop.revoked || req.headers['x-shopify-access-token'] !== shop.token) {
        return this.json(res, 401, {
          errors: '[API] Invalid API key or access token (unrecognized login or wrong password)',
        });
      }
      const { query, variables = {} } = JSON.parse(await this.body(req)) as {
        query: string;
        variables?: Record<string, unknown>;
      };
      const op = /^\s*(?:query|mutation)\s+(\w+)/.exec(query)?.[1] ?? 'anonymous';
      this.calls.push(op);
      if (this.throttleNext > 0) {
        this.throttleNext--;
        return this.json(res, 200, {
          errors: [
            {
              message: 'Throttled',
              extensions: { code: 'THROTTLED', documentation: 'https://shopify.dev/api/usage/rate-limits' },
            },
          ],
          extensions: {
            cost: {
              requestedQueryCost: 526,
              actualQueryCost: null,
              throttleStatus: { maximumAvailable: 2000, currentlyAvailable: 500, restoreRate: 1000 },
            },
          },
        });
      }
      const answer = (data: unknown, requested = 1) =>
        this.json(res, 200, { data, extensions: { cost: this.cost(requested) } });
      switch (op) {
        case 'SillageShop':
          return answer({
            shop: {
              name: shop.name,
              email: shop.email,
              currencyCode: shop.currency,
              primaryDomain: { url: `https://${shop.domain}` },
            },
          });
        case 'SillageProducts': {
          if (this.failLaterPages && typeof variables.after === 'string') {
            return this.json(res, 200, {
              errors: [{ message: 'Internal error. Looks like something went wrong on our end.' }],
              data: null,
            });
          }
          const first = Math.min(Number(variables.first ?? 10), 250);
          const active = [...shop.products.values()].filter((p) => (p.status ?? 'ACTIVE') === 'ACTIVE');
          const after =
            typeof variables.after === 'string' ? Number(Buffer.from(variables.after, 'base64').toString()) : 0;
          const page = active.slice(after, after + first);
          const end = after + page.length;
          return answer(
            {
              products: {
                pageInfo: {
                  hasNextPage: end < active.length,
                  endCursor: page.length ? Buffer.from(String(end)).toString('base64') : null,
                },
                nodes: page.map((p) => graphqlProduct(p, shop.domain)),
              },
            },
            first * 21 + 1,
          );
        }
        case 'SillageProduct': {
          const id = Number(String(variables.id ?? '').replace('gid://shopify/Product/', ''));
          const p = shop.products.get(id);
          return answer({ product: p ? graphqlProduct(p, shop.domain) : null }, 22);
        }
        case 'SillageOrder': {
          const id = String(variables.id ?? '').replace('gid://shopify/Order/', '');
          return answer({ order: shop.orders.has(id) ? { id: gid('Order', id) } : null });
        }
        case 'SillageInstallation':
          return answer({ currentAppInstallation: { id: shop.installationId } });
        case 'SillageScript': {
          for (const f of (variables.m ?? []) as SimShop['metafields']) {
            shop.metafields = shop.metafields.filter((x) => !(x.namespace === f.namespace && x.key === f.key));
            shop.metafields.push(f);
          }
          return answer({ metafieldsSet: { userErrors: [] } }, 10);
        }
        case 'SillagePixel': {
          if (this.refusePixel) {
            return answer({
              webPixelCreate: {
                userErrors: [
                  { code: 'INVALID_CONFIGURATION', field: ['settings'], message: 'No web pixel extension found' },
                ],
                webPixel: null,
              },
            });
          }
          if (shop.pixel) {
            return answer({
              webPixelCreate: {
                userErrors: [{ code: 'TAKEN', field: ['webPixel'], message: 'Web pixel is taken.' }],
                webPixel: null,
              },
            });
          }
          shop.pixel = {
            id: gid('WebPixel', Date.now()),
            settings: String((variables.p as { settings: string }).settings),
          };
          return answer({ webPixelCreate: { userErrors: [], webPixel: { id: shop.pixel.id } } }, 10);
        }
        case 'SillagePixelId':
          return answer({ webPixel: shop.pixel ? { id: shop.pixel.id } : null });
        case 'SillagePixelUpdate': {
          if (!shop.pixel || variables.id !== shop.pixel.id) {
            return answer({ webPixelUpdate: { userErrors: [{ code: 'NOT_FOUND', message: 'not found' }] } });
          }
          shop.pixel.settings = String((variables.p as { settings: string }).settings);
          return answer({ webPixelUpdate: { userErrors: [] } }, 10);
        }
        case 'SillageWebhooks':
          return answer({ webhookSubscriptions: { nodes: shop.webhooks } }, 10);
        case 'SillageWebhook': {
          const w = variables.w as { uri: string; format: string };
          shop.webhooks.push({
            id: gid('WebhookSubscription', shop.webhooks.length + 1),
            topic: String(variables.t),
            uri: w.uri,
          });
          return answer({ webhookSubscriptionCreate: { userErrors: [] } }, 10);
        }
        default:
          return this.json(res, 200, { errors: [{ message: `unknown operation ${op}` }] });
      }
    }
    return this.json(res, 404, { errors: 'Not Found' });
  }
}

/**
 * The merchant opens the app from the Shopify admin (a signed query): the service's install route,
 * the shop's consent (which sends the browser back with a code), and the service's callback.
 */
export async function installFromShopify(app: TestApp, sim: ShopifySimulator, handle: string) {
  const start = await app.inject({ method: 'GET', url: `/console/shopify/install?${sim.adminQuery(handle)}` });
  expect(start.statusCode, start.body).toBe(302);
  const state = cookieOf(start.headers['set-cookie'], 'shopify_oauth_state');
  expect(state).toBeTruthy();
  const consent = await fetch(start.headers.location as string, { redirect: 'manual' });
  expect(consent.status).toBe(302);
  const back = new URL(consent.headers.get('location') as string);
  expect(back.pathname).toBe('/console/shopify/callback');
  const callback = await app.inject({
    method: 'GET',
    url: `${back.pathname}${back.search}`,
    headers: { cookie: state as string },
  });
  return { callback, back, state: state as string };
}
