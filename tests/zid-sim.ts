import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect } from 'vitest';
import type { TestApp } from './helper.ts';
import { SimServer } from './sim-server.ts';

/**
 * A Zid platform on 127.0.0.1 for the tests (docs/platforms.md): the OAuth server (authorize sends
 * the browser back with a code; the token endpoint answers a code or a refresh with the two tokens
 * Zid gives, `access_token` and `authorization`), the manager's profile, the Merchant API's product
 * list (pages of at most 50, `next` while there are more; 401 "No such user" without `Store-Id`) and
 * product, the webhook subscriptions (one per event, deleted by `original_id`) and the App Scripts.
 * Shapes follow Zid's published samples: a product's `name` and attribute values as `{ar, en}`, its
 * brand an attribute, its variants products with a `parent_id`; an order as the bare Order object.
 *
 * A helper module, not a test file.
 */

export interface ZidSimProduct {
  id?: string;
  name: string;
  nameEn?: string;
  brand?: string | null;
  price: number;
  sale?: number | null;
  quantity?: number | null;
  infinite?: boolean;
  published?: boolean;
  description?: string;
  /** sizes as variants of their own (products with this product's id as `parent_id`) */
  sizes?: { label: string; price: number; quantity?: number }[];
}

interface SimStore {
  id: number;
  title: string;
  url: string;
  email: string;
  accessToken: string;
  authorization: string;
  refreshToken: string;
  used: Set<string>;
  revoked: boolean;
  expiresIn: number;
  products: Map<string, ZidSimProduct & { id: string }>;
  /** subscriptions by event: the target URL Zid posts to */
  webhooks: Map<string, { target_url: string; original_id: number; subscriber: string }>;
  scripts: { url: string }[];
}

const token = () => randomBytes(16).toString('hex');

/** A product as Zid's Merchant API gives it to a manager; its variants as products of their own. */
export function zidProduct(p: ZidSimProduct & { id: string }) {
  const brand =
    p.brand === null
      ? []
      : [
          {
            id: randomUUID(),
            slug: 'brand',
            name: 'الماركة',
            value: { ar: p.brand ?? 'لطافة', en: p.brand ?? 'Lattafa' },
          },
        ];
  const base = {
    id: p.id,
    product_class: p.sizes ? 'grouped_product' : null,
    sku: `SKU-${p.id.slice(0, 8)}`,
    parent_id: null,
    name: { ar: p.name, en: p.nameEn ?? '' },
    slug: p.id,
    price: p.price,
    sale_price: p.sale ?? null,
    currency: 'SAR',
    quantity: p.infinite ? null : p.quantity === undefined ? 10 : p.quantity,
    is_infinite: p.infinite === true,
    is_published: p.published !== false,
    is_draft: false,
    html_url: `https://store.sim.example/products/${p.id}`,
    short_description: { ar: p.description ?? '', en: '' },
    images: [{ id: randomUUID(), image: { full_size: `https://media.sim.example/${p.id}.jpg` } }],
    attributes: brand,
    categories: [{ id: '1', name: { ar: 'عطور', en: 'Perfumes' } }],
    has_options: Boolean(p.sizes),
  };
  const variants = (p.sizes ?? []).map((s, i) => ({
    ...base,
    id: `${p.id.slice(0, 24)}${String(i + 1).padStart(12, '0')}`,
    product_class: null,
    parent_id: p.id,
    price: s.price,
    quantity: s.quantity ?? 5,
    attributes: [...brand, { id: randomUUID(), slug: 'size', name: 'الحجم', value: { ar: s.label, en: s.label } }],
  }));
  return { product: base, variants };
}

export class ZidSimulator extends SimServer {
  stores = new Map<number, SimStore>();
  /** the store the next authorize is for (the merchant who clicked install) */
  installing: number | null = null;
  codes = new Map<string, number>();
  refreshCalls = 0;
  /** App Scripts refused (Zid's injection approval not given yet) */
  refuseScripts = false;
  /** the profile's answer status forced (a firewall's 403, Zid's 5xx) */
  profileStatus: number | null = null;
  hits = new Map<string, number>();

  get apiUrl() {
    return `${this.base}/v1`;
  }

  /** The service's settings for the Zid app, pointed at this simulator (on loopback: allowed as a feed host). */
  env(): Record<string, string> {
    return {
      ZID_CLIENT_ID: '1234',
      ZID_CLIENT_SECRET: 'zid-client-secret',
      ZID_API_URL: this.apiUrl,
      ZID_OAUTH_URL: this.base,
      FEED_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    };
  }

  addStore(
    id: number,
    products: ZidSimProduct[],
    o: { title?: string; url?: string; email?: string; expiresIn?: number } = {},
  ) {
    const store: SimStore = {
      id,
      title: o.title ?? `متجر ${id}`,
      url: o.url ?? `https://store-${id}.zid.sim.example/`,
      email: o.email ?? `owner-${id}@zid.sim.example`,
      accessToken: token(),
      authorization: token(),
      refreshToken: token(),
      used: new Set(),
      revoked: false,
      expiresIn: o.expiresIn ?? 365 * 24 * 3600,
      products: new Map(products.map((p) => [p.id ?? randomUUID(), { ...p, id: p.id ?? '' }])),
      webhooks: new Map(),
      scripts: [],
    };
    for (const [id, p] of store.products) p.id = id;
    this.stores.set(id, store);
    return store;
  }

