/**
 * Zid's side of the app, as Zid publishes it (docs/platforms.md): the OAuth code flow's two tokens
 * (`access_token`, sent as `X-Manager-Token`, and `authorization`, sent as the bearer), the store's
 * identity from the manager's profile, the store webhooks the app subscribes to (Zid signs none: each
 * subscription's URL carries a secret of the store's), the orders they carry, and the App Market's
 * install and uninstall notices (unsigned too: an uninstall is believed only once Zid refuses the
 * store's tokens). Pure: what is read from Zid's answers and how; the calls are the plugin's.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  amountOf,
  currencyCode,
  localTime,
  MAX_ORDER_ITEMS,
  originOf,
  type PlatformOrder,
  type PlatformStore,
  type PlatformTokens,
  RIYADH,
  record,
  tokenOf,
} from './common.ts';

/** The store webhooks the app subscribes each store to (one subscription per event). */
export const ZID_STORE_EVENTS = [
  'product.create',
  'product.update',
  'product.publish',
  'product.delete',
  'order.create',
  'order.payment_status.update',
] as const;
export type ZidStoreEvent = (typeof ZID_STORE_EVENTS)[number];
const STORE_EVENTS: ReadonlySet<string> = new Set(ZID_STORE_EVENTS);

export const isZidStoreEvent = (e: unknown): e is ZidStoreEvent => typeof e === 'string' && STORE_EVENTS.has(e);

/** Zid's tokens last about a year (some grants three): they are refreshed this long before they end. */
export const ZID_REFRESH_AHEAD_MS = 60 * 24 * 3600 * 1000;

/**
 * The answer of `POST {oauth}/oauth/token` (a code or a refresh): `access_token`, `authorization`
 * (Zid's docs also spell it `Authorization`), `refresh_token`, `expires_in` in seconds. Null unless
 * all four are there.
 */
export function zidTokens(answer: unknown, now = Date.now()): PlatformTokens | null {
  const a = record(answer);
  const accessToken = tokenOf(a.access_token);
  const authorization = tokenOf(a.authorization) ?? tokenOf(a.Authorization);
  const refreshToken = tokenOf(a.refresh_token);
  const seconds = typeof a.expires_in === 'string' ? Number(a.expires_in) : a.expires_in;
  if (!accessToken || !authorization || !refreshToken) return null;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0 || seconds > 20 * 365 * 86400) {
    return null;
  }
  return {
    accessToken,
    authorization,
    refreshToken,
    expiresAt: new Date(now + seconds * 1000),
    scope: typeof a.scope === 'string' ? a.scope.slice(0, 2000) : null,
  };
}

/** A store id as Zid writes it (a number, or digits), as text; null otherwise. */
export function zidStoreId(v: unknown): string | null {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return String(v);
  if (typeof v === 'string' && /^[0-9]{1,20}$/.test(v.trim())) return v.trim();
  return null;
}

export interface ZidProfile extends PlatformStore {
  storeId: string;
  /** the manager's email: the console account they land in */
  email: string | null;
}

/**
 * `GET {api}/managers/account/profile`: the store under `user.store` (`id`, `title` else
 * `username`, `url`), the manager's `user.email`. Null without a store id.
 */
export function zidProfile(body: unknown): ZidProfile | null {
  const user = record(record(body).user);
  const store = Object.keys(record(user.store)).length ? record(user.store) : record(record(body).store);
  const storeId = zidStoreId(store.id);
  if (!storeId) return null;
  const title = [store.title, store.name, store.username].find((v) => typeof v === 'string' && v.trim());
  const email = typeof user.email === 'string' && user.email.length <= 320 ? user.email.trim() : null;
  return {
    storeId,
    name: typeof title === 'string' ? title.trim().slice(0, 200) : null,
    origin: originOf(store.url) ?? originOf(store.domain),
    email: email || null,
  };
}

/** A Zid product id: a UUID (or, read defensively, digits), lower-cased; null otherwise. */
export function zidProductId(v: unknown): string | null {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return String(v);
  if (typeof v !== 'string') return null;
  const s = v.trim().toLowerCase();
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(s) || /^[0-9]{1,20}$/.test(s) ? s : null;
}

