import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect } from 'vitest';
import { CONNECTION_ROUTE, connectionMessage, signWoo } from '../platforms/woocommerce.ts';
import { Browser } from './console-session.ts';
import type { TestApp } from './helper.ts';
import { SimServer } from './sim-server.ts';

/**
 * WooCommerce stores on 127.0.0.1 for the tests (docs/platforms.md), each a WordPress in a folder
 * (`/attar`): WooCommerce's key screen (`/wc-auth/v1/authorize`: the admin approves, WooCommerce
 * posts the new keys to the callback URL, then sends the browser to the return URL), the REST API
 * (`/wp-json/wc/v3/products` behind the keys, Basic auth) and the public Store API
 * (`/wp-json/wc/store/v1/products`, a page and one product), in the shapes WooCommerce publishes;
 * the plugin's confirmation of a connection it started (`?rest_route=/sillage/v1/connection`: the
 * proof it holds, and the service's challenge signed with its installation key); and the webhooks
 * its plugin registers, signed with the store's secret.
 *
 * A helper module, not a test file.
 */

export interface WooSimProduct {
  id: number;
  name: string;
  brand: string;
  price: number;
  sale?: number | null;
  inStock?: boolean;
}

export interface WooSimStore {
  path: string;
  products: Map<number, WooSimProduct>;
  /** the last keys approved */
  keys: { key: string; secret: string; permissions: string } | null;
  /** every key approved on this WordPress (each opens its REST API until deleted) */
  approved: Set<string>;
  /** the plugin's installation key pair (kept across Disconnect; a new WordPress has another) */
  installation: { privateKey: KeyObject; key: string };
  /** the proofs of the connections its plugin started (Connect pressed) */
  pending: Set<string>;
  /** a fake store: its "plugin" confirms any proof it is asked about */
  confirmsAny: boolean;
  /** the webhook secret and delivery URL the plugin registered (from the service's claim) */
  webhook: { secret: string; url: string } | null;
}

/** A product as the Store API gives it (prices in minor units, the brand an attribute). */
export function storeApiProduct(p: WooSimProduct, origin: string) {
  const price = Math.round((p.sale ?? p.price) * 100);
  return {
    id: p.id,
    name: p.name,
    slug: `p-${p.id}`,
    type: 'simple',
    permalink: `${origin}/product/p-${p.id}/`,
    short_description: '',
    description: '',
    on_sale: Boolean(p.sale),
    prices: {
      price: String(price),
      regular_price: String(Math.round(p.price * 100)),
      sale_price: String(price),
      price_range: null,
      currency_code: 'SAR',
      currency_minor_unit: 2,
    },
    images: [{ id: 1, src: `${origin}/wp-content/uploads/${p.id}.jpg` }],
    categories: [{ id: 15, name: 'عطور', slug: 'perfumes' }],
    attributes: [
      { id: 1, name: 'الماركة', taxonomy: 'pa_brand', has_variations: false, terms: [{ id: 31, name: p.brand }] },
    ],
    variations: [],
    is_purchasable: true,
    is_in_stock: p.inStock !== false,
  };
}

export class WooSimulator extends SimServer {
  stores = new Map<string, WooSimStore>();
  /** what WooCommerce posts to the callback URL once the admin approves (the test sends it on) */
  posted: { url: string; body: string }[] = [];
  /** the admin declines the keys */
  decline = false;
  /** the REST API answers any request, with keys or without (a site that answers everything alike) */
  openApi = false;
  /** how many times a store was asked to confirm a connection */
  confirmations = 0;

  /** The service's settings for the WooCommerce app (loopback: allowed as a store's host). */
  env(): Record<string, string> {
    return { WOOCOMMERCE_APP: 'true', FEED_ALLOW_PRIVATE_HOSTS: '127.0.0.1' };
  }

  addStore(path: string, products: WooSimProduct[], o: { confirmsAny?: boolean } = {}) {
    const pair = generateKeyPairSync('ed25519');
    const store: WooSimStore = {
      path,
      products: new Map(products.map((p) => [p.id, p])),
      keys: null,
      approved: new Set(),
      installation: { privateKey: pair.privateKey, key: pair.publicKey.export({ format: 'jwk' }).x as string },
      pending: new Set(),
      confirmsAny: o.confirmsAny ?? false,
      webhook: null,
    };
    this.stores.set(path, store);
    return store;
  }

