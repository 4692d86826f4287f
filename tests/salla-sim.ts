import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SimServer } from './sim-server.ts';

/**
 * A Salla platform on 127.0.0.1 for the tests (docs/platforms.md): the Merchant API's product list
 * and product, the OAuth server's token refresh (single-use refresh tokens: one used twice revokes
 * the store's tokens, as Salla documents) and user info, and the app's webhooks as Salla signs them
 * (`X-Salla-Signature`: hex HMAC-SHA256 of the body). Payload shapes follow Salla's published
 * examples (the product model of its product webhooks; the envelope {event, merchant, created_at, data}).
 *
 * A helper module, not a test file.
 */

export interface SimProduct {
  id: number;
  name: string;
  brand?: { id: number; name: string } | null;
  /** the listing names only the brand's id (its name is in the store's brands) */
  brandIdOnly?: boolean;
  price: number;
  sale?: number;
  status?: 'sale' | 'out' | 'hidden';
  quantity?: number | null;
  description?: string;
}

interface SimStore {
  id: number;
  name: string;
  domain: string;
  accessToken: string;
  refreshToken: string;
  /** refresh tokens already used: one sent again revokes the store's tokens */
  used: Set<string>;
  expires: number;
  revoked: boolean;
  products: Map<number, SimProduct>;
  /** the email of the store's user who authorized the app (user info's `email`) */
  email: string | null;
  /** that user's Salla id (user info's `id`) */
  userId: number;
}

const token = () => randomBytes(16).toString('hex');

export function sallaProduct(p: SimProduct) {
  const money = (amount: number) => ({ amount, currency: 'SAR' });
  return {
    id: p.id,
    sku: `SKU-${p.id}`,
    type: 'product',
    name: p.name,
    description: p.description ?? '',
    urls: { customer: `https://shop.sim.example/p${p.id}`, admin: `https://s.salla.sa/products/${p.id}` },
    price: money(p.price),
    regular_price: money(p.price),
    sale_price: money(p.sale ?? 0),
    taxed_price: money(p.price),
    quantity: p.quantity === undefined ? 10 : p.quantity,
    unlimited_quantity: p.quantity === null,
    status: p.status ?? 'sale',
    is_available: (p.status ?? 'sale') === 'sale',
    main_image: `https://cdn.sim.example/${p.id}.jpg`,
    images: [],
    options: [],
    skus: [],
    categories: [{ id: 1, name: 'عطور' }],
    ...(p.brand === null
      ? {}
      : p.brandIdOnly
        ? { brand_id: (p.brand ?? { id: 7 }).id }
        : { brand: p.brand ?? { id: 7, name: 'Lattafa' } }),
  };
}

/** A signed webhook as Salla posts it to the service (for `app.inject`); `signature: null` sends none. */
export function webhookRequest(hook: { body: string; signature: string }, signature: string | null = hook.signature) {
  return {
    method: 'POST' as const,
    url: '/api/platforms/salla/webhook',
    headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'x-salla-signature': signature }) },
    payload: hook.body,
  };
}

export class SallaSimulator extends SimServer {
  stores = new Map<number, SimStore>();
  refreshCalls = 0;
  /** requests by path, for tests that count calls */
  hits = new Map<string, number>();
  /** the app's id: introspection answers only when asked with it as `S-Source` */
  readonly appId = '4815162342';
  /** tokens the dashboard gave its app's page (`?token=` in the iframe's URL): the store and until when */
  dashboardTokens = new Map<string, { storeId: number; userId: number; exp: number }>();
  /** when set, introspection answers this status (Salla away: 500; throttling: 429) */
  introspectFailure: number | null = null;

  get apiUrl() {
    return `${this.base}/admin/v2`;
  }

  /** The service's settings for the Salla app, pointed at this simulator (on loopback: allowed as a feed host). */
  env(webhookSecret: string): Record<string, string> {
    return {
      SALLA_WEBHOOK_SECRET: webhookSecret,
      SALLA_CLIENT_ID: 'client-id',
      SALLA_CLIENT_SECRET: 'client-secret',
      SALLA_API_URL: this.apiUrl,
      SALLA_ACCOUNTS_URL: this.base,
      SALLA_APP_ID: this.appId,
      SALLA_INTROSPECT_URL: `${this.base}/exchange-authority/v1/introspect`,
      FEED_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    };
  }

  addStore(
    id: number,
    products: SimProduct[],
    o: { name?: string; domain?: string; expiresInS?: number; email?: string | null } = {},
  ) {
    const store: SimStore = {
      id,
      name: o.name ?? `متجر ${id}`,
      domain: o.domain ?? `https://store-${id}.sim.example`,
      accessToken: token(),
      refreshToken: token(),
      used: new Set(),
      expires: Math.floor(Date.now() / 1000) + (o.expiresInS ?? 14 * 24 * 3600),
      revoked: false,
      products: new Map(products.map((p) => [p.id, p])),
      email: o.email === undefined ? `owner-${id}@store.sim.example` : o.email,
      userId: 700_000 + id,
    };
    this.stores.set(id, store);
    return store;
  }

  /** A webhook as Salla sends it: the envelope, its raw body and its signature with `secret`. */
  webhook(event: string, storeId: number, data: unknown, secret: string, createdAt = new Date()) {
    const body = JSON.stringify({
      event,
      merchant: storeId,
      created_at: createdAt.toISOString().replace('T', ' ').slice(0, 19),
      data,
    });
    return { body, signature: createHmac('sha256', secret).update(body).digest('hex') };
  }