  /** The merchant uninstalls the app on Zid: every token of the store stops working at once. */
  uninstall(id: number) {
    const s = this.stores.get(id);
    if (s) {
      s.revoked = true;
      s.webhooks.clear();
    }
  }

  /** What Zid posts to the service for `event` of a store: the subscription's URL (path and query) and the body. */
  webhook(storeId: number, event: string, body: unknown) {
    const sub = this.stores.get(storeId)?.webhooks.get(event);
    if (!sub) throw new Error(`store ${storeId} has no subscription to ${event}`);
    const u = new URL(sub.target_url);
    return {
      method: 'POST' as const,
      url: `${u.pathname}${u.search}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    };
  }

  /** An order as Zid's order webhooks carry it (the bare Order object). */
  order(storeId: number, id: number, lines: { product: string; quantity?: number; price: number }[], status = 'new') {
    const total = lines.reduce((t, l) => t + l.price * (l.quantity ?? 1), 0);
    // now in Riyadh, as Zid writes it (to the second, rounded up: the order is placed after what came before it)
    const riyadh = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3 * 3600_000)
      .toISOString()
      .replace('T', ' ')
      .slice(0, 19);
    return {
      id,
      code: `C${id}`,
      store_id: storeId,
      order_url: `https://store.sim.example/o/C${id}/inv`,
      order_status: { name: status, code: status },
      currency_code: 'SAR',
      order_total: total.toFixed(2),
      order_total_string: `${total.toFixed(2)} SAR`,
      payment_status: 'paid',
      created_at: riyadh,
      customer: { id: 1, name: 'متسوق', email: 'shopper@sim.example', mobile: '966500000000' },
      products: lines.map((l, i) => ({
        id: l.product,
        sku: `SKU-${i}`,
        name: { ar: 'عطر', en: 'Perfume' },
        quantity: l.quantity ?? 1,
        price: l.price,
        total: l.price * (l.quantity ?? 1),
      })),
    };
  }

  private tokens(s: SimStore) {
    return {
      access_token: s.accessToken,
      authorization: s.authorization,
      refresh_token: s.refreshToken,
      token_type: 'Bearer',
      expires_in: s.expiresIn,
    };
  }