  /** Another WordPress at a store's address (the address changed hands): no keys, another installation key. */
  newWordPress(path: string, o: { confirmsAny?: boolean } = {}) {
    const old = this.stores.get(path);
    return this.addStore(path, old ? [...old.products.values()] : [], o);
  }

  /** The store's address (its home_url()). */
  url(path: string) {
    return `${this.base}/${path}`;
  }

  /** What the store posts to the service for `topic`, signed with `secret` (the store's by default). */
  webhook(path: string, topic: string, body: unknown, o: { secret?: string } = {}) {
    const store = this.stores.get(path);
    if (!store?.webhook) throw new Error(`store ${path} has no webhook registered`);
    const payload = JSON.stringify(body);
    const u = new URL(store.webhook.url);
    return {
      method: 'POST' as const,
      url: u.pathname,
      headers: {
        'content-type': 'application/json',
        'x-wc-webhook-topic': topic,
        'x-wc-webhook-source': `${this.url(path)}/`,
        'x-wc-webhook-signature': signWoo(payload, o.secret ?? store.webhook.secret),
        'x-wc-webhook-id': '12',
        'x-wc-webhook-delivery-id': String(Math.floor(Math.random() * 1e9)),
      },
      payload,
    };
  }

  /** An order as WooCommerce's order webhooks carry it (the REST API's shape). */
  order(id: number, lines: { product: number; quantity?: number; price: number }[], status = 'processing') {
    const total = lines.reduce((t, l) => t + l.price * (l.quantity ?? 1), 0);
    return {
      id,
      status,
      currency: 'SAR',
      total: total.toFixed(2),
      date_created_gmt: new Date(Math.ceil(Date.now() / 1000) * 1000).toISOString().slice(0, 19),
      billing: { email: 'shopper@sim.example' },
      line_items: lines.map((l, i) => ({
        id: id * 10 + i,
        product_id: l.product,
        variation_id: 0,
        quantity: l.quantity ?? 1,
        total: (l.price * (l.quantity ?? 1)).toFixed(2),
        price: l.price,
      })),
    };
  }

  protected async handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', this.base);
    const [, path, ...rest] = url.pathname.split('/');
    const store = this.stores.get(path ?? '');
    const route = `/${rest.join('/')}`;
    if (url.searchParams.get('rest_route') === CONNECTION_ROUTE) this.confirmations++;
    if (!store) return this.json(res, 404, { code: 'rest_no_route' });
    if (req.method === 'GET' && route === '/' && url.searchParams.get('rest_route') === CONNECTION_ROUTE) {
      const proof = url.searchParams.get('proof') ?? '';
      const challenge = url.searchParams.get('challenge') ?? '';
      if (!store.confirmsAny && !store.pending.has(proof)) {
        return this.json(res, 404, {
          code: 'sillage_no_connection',
          message: 'No connection started',
          data: { status: 404 },
        });
      }
      return this.json(res, 200, {
        proof,
        key: store.installation.key,
        signature: sign(null, connectionMessage(proof, challenge), store.installation.privateKey).toString('base64url'),
      });
    }
    const keyScreen =
      route === '/wc-auth/v1/authorize' ||
      (route === '/' &&
        url.searchParams.get('wc-auth-version') === '1' &&
        url.searchParams.get('wc-auth-route') === 'authorize');
    if (req.method === 'GET' && keyScreen) {
      const callback = url.searchParams.get('callback_url') ?? '';
      const back = new URL(url.searchParams.get('return_url') ?? '');
      const userId = url.searchParams.get('user_id') ?? '';
      back.searchParams.set('user_id', userId);
      if (this.decline) {
        back.searchParams.set('success', '0');
      } else {
        store.keys = {
          key: `ck_${randomBytes(20).toString('hex')}`,
          secret: `cs_${randomBytes(20).toString('hex')}`,
          permissions: url.searchParams.get('scope') ?? 'read',
        };
        store.approved.add(`Basic ${Buffer.from(`${store.keys.key}:${store.keys.secret}`).toString('base64')}`);
        this.posted.push({
          url: callback,
          body: JSON.stringify({
            key_id: 1,
            user_id: userId,
            consumer_key: store.keys.key,
            consumer_secret: store.keys.secret,
            key_permissions: store.keys.permissions,
          }),
        });
        back.searchParams.set('success', '1');
      }
      res.statusCode = 302;
      res.setHeader('location', back.toString());
      return res.end();
    }
    if (route === '/wp-json/wc/v3/products') {
      if (!this.openApi && !store.approved.has(req.headers.authorization ?? '')) {
        return this.json(res, 401, {
          code: 'woocommerce_rest_cannot_view',
          message: 'Sorry, you cannot list resources.',
        });
      }
      return this.json(res, 200, []);
    }
    const one = /^\/wp-json\/wc\/store\/v1\/products\/(\d+)$/.exec(route);
    if (one) {
      const p = store.products.get(Number(one[1]));
      if (!p)
        return this.json(res, 404, { code: 'woocommerce_rest_product_invalid_id', message: 'Invalid product ID.' });
      return this.json(res, 200, storeApiProduct(p, this.url(store.path)));
    }
    if (route === '/wp-json/wc/store/v1/products') {
      const per = Math.min(Number(url.searchParams.get('per_page') ?? 10), 100);
      const page = Number(url.searchParams.get('page') ?? 1);
      const all = [...store.products.values()];
      res.setHeader('x-wp-totalpages', String(Math.max(1, Math.ceil(all.length / per))));
      return this.json(
        res,
        200,
        all.slice((page - 1) * per, page * per).map((p) => storeApiProduct(p, this.url(store.path))),
      );
    }
    return this.json(res, 404, { code: 'rest_no_route' });
  }
}