  /** `app.store.authorize` with the store's current tokens (Easy Mode). */
  authorize(storeId: number, secret: string, createdAt = new Date()) {
    const s = this.stores.get(storeId) as SimStore;
    return this.webhook(
      'app.store.authorize',
      storeId,
      {
        access_token: s.accessToken,
        refresh_token: s.refreshToken,
        expires: s.expires,
        scope: 'products.read offline_access',
        token_type: 'bearer',
      },
      secret,
      createdAt,
    );
  }

  /**
   * A token Salla's dashboard puts in its app page's URL for this store (5 minutes, as Salla's), for
   * the page opened by `userId` (the user who installed the app, unless another is named).
   */
  dashboardToken(storeId: number, expiresInS = 300, userId?: number): string {
    const t = `em_tok_${token()}`;
    const installer = this.stores.get(storeId)?.userId ?? 0;
    this.dashboardTokens.set(t, { storeId, userId: userId ?? installer, exp: Date.now() + expiresInS * 1000 });
    return t;
  }

  private storeOf(req: IncomingMessage): SimStore | null {
    const auth = req.headers.authorization ?? '';
    for (const s of this.stores.values()) if (!s.revoked && auth === `Bearer ${s.accessToken}`) return s;
    return null;
  }

  protected async handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', this.base);
    this.hits.set(url.pathname, (this.hits.get(url.pathname) ?? 0) + 1);
    if (req.method === 'POST' && url.pathname === '/oauth2/token') {
      const form = new URLSearchParams(await this.body(req));
      this.refreshCalls++;
      const given = form.get('refresh_token') ?? '';
      const store = [...this.stores.values()].find((s) => s.refreshToken === given || s.used.has(given));
      if (!store || form.get('grant_type') !== 'refresh_token' || !form.get('client_secret')) {
        return this.json(res, 400, { error: 'invalid_grant' });
      }
      if (store.used.has(given)) {
        // a refresh token sent twice: the whole chain is revoked (the store must install again)
        store.revoked = true;
        return this.json(res, 400, { error: 'invalid_grant', error_description: 'refresh token reused' });
      }
      store.used.add(given);
      store.accessToken = token();
      store.refreshToken = token();
      store.expires = Math.floor(Date.now() / 1000) + 14 * 24 * 3600;
      return this.json(res, 200, {
        access_token: store.accessToken,
        refresh_token: store.refreshToken,
        expires: store.expires,
        token_type: 'bearer',
        scope: 'products.read offline_access',
      });
    }
    if (req.method === 'POST' && url.pathname === '/exchange-authority/v1/introspect') {
      let asked: { token?: unknown } = {};
      try {
        asked = JSON.parse(await this.body(req));
      } catch {
        // not JSON: no token
      }
      const known = typeof asked.token === 'string' ? this.dashboardTokens.get(asked.token) : undefined;
      if (this.introspectFailure)
        return this.json(res, this.introspectFailure, { status: this.introspectFailure, success: false });
      if (req.headers['s-source'] !== this.appId || !known || known.exp <= Date.now()) {
        return this.json(res, 401, {
          status: 401,
          success: false,
          error: { code: 'Unauthorized', message: 'invalid token' },
        });
      }
      return this.json(res, 200, {
        status: 200,
        success: true,
        data: { merchant_id: known.storeId, user_id: known.userId, exp: new Date(known.exp).toISOString() },
      });
    }
    const store = this.storeOf(req);
    if (!store) return this.json(res, 401, { status: 401, success: false, error: { code: 'Unauthorized' } });
    if (url.pathname === '/oauth2/user/info') {
      return this.json(res, 200, {
        status: 200,
        success: true,
        data: {
          id: store.userId,
          name: 'Owner',
          email: store.email,
          merchant: { id: store.id, username: `store-${store.id}`, name: store.name, domain: store.domain },
        },
      });
    }
    const one = /^\/admin\/v2\/products\/(\d+)$/.exec(url.pathname);
    if (one) {
      const p = store.products.get(Number(one[1]));
      if (!p) return this.json(res, 404, { status: 404, success: false, error: { code: 'NotFound' } });
      return this.json(res, 200, { status: 200, success: true, data: sallaProduct(p) });
    }
    if (url.pathname === '/admin/v2/brands') {
      const brands = new Map<number, string>();
      for (const p of store.products.values()) {
        const b = p.brand === null ? null : (p.brand ?? { id: 7, name: 'Lattafa' });
        if (b) brands.set(b.id, b.name);
      }
      const all = [...brands].map(([id, name]) => ({ id, name, logo: null, description: '' }));
      return this.json(res, 200, {
        status: 200,
        success: true,
        data: all,
        pagination: { count: all.length, total: all.length, perPage: 60, currentPage: 1, totalPages: 1 },
      });
    }
    if (url.pathname === '/admin/v2/products') {
      const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 15), 60);
      const page = Number(url.searchParams.get('page') ?? 1);
      const all = [...store.products.values()];
      const totalPages = Math.max(1, Math.ceil(all.length / perPage));
      return this.json(res, 200, {
        status: 200,
        success: true,
        data: all.slice((page - 1) * perPage, page * perPage).map(sallaProduct),
        pagination: { count: Math.min(perPage, all.length), total: all.length, perPage, currentPage: page, totalPages },
      });
    }
    return this.json(res, 404, { status: 404, success: false });
  }
}
