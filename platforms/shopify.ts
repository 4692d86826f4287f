/**
 * Shopify's side of the app, as Shopify publishes it (docs/platforms.md): a shop named by its
 * myshopify.com domain, the OAuth authorization-code grant (its redirects signed with a hex HMAC of
 * the query, its offline token that does not expire), webhooks signed with a base64 HMAC of the
 * raw body, the orders they carry, the privacy (compliance) webhooks every public app must answer,
 * and the Admin GraphQL API's answers (the shop, a product, its cost-based throttle). Pure: what
 * is read from Shopify and how; the calls are the plugin's (plugins/app/shopify.ts).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  amountOf,
  currencyCode,
  MAX_ORDER_ITEMS,
  originOf,
  type PlatformOrder,
  type PlatformStore,
  type PlatformTokens,
  record,
  tokenOf,
} from './common.ts';

/** The Admin API version every call names (a stable version is supported for at least a year). */
export const SHOPIFY_API_VERSION = '2025-10';

/** What the app asks a shop for: its products and orders read, its web pixel written and its customer events read. */
export const SHOPIFY_SCOPES = ['read_products', 'read_orders', 'write_pixels', 'read_customer_events'] as const;

/** The webhooks the app subscribes each shop to: the header's topic → GraphQL's enum. */
export const SHOPIFY_TOPICS = {
  'products/create': 'PRODUCTS_CREATE',
  'products/update': 'PRODUCTS_UPDATE',
  'products/delete': 'PRODUCTS_DELETE',
  'orders/create': 'ORDERS_CREATE',
  'app/uninstalled': 'APP_UNINSTALLED',
} as const;
export type ShopifyTopic = keyof typeof SHOPIFY_TOPICS;

/** The privacy webhooks every public app receives (set in the app's configuration, not per shop). */
export const SHOPIFY_COMPLIANCE_TOPICS = ['customers/data_request', 'customers/redact', 'shop/redact'] as const;
export type ShopifyComplianceTopic = (typeof SHOPIFY_COMPLIANCE_TOPICS)[number];

const TOPICS: ReadonlySet<string> = new Set([...Object.keys(SHOPIFY_TOPICS), ...SHOPIFY_COMPLIANCE_TOPICS]);
export const isShopifyTopic = (t: unknown): t is ShopifyTopic | ShopifyComplianceTopic =>
  typeof t === 'string' && TOPICS.has(t);

/** The theme app extension's app embed block (apps/shopify/extensions/sillage-quiz/blocks/sillage-quiz.liquid). */
export const SHOPIFY_EMBED_HANDLE = 'sillage-quiz';
/** The app-owned metafield the embed block reads: the address of the shop's storefront script. */
export const SHOPIFY_METAFIELD = { namespace: 'sillage', key: 'script_url' } as const;

/**
 * A shop's handle from its myshopify.com domain ("sillage-demo.myshopify.com" → "sillage-demo"),
 * lower-cased; null for anything else (another host, a path, a port): a shop parameter never
 * names a host of the sender's choosing.
 */
export function shopHandle(v: unknown): string | null {
  if (typeof v !== 'string' || v.length > 100) return null;
  const m = /^([a-z0-9](?:[a-z0-9-]{0,58}[a-z0-9])?)\.myshopify\.com$/.exec(v.trim().toLowerCase());
  return m ? (m[1] as string) : null;
}

/** A handle's myshopify.com domain. */
export const shopDomain = (handle: string) => `${handle}.myshopify.com`;

/** The shop's address on `template` (`https://{shop}`, SHOPIFY_SHOP_URL). */
export const shopBase = (template: string, handle: string) => template.replace('{shop}', shopDomain(handle));

const hmac = (secret: string, data: string | Buffer) => createHmac('sha256', secret).update(data);

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The message a signed query's HMAC is over: every parameter but `hmac` and `signature`, sorted
 * by name and written as a query string (names and values URL-encoded, as Shopify's libraries
 * write it): a value holding `&` or `=` cannot pass for another parameter.
 */
function queryMessage(query: Record<string, string>): string {
  const sorted = Object.keys(query)
    .filter((k) => k !== 'hmac' && k !== 'signature')
    .sort()
    .map((k): [string, string] => [k, query[k] as string]);
  return new URLSearchParams(sorted).toString();
}

/**
 * Whether a redirect from Shopify (the app's URL opened from the admin, the OAuth callback) is
 * Shopify's: `hmac` is the hex HMAC-SHA256, with the app's secret, of the other parameters
 * (queryMessage). Compared in constant time.
 */