/** A random address in 10/8: each simulated browser or store server its own, unless a test says. */
const someAddress = () => `10.${[0, 0, 0].map(() => Math.floor(Math.random() * 250) + 1).join('.')}`;

/**
 * The store's admin presses Connect in the plugin (which keeps the secret's proof as the
 * connection it started), and their browser opens the service's connect route: what it answered
 * (a 302 to the store's key screen once the store confirmed), the browser, the secret and proof.
 */
export async function startFromWoo(
  app: TestApp,
  sim: WooSimulator,
  path: string,
  o: { email?: string; secret?: string; browser?: Browser } = {},
) {
  const secret = o.secret ?? randomBytes(32).toString('hex');
  const proof = createHash('sha256').update(secret).digest('hex');
  sim.stores.get(path)?.pending.add(proof);
  const browser = o.browser ?? new Browser(app, someAddress());
  const q = new URLSearchParams({ store: sim.url(path), proof, email: o.email ?? `owner@${path}.sim.example` });
  const start = await browser.get(`/console/woocommerce/connect?${q}`);
  return { start, browser, secret, proof };
}

/**
 * The store's admin presses Connect in the plugin: the service's connect route (which asks the
 * store to confirm), WooCommerce's key screen (the admin approves), WooCommerce's post of the keys
 * to the service (from the store's server, `storeIp`), the browser's return (the page offering the
 * console, whose button the admin presses unless `signIn` is false), and the plugin's claim with
 * its secret. Answers what the service answered at each step.
 */
export async function connectFromWoo(
  app: TestApp,
  sim: WooSimulator,
  path: string,
  o: { email?: string; secret?: string; browser?: Browser; storeIp?: string; signIn?: boolean } = {},
) {
  const { start, browser, secret } = await startFromWoo(app, sim, path, o);
  expect(start.statusCode, start.body).toBe(302);
  const consent = await fetch(start.headers.location as string, { redirect: 'manual' });
  expect(consent.status).toBe(302);
  // WooCommerce posts the keys before it sends the browser back
  const post = sim.posted.shift();
  const keys = post
    ? await app.inject({
        method: 'POST',
        url: new URL(post.url).pathname,
        headers: { 'content-type': 'application/json' },
        payload: post.body,
        remoteAddress: o.storeIp ?? someAddress(),
      })
    : null;
  const back = new URL(consent.headers.get('location') as string);
  const offered = await browser.get(`${back.pathname}${back.search}`);
  const token = back.searchParams.get('user_id') ?? '';
  // the page offering the console: its button signs in
  const returned =
    offered.statusCode === 200 && o.signIn !== false
      ? await browser.post('/console/woocommerce/return', { user_id: token })
      : offered;
  const page = returned.headers.location ? new URL(returned.headers.location as string) : null;
  const claim = await app.inject({
    method: 'POST',
    url: '/api/platforms/woocommerce/connections/claim',
    headers: { 'content-type': 'application/json' },
    payload: { token: page?.searchParams.get('sillage_connect') ?? token, secret },
  });
  if (claim.statusCode === 200) {
    const c = claim.json() as { webhook_secret: string; webhook_url: string };
    const store = sim.stores.get(path);
    if (store) store.webhook = { secret: c.webhook_secret, url: c.webhook_url };
  }
  return { start, keys, offered, returned, page, claim, token, secret, browser };
}