  protected async handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', this.base);
    this.hits.set(`${req.method} ${url.pathname}`, (this.hits.get(`${req.method} ${url.pathname}`) ?? 0) + 1);
    if (req.method === 'GET' && url.pathname === '/oauth/authorize') {
      // the merchant approves the app on Zid: back to the redirect URI with a code and the state
      const store = this.installing;
      const redirect = url.searchParams.get('redirect_uri') ?? '';
      if (store === null || url.searchParams.get('response_type') !== 'code') return this.json(res, 400, {});
      const code = token();
      this.codes.set(code, store);
      const back = new URL(redirect);
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      res.statusCode = 302;
      res.setHeader('location', back.toString());
      return res.end();
    }
    if (req.method === 'POST' && url.pathname === '/oauth/token') {
      const form = new URLSearchParams(await this.body(req));
      if (form.get('client_secret') !== 'zid-client-secret' || !form.get('redirect_uri')) {
        return this.json(res, 401, { error: 'invalid_client' });
      }
      if (form.get('grant_type') === 'authorization_code') {
        const id = this.codes.get(form.get('code') ?? '');
        if (id === undefined) return this.json(res, 400, { error: 'invalid_grant' });
        this.codes.delete(form.get('code') ?? '');
        const s = this.stores.get(id) as SimStore;
        s.revoked = false;
        s.accessToken = token();
        s.authorization = token();
        s.refreshToken = token();
        return this.json(res, 200, this.tokens(s));
      }
      if (form.get('grant_type') === 'refresh_token') {
        this.refreshCalls++;
        const given = form.get('refresh_token') ?? '';
        const s = [...this.stores.values()].find((x) => x.refreshToken === given || x.used.has(given));
        if (!s || s.revoked) return this.json(res, 401, { error: 'invalid_grant' });
        if (s.used.has(given)) {
          s.revoked = true;
          return this.json(res, 400, { error: 'invalid_grant', error_description: 'refresh token reused' });
        }
        s.used.add(given);
        s.accessToken = token();
        s.authorization = token();
        s.refreshToken = token();
        s.expiresIn = 365 * 24 * 3600;
        return this.json(res, 200, this.tokens(s));
      }
      return this.json(res, 400, { error: 'unsupported_grant_type' });
    }
    // every API call: both tokens
    const auth = req.headers.authorization ?? '';
    const manager = req.headers['x-manager-token'] ?? req.headers['access-token'];
    const store = [...this.stores.values()].find(
      (s) => !s.revoked && auth === `Bearer ${s.authorization}` && manager === s.accessToken,
    );
    if (!store) return this.json(res, 401, { detail: 'Unauthorized' });
    if (url.pathname === '/v1/managers/account/profile') {
      if (this.profileStatus !== null) return this.json(res, this.profileStatus, { detail: 'forced' });
      return this.json(res, 200, {
        status: 'object',
        user: {
          id: 3,
          name: 'Owner',
          username: store.email,
          email: store.email,
          store: {
            id: store.id,
            title: store.title,
            username: `store${store.id}`,
            url: store.url,
            currency: { id: 1, name: 'Saudi Riyal', code: 'SAR', symbol: 'ر.س' },
          },
        },
      });
    }
    if (url.pathname === '/v1/managers/webhooks') {
      if (req.method === 'DELETE') {
        const id = Number(url.searchParams.get('original_id'));
        const before = store.webhooks.size;
        for (const [e, w] of store.webhooks) if (w.original_id === id) store.webhooks.delete(e);
        return this.json(res, before === store.webhooks.size ? 404 : 200, { status: 'object' });
      }
      if (req.method === 'POST') {
        const b = JSON.parse(await this.body(req)) as {
          event: string;
          target_url: string;
          original_id: number;
          subscriber: string;
        };
        if (store.webhooks.has(b.event)) {
          return this.json(res, 400, { message: { description: 'الحد الأقصى للاشتراكات في هذا الحدث وهو 1' } });
        }
        store.webhooks.set(b.event, { target_url: b.target_url, original_id: b.original_id, subscriber: b.subscriber });
        return this.json(res, 201, { status: 'object', data: { id: randomUUID(), event: b.event, active: true } });
      }
      return this.json(res, 200, {
        status: 'object',
        data: [...store.webhooks.entries()].map(([event, w]) => ({ event, ...w })),
      });
    }
    if (url.pathname === '/v1/managers/app-scripts') {
      if (this.refuseScripts)
        return this.json(res, 403, { message: 'This application is not allowed to inject scripts' });
      const b = JSON.parse((await this.body(req)) || '{}') as { url: string };
      if (req.method === 'POST') {
        if (store.scripts.length) return this.json(res, 422, { message: 'script exists' });
        store.scripts.push({ url: b.url });
        return this.json(res, 201, { status: 'object', message: 'Successfully created the script' });
      }
      if (req.method === 'PUT') {
        store.scripts = [{ url: b.url }];
        return this.json(res, 200, { status: 'object', message: 'Successfully updated the script' });
      }
    }
    // the product endpoints want the store's id too
    if (url.pathname.startsWith('/v1/products')) {
      if (req.headers['store-id'] !== String(store.id)) return this.json(res, 401, { detail: 'No such user' });
      const all = [...store.products.values()].flatMap((p) => {
        const { product, variants } = zidProduct(p);
        return [product, ...variants];
      });
      const one = /^\/v1\/products\/([0-9a-f-]{36})\/?$/.exec(url.pathname);
      if (one) {
        const p = store.products.get(one[1] as string);
        if (!p) return this.json(res, 404, { detail: 'Not found' });
        const { product, variants } = zidProduct(p);
        return this.json(res, 200, { ...product, variants });
      }
      if (url.pathname === '/v1/products/' || url.pathname === '/v1/products') {
        const size = Math.min(Number(url.searchParams.get('page_size') ?? 10), 50);
        const page = Number(url.searchParams.get('page') ?? 1);
        const results = all.slice((page - 1) * size, page * size);
        const more = page * size < all.length;
        const link = (n: number) => `${this.apiUrl}/products/?page=${n}&page_size=${size}`;
        return this.json(res, 200, {
          count: all.length,
          next: more ? link(page + 1) : null,
          previous: page > 1 ? link(page - 1) : null,
          results,
          total_products_count: store.products.size,
        });
      }
    }
    return this.json(res, 404, { detail: 'Not found' });
  }
}

/** A cookie's `name=value` among a response's `set-cookie` headers. */
export const cookieOf = (setCookie: string | string[] | undefined, name: string) =>
  ([] as string[])
    .concat(setCookie ?? [])
    .map((c) => c.split(';')[0] as string)
    .find((c) => c.startsWith(`${name}=`));

/**
 * The merchant clicks "install" on Zid: the service's install route, Zid's authorize (which sends
 * the browser back with a code), and the service's callback, in the browser that started it.
 */
export async function installFromZid(app: TestApp, sim: ZidSimulator, store: number) {
  sim.installing = store;
  const start = await app.inject({ method: 'GET', url: '/console/zid/install' });
  expect(start.statusCode).toBe(302);
  const state = cookieOf(start.headers['set-cookie'], 'zid_oauth_state');
  expect(state).toBeTruthy();
  const authorize = await fetch(start.headers.location as string, { redirect: 'manual' });
  expect(authorize.status).toBe(302);
  const back = new URL(authorize.headers.get('location') as string);
  expect(back.pathname).toBe('/console/zid/callback');
  const callback = await app.inject({
    method: 'GET',
    url: `${back.pathname}${back.search}`,
    headers: { cookie: state as string },
  });
  return { callback, back, state: state as string };
}