export function queryHmacValid(query: Record<string, string>, secret: string): boolean {
  const given = query.hmac;
  if (typeof given !== 'string' || !/^[0-9a-f]{64}$/i.test(given)) return false;
  return sameBytes(hmac(secret, queryMessage(query)).digest(), Buffer.from(given, 'hex'));
}

/** The `hmac` a query would carry (the simulator's and the tests' side of queryHmacValid). */
export function signQuery(query: Record<string, string>, secret: string): string {
  return hmac(secret, queryMessage(query)).digest('hex');
}

/** A redirect older than this (its `timestamp`, in seconds) is refused: a link copied from a log cannot be replayed later. */
export const QUERY_MAX_AGE_S = 24 * 3600;

/** Whether a signed redirect's `timestamp` is within QUERY_MAX_AGE_S of `now` (either way). */
export function queryFresh(timestamp: unknown, now = Date.now()): boolean {
  const t = typeof timestamp === 'string' && /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : Number.NaN;
  return Number.isFinite(t) && Math.abs(now / 1000 - t) <= QUERY_MAX_AGE_S;
}

/** Whether `X-Shopify-Hmac-Sha256` could be a signature (base64): one that cannot is refused before the body is read. */
export function webhookHmacShaped(header: unknown): header is string {
  return typeof header === 'string' && header.length <= 100 && /^[A-Za-z0-9+/]+={0,2}$/.test(header);
}

/** Whether `X-Shopify-Hmac-Sha256` is the base64 HMAC-SHA256 of the raw body with the app's secret. */
export function webhookHmacValid(raw: unknown, header: unknown, secret: string): boolean {
  if (!Buffer.isBuffer(raw) || !webhookHmacShaped(header)) return false;
  return sameBytes(hmac(secret, raw).digest(), Buffer.from(header, 'base64'));
}

/** The header a webhook body would carry (the simulator's side of webhookHmacValid). */
export const signWebhook = (raw: Buffer | string, secret: string) => hmac(secret, raw).digest('base64');

/**
 * `POST /admin/oauth/access_token`'s answer: an offline `access_token` and its `scope`. It does
 * not expire and there is nothing to refresh it with; it stops working when the shop uninstalls.
 */
export function shopifyTokens(answer: unknown): PlatformTokens | null {
  const a = record(answer);
  const accessToken = tokenOf(a.access_token);
  if (!accessToken) return null;
  return {
    accessToken,
    refreshToken: null,
    expiresAt: null,
    scope: typeof a.scope === 'string' ? a.scope.slice(0, 2000) : null,
  };
}

/** Whether the scopes a token was granted (`read_products,write_pixels,…`) hold all the app needs. */
export function scopesGranted(scope: string | null): boolean {
  const granted = new Set((scope ?? '').split(',').map((s) => s.trim()));
  // a write scope implies its read scope
  for (const s of [...granted]) if (s.startsWith('write_')) granted.add(`read_${s.slice(6)}`);
  return SHOPIFY_SCOPES.every((s) => granted.has(s));
}

export interface ShopifyShop extends PlatformStore {
  /** the shop owner's email: the console account they land in */
  email: string | null;
  /** the shop's currency (its prices are in it) */
  currency: string;
}

/**
 * The `shop` query's answer (`data.shop`: `name`, `email`, `currencyCode`, `primaryDomain.url`);
 * null when it has no shop.
 */
export function shopifyShop(body: unknown): ShopifyShop | null {
  const shop = record(record(record(body).data).shop);
  if (!Object.keys(shop).length) return null;
  const email = typeof shop.email === 'string' && shop.email.length <= 320 ? shop.email.trim() : '';
  return {
    name: typeof shop.name === 'string' && shop.name.trim() ? shop.name.trim().slice(0, 200) : null,
    origin: originOf(record(shop.primaryDomain).url),
    email: email || null,
    currency: currencyCode(shop.currencyCode),
  };
}

/**
 * A numeric Shopify id from a number, digits or a GID (`gid://shopify/Product/123`), as text;
 * null otherwise. Products, orders and lines are stored by it.
 */
export function shopifyId(v: unknown): string | null {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return String(v);
  if (typeof v !== 'string') return null;
  const m = /^(?:gid:\/\/shopify\/[A-Za-z]+\/)?([0-9]{1,20})$/.exec(v.trim());
  return m ? (m[1] as string) : null;
}

/** The product a product webhook names (`admin_graphql_api_id`, else `id`). */
export const shopifyWebhookProduct = (body: unknown): string | null =>
  shopifyId(record(body).admin_graphql_api_id) ?? shopifyId(record(body).id);