/**
 * The product a product webhook is about: the Product object's `id` (its `parent_id` when it is a
 * variant: products are stored by their parent), read also from a `data` or `product` wrapper,
 * since Zid's envelope is not settled (docs/platforms.md, "Check on a demo store").
 */
export function zidWebhookProduct(body: unknown): string | null {
  const b = record(body);
  for (const p of [b, record(b.data), record(b.product)]) {
    const id = zidProductId(p.parent_id) ?? zidProductId(p.id) ?? zidProductId(p.product_id);
    if (id) return id;
  }
  return null;
}

/** Order statuses that are no sale: such an order is not recorded as a purchase. */
const NO_SALE: ReadonlySet<string> = new Set([
  'failed',
  'canceled',
  'cancelled',
  'denied',
  'voided',
  'expired',
  'reversed',
  'refunded',
  'chargeback',
]);

/**
 * An order webhook's Order object (bare, or in `data` / `order`) as a purchase: `id`,
 * `order_total`, `currency_code`, each line of `products[]` by its parent product (`parent_id`,
 * else `product_id`, else `id`), and `created_at` in Riyadh time. Null without an id or a total,
 * and for an order whose status is no sale (cancelled, failed, refunded…).
 */
export function zidOrder(body: unknown, fallbackDate: Date): PlatformOrder | null {
  const b = record(body);
  const o = [b, record(b.data), record(b.order)].find((x) => x.id !== undefined && x.order_total !== undefined);
  if (!o) return null;
  const id = zidStoreId(o.id);
  const total = amountOf(o.order_total);
  if (!id || total === null) return null;
  const status = record(o.order_status).code ?? o.order_status;
  if (typeof status === 'string' && NO_SALE.has(status.toLowerCase())) return null;
  const items: PlatformOrder['items'] = [];
  for (const raw of Array.isArray(o.products) ? o.products.slice(0, MAX_ORDER_ITEMS) : []) {
    const line = record(raw);
    const productId = zidProductId(line.parent_id) ?? zidProductId(line.product_id) ?? zidProductId(line.id);
    const q = typeof line.quantity === 'string' ? Number(line.quantity) : line.quantity;
    const quantity = typeof q === 'number' && Number.isInteger(q) ? q : 1;
    if (!productId || quantity < 1) continue;
    const lineTotal = amountOf(line.total);
    const price = amountOf(line.price) ?? (lineTotal === null ? 0 : lineTotal / quantity);
    items.push({ merchant_product_id: productId, quantity, price });
  }
  const created = typeof o.created_at === 'string' ? localTime(o.created_at, RIYADH) : null;
  return {
    orderId: id,
    total,
    currency: currencyCode(o.currency_code ?? o.currency),
    items,
    occurredAt: created ?? fallbackDate,
  };
}

/** The App Market's notices the service acts on; any other is acknowledged and dropped. */
export const ZID_UNINSTALL = 'app.market.application.uninstall';

/** An App Market notice `{event_name, store_id, …}`, or why it is not one. */
export function zidAppEvent(body: unknown): { event: string; storeId: string } | string {
  const b = record(body);
  if (typeof b.event_name !== 'string' || !b.event_name || b.event_name.length > 100)
    return 'the body has no event_name';
  const storeId = zidStoreId(b.store_id);
  if (!storeId) return 'the body has no store_id';
  return { event: b.event_name, storeId };
}

/** Whether the secret a webhook's URL carries is the store's, compared in constant time. */
export function zidSecretValid(given: unknown, expected: string | null): boolean {
  if (typeof given !== 'string' || !expected || given.length > 200) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Where Zid posts a store's webhooks of one event: the store, the event and the store's secret in the URL. */
export function zidWebhookUrl(baseUrl: string, storeId: string, event: ZidStoreEvent, secret: string): string {
  const u = new URL(`${baseUrl.replace(/\/+$/, '')}/api/platforms/zid/webhooks/${storeId}`);
  u.searchParams.set('event', event);
  u.searchParams.set('token', secret);
  return u.toString();
}

/** The `original_id` of every subscription the app makes: Zid deletes a store's subscriptions by it. */
export const ZID_SUBSCRIPTION_ID = 7100;
/** The `subscriber` the app's subscriptions are made under. */
export const ZID_SUBSCRIBER = 'sillage';