/**
 * The order an `orders/create` body is about: `admin_graphql_api_id` (the GID first: an id past
 * 2^53 is not exact once JSON.parse has made it a number), else `id`. Part of the signed body, and
 * unique across shops: a delivery is recognised by it, not by the unsigned `X-Shopify-Webhook-Id`.
 */
export const shopifyWebhookOrder = (body: unknown): string | null =>
  shopifyId(record(body).admin_graphql_api_id) ?? shopifyId(record(body).id);

/**
 * How old (its `created_at`) an `orders/create` body may be when it arrives. Shopify tries a
 * delivery again for 4 hours with the payload as first sent, and says to judge a payload stale by
 * its own timestamp; a body older than a day is a copy sent again, not Shopify. Well under
 * WEBHOOK_KEEP_DAYS (services/platforms.ts): whenever a copy of a body can still be taken, its
 * order's first delivery is still on record, so the copy is a duplicate.
 */
export const ORDER_WEBHOOK_MAX_AGE_MS = 24 * 3600_000;
/** How far ahead of this service's clock an order may be dated (clocks apart). */
export const ORDER_WEBHOOK_AHEAD_MS = 3600_000;

/** Whether an `orders/create` body's `created_at` is within ORDER_WEBHOOK_MAX_AGE_MS before `now` (and at most ORDER_WEBHOOK_AHEAD_MS after). */
export function orderWebhookFresh(body: unknown, now = Date.now()): boolean {
  const created = record(body).created_at;
  const at = typeof created === 'string' ? Date.parse(created) : Number.NaN;
  return at >= now - ORDER_WEBHOOK_MAX_AGE_MS && at <= now + ORDER_WEBHOOK_AHEAD_MS;
}

/** The order query that tells whether an order is the shop's: Shopify answers `order: null` for another shop's. */
export const ORDER_QUERY = 'query SillageOrder($id: ID!) { order(id: $id) { id } }';

/**
 * Whether the ORDER_QUERY's answer, asked with a shop's token, names `orderId` (the order is that
 * shop's); null when the answer says nothing of the order (an error, no `data.order`).
 */
export function orderOfShop(answer: unknown, orderId: string): boolean | null {
  const data = record(record(answer).data);
  if (!('order' in data)) return null;
  return shopifyId(record(data.order).id) === orderId;
}

/** Financial statuses that are no sale: such an order is not recorded. */
const NO_SALE: ReadonlySet<string> = new Set(['voided', 'refunded', 'expired']);

/**
 * An `orders/create` webhook's order as a purchase: `admin_graphql_api_id` (else `id`), `total_price` in `currency` (the shop's),
 * each line by its `product_id`, `created_at`. Null without an id or a total, for a cancelled or
 * voided order, and for a test order (`test: true`, the bogus gateway a merchant tries checkout
 * with): it is no sale.
 */
export function shopifyOrder(body: unknown, fallbackDate: Date): PlatformOrder | null {
  const o = record(body);
  const id = shopifyWebhookOrder(o);
  const total = amountOf(o.total_price ?? o.current_total_price);
  if (!id || total === null || o.test === true || o.cancelled_at) return null;
  if (typeof o.financial_status === 'string' && NO_SALE.has(o.financial_status)) return null;
  const items: PlatformOrder['items'] = [];
  for (const raw of Array.isArray(o.line_items) ? o.line_items.slice(0, MAX_ORDER_ITEMS) : []) {
    const line = record(raw);
    const productId = shopifyId(line.product_id);
    const quantity = typeof line.quantity === 'number' && Number.isInteger(line.quantity) ? line.quantity : 1;
    if (!productId || quantity < 1) continue;
    items.push({ merchant_product_id: productId, quantity, price: amountOf(line.price) ?? 0 });
  }
  const created = typeof o.created_at === 'string' ? new Date(o.created_at) : null;
  return {
    orderId: id,
    total,
    currency: currencyCode(o.currency),
    items,
    occurredAt: created && !Number.isNaN(created.getTime()) ? created : fallbackDate,
  };
}

/**
 * A privacy request (`customers/redact`, `customers/data_request`): the shop it is about
 * (`shop_domain`, which must be the shop its header names), the customer's email and phone (their
 * leads are erased) and every order to redact (their purchases are deleted; the 1 MB body bounds
 * the list).
 */
export function shopifyRedaction(body: unknown): { email: string | null; phone: string | null; orders: string[] } {
  const b = record(body);
  const customer = record(b.customer);
  const text = (v: unknown, max: number) => (typeof v === 'string' && v.trim() && v.length <= max ? v.trim() : null);
  const orders = Array.isArray(b.orders_to_redact)
    ? b.orders_to_redact.map(shopifyId).filter((x): x is string => !!x)
    : [];
  return { email: text(customer.email, 320), phone: text(customer.phone, 40), orders };
}

/** The deep link that opens the shop's theme editor with the app's embed block ready to switch on. */
export function activationLink(handle: string, clientId: string): string {
  const u = new URL(`https://${shopDomain(handle)}/admin/themes/current/editor`);
  u.searchParams.set('context', 'apps');
  u.searchParams.set('activateAppId', `${clientId}/${SHOPIFY_EMBED_HANDLE}`);
  return u.toString();
}

/** Where the shop's OAuth consent screen is, for `template` (SHOPIFY_SHOP_URL). */
export function authorizeUrl(
  template: string,
  handle: string,
  o: { clientId: string; redirectUri: string; state: string },
): string {
  const u = new URL(`${shopBase(template, handle)}/admin/oauth/authorize`);
  u.searchParams.set('client_id', o.clientId);
  u.searchParams.set('scope', SHOPIFY_SCOPES.join(','));
  u.searchParams.set('redirect_uri', o.redirectUri);
  u.searchParams.set('state', o.state);
  return u.toString();
}

/** A GraphQL answer's throttle: what the bucket holds now, how fast it refills, and what the query asked for. */
export interface ShopifyThrottle {
  available: number;
  restoreRate: number;
  requested: number;
  /** the query was refused for want of points (`THROTTLED`) */
  throttled: boolean;
}

/**
 * The cost block of a GraphQL answer (`extensions.cost`: `requestedQueryCost`,
 * `throttleStatus.{currentlyAvailable, restoreRate}`) and whether it was THROTTLED; null when the
 * answer has no cost block.
 */
export function shopifyThrottle(body: unknown): ShopifyThrottle | null {
  const b = record(body);
  const cost = record(record(b.extensions).cost);
  const status = record(cost.throttleStatus);
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null);
  const available = n(status.currentlyAvailable);
  const restoreRate = n(status.restoreRate);
  if (available === null || !restoreRate) return null;
  const errors = Array.isArray(b.errors) ? b.errors : [];
  const throttled = errors.some((e) => record(record(e).extensions).code === 'THROTTLED');
  return { available, restoreRate, requested: n(cost.requestedQueryCost) ?? 0, throttled };
}

/** How long to wait before a query of `cost` points, by the last answer's throttle (never more than `maxMs`). */
export function throttleWaitMs(t: ShopifyThrottle | null, cost: number, maxMs = 30_000): number {
  if (!t) return 0;
  const need = Math.max(0, cost - t.available);
  return Math.min(maxMs, Math.ceil((need / t.restoreRate) * 1000));
}

/** The GraphQL `userErrors` of a mutation's answer, as one text; null when there are none. */
export function userErrors(body: unknown, mutation: string): string | null {
  const b = record(body);
  const top = Array.isArray(b.errors) ? b.errors.map((e) => String(record(e).message ?? e)) : [];
  const user = record(record(b.data)[mutation]).userErrors;
  const listed = Array.isArray(user) ? user.map((e) => String(record(e).message ?? e)) : [];
  const all = [...top, ...listed];
  return all.length ? all.join('; ').slice(0, 300) : null;
}

/**
 * The shop a signed body says it is about, for the topics whose body names one: the privacy
 * requests (`shop_domain`), the uninstall (the Shop object's `myshopify_domain`) and an order whose
 * `order_status_url` is on the shop's myshopify.com domain (on the shop's own domain it names no
 * handle: undefined, and the order is asked of the shop instead); undefined for topics whose body
 * does not. The signature covers the body, not the headers: a body replayed under another shop's
 * header is refused when the two differ.
 */
export function bodyShop(topic: string, body: unknown): string | null | undefined {
  const b = record(body);
  if ((SHOPIFY_COMPLIANCE_TOPICS as readonly string[]).includes(topic)) return shopHandle(b.shop_domain);
  if (topic === 'app/uninstalled') return shopHandle(b.myshopify_domain);
  if (topic === 'orders/create') return shopHandle(hostOf(b.order_status_url)) ?? undefined;
  return undefined;
}

/** A URL's host name, or null. */
function hostOf(url: unknown): string | null {
  if (typeof url !== 'string') return null;
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}
