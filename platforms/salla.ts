/**
 * Salla's side of the app, as Salla publishes it (docs/platforms.md): the webhook envelope and its
 * signature, the tokens of "Easy Mode" (sent in the `app.store.authorize` webhook; refresh tokens
 * are single-use), and the store's identity. Pure: what is read from Salla's answers and how; the
 * calls and the storage are services/platforms.ts's.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
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

export type SallaTokens = PlatformTokens;
export type SallaStore = PlatformStore;
export type SallaOrder = PlatformOrder;

/** The events the service acts on; any other is acknowledged and dropped. */
export const SALLA_EVENTS = [
  'app.installed',
  'app.store.authorize',
  'app.updated',
  'app.uninstalled',
  'product.created',
  'product.updated',
  'product.available',
  'product.quantity.low',
  'product.deleted',
  'order.created',
] as const;
export type SallaEvent = (typeof SALLA_EVENTS)[number];

/** Events that need no install yet: they start one. */
export const INSTALL_EVENTS: ReadonlySet<string> = new Set(['app.installed', 'app.store.authorize']);

/** Whether `X-Salla-Signature` could be a signature (64 hex digits): one that cannot is refused before the body is read. */
export function sallaSignatureShaped(signature: unknown): signature is string {
  return typeof signature === 'string' && /^[0-9a-f]{64}$/i.test(signature.trim());
}

/**
 * `X-Salla-Signature`: the hex HMAC-SHA256 of the raw body with the app's webhook secret, compared
 * in constant time. Anything else (missing, not hex, another length) is false.
 */
export function sallaSignatureValid(raw: Buffer, signature: string | undefined, secret: string): boolean {
  if (!sallaSignatureShaped(signature)) return false;
  const expected = createHmac('sha256', secret).update(raw).digest();
  return timingSafeEqual(expected, Buffer.from(signature.trim(), 'hex'));
}

export interface SallaEnvelope {
  event: string;
  /** the store's id (Salla's numeric `merchant`), as text */
  storeId: string;
  data: Record<string, unknown>;
}

/** `{event, merchant, created_at, data}`, or why it is not one. */
export function sallaEnvelope(body: unknown): SallaEnvelope | string {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'the body is not a JSON object';
  const b = body as Record<string, unknown>;
  if (typeof b.event !== 'string' || b.event.length === 0 || b.event.length > 100) return 'the body has no event';
  const m = b.merchant;
  const storeId =
    typeof m === 'number' && Number.isSafeInteger(m) && m > 0 ? String(m) : typeof m === 'string' ? m : '';
  if (!/^[0-9]{1,20}$/.test(storeId)) return 'the body has no merchant (the store id)';
  const data =
    b.data && typeof b.data === 'object' && !Array.isArray(b.data) ? (b.data as Record<string, unknown>) : {};
  return { event: b.event, storeId, data };
}

/**
 * The tokens of an `app.store.authorize` webhook's data, or of a refresh's answer: `access_token`,
 * `refresh_token`, and `expires` (a Unix time) or `expires_in` (seconds from `now`).
 */
export function sallaTokens(data: unknown, now = Date.now()): SallaTokens | null {
  if (!data || typeof data !== 'object') return null;
  const d = data as Record<string, unknown>;
  const accessToken = tokenOf(d.access_token);
  const refreshToken = tokenOf(d.refresh_token);
  if (!accessToken || !refreshToken) return null;
  let expiresAt: Date;
  if (typeof d.expires === 'number' && Number.isFinite(d.expires) && d.expires > 0) {
    expiresAt = new Date(d.expires * 1000);
  } else if (typeof d.expires_in === 'number' && Number.isFinite(d.expires_in) && d.expires_in > 0) {
    expiresAt = new Date(now + d.expires_in * 1000);
  } else return null;
  return { accessToken, refreshToken, expiresAt, scope: typeof d.scope === 'string' ? d.scope.slice(0, 2000) : null };
}

/** `GET {accounts}/oauth2/user/info`'s user: under `data`, or at the top as Salla's own examples differ. */
const userInfo = (body: unknown): Record<string, unknown> => {
  const b = record(body);
  return b.data && typeof b.data === 'object' && !Array.isArray(b.data) ? record(b.data) : b;
};

/** `GET {accounts}/oauth2/user/info`: `merchant.{name, domain}`. */
export function sallaStore(body: unknown): SallaStore {
  const merchant = record(userInfo(body).merchant);
  const name = typeof merchant.name === 'string' && merchant.name.trim() ? merchant.name.trim().slice(0, 200) : null;
  return {
    name,
    origin: typeof merchant.domain === 'string' && merchant.domain.includes('://') ? originOf(merchant.domain) : null,
  };
}

/**
 * `GET {accounts}/oauth2/user/info`: the store's user who authorized the app (the store's owner
 * account here): their Salla user id and email, lower-cased. The email is null unless it is plain
 * ASCII that looks like an address: lower-casing some other characters (the Kelvin sign) gives a
 * letter of another address, which would claim another person's account.
 */
export function sallaInstaller(body: unknown): { userId: string | null; email: string | null } {
  const info = userInfo(body);
  const userId = sallaProductId({ id: info.id });
  const raw = typeof info.email === 'string' ? info.email.trim() : '';
  const email =
    raw.length <= 320 && /^[\x21-\x7e]+@[\x21-\x7e]+$/.test(raw) && raw.indexOf('@') === raw.lastIndexOf('@')
      ? raw.toLowerCase()
      : null;
  return { userId, email };
}

/** What Salla's introspection says of a dashboard page's token. */
export interface SallaDashboardToken {
  /** the store (`merchant_id`, or `store_id` as Salla's API reference names it), as text */
  storeId: string;
  /** the dashboard user who opened the page */
  userId: string | null;
  /** when the token expires (its `exp`), in milliseconds */
  expiresAt: number;
}

/**
 * Whether a dashboard page's `token` could be one of Salla's, before Salla is asked: 16 to 4,096
 * characters of what a token is written with (letters, digits, `-._~+/=`, as an `em_tok_…` token,
 * a JWT or base64 is). Salla documents no more of its shape; anything else is refused for free.
 */
export const sallaDashboardTokenShaped = (token: string): boolean => /^[A-Za-z0-9._~+/=-]{16,4096}$/.test(token);

/** An `exp` in Unix seconds or milliseconds, or an ISO time: milliseconds, or NaN. */
const expiryOf = (exp: unknown): number =>
  typeof exp === 'number' ? (exp > 1e11 ? exp : exp * 1000) : typeof exp === 'string' ? Date.parse(exp) : Number.NaN;

/**
 * `POST /exchange-authority/v1/introspect`'s answer, `{status, success, data: {merchant_id,
 * user_id, exp}}` (Salla's API reference names the store `store_id` and adds `app_id`): the store
 * whose dashboard opened the app's page, or null when the token is not good — not a success, no
 * store, another app's (`app_id` other than `appId`), or without an expiry still ahead at `now`.
 */
export function sallaIntrospection(body: unknown, appId: string, now = Date.now()): SallaDashboardToken | null {
  const b = record(body);
  if (b.success !== true) return null;
  const d = record(b.data);
  const storeId = sallaProductId({ id: d.merchant_id ?? d.store_id });
  if (!storeId) return null;
  if (d.app_id !== undefined && d.app_id !== null && String(d.app_id) !== appId) return null;
  const exp = expiryOf(d.exp);
  if (!Number.isFinite(exp) || exp <= now) return null;
  return { storeId, userId: sallaProductId({ id: d.user_id }), expiresAt: exp };
}

/** The product id a product webhook is about (`data.id`), as text, or null. */
export function sallaProductId(data: Record<string, unknown>): string | null {
  const id = data.id;
  if (typeof id === 'number' && Number.isSafeInteger(id) && id > 0) return String(id);
  if (typeof id === 'string' && /^[0-9]{1,20}$/.test(id)) return id;
  return null;
}

/**
 * An `order.created` webhook's order, as a purchase: its id, `amounts.total`, the currency and each
 * line's product (`product.id`, else `product_id`), quantity and unit price (`amounts.price`, else
 * the line's total over its quantity). Null when it has no id or no total. The line shapes are read
 * defensively: Salla's examples do not settle them (docs/platforms.md, "Check on a demo store").
 */
export function sallaOrder(data: Record<string, unknown>, fallbackDate: Date): SallaOrder | null {
  const id = sallaProductId(data);
  const amounts = record(data.amounts);
  const total = amountOf(amounts.total) ?? amountOf(data.total);
  if (!id || total === null) return null;
  const totalObj = amounts.total as { currency?: unknown } | undefined;
  const currency = currencyCode(typeof totalObj?.currency === 'string' ? totalObj.currency : data.currency);
  const items: SallaOrder['items'] = [];
  for (const raw of Array.isArray(data.items) ? data.items.slice(0, MAX_ORDER_ITEMS) : []) {
    if (!raw || typeof raw !== 'object') continue;
    const line = raw as Record<string, unknown>;
    const product = (line.product ?? {}) as Record<string, unknown>;
    const productId = sallaProductId({ id: product.id ?? line.product_id });
    const quantity = typeof line.quantity === 'number' && Number.isInteger(line.quantity) ? line.quantity : 1;
    if (!productId || quantity < 1) continue;
    const lineAmounts = (line.amounts ?? {}) as Record<string, unknown>;
    const lineTotal = amountOf(lineAmounts.total);
    const price =
      amountOf(lineAmounts.price) ?? amountOf(line.price) ?? (lineTotal === null ? 0 : lineTotal / quantity);
    items.push({ merchant_product_id: productId, quantity, price });
  }
  const when = (data.date ?? {}) as { date?: unknown; timezone?: unknown };
  const parsed =
    typeof when.date === 'string'
      ? localTime(when.date, typeof when.timezone === 'string' ? when.timezone : RIYADH)
      : null;
  return { orderId: id, total, currency, items, occurredAt: parsed ?? fallbackDate };
}

/** At most this many pages of a store's brands are read (60 a page). */
export const MAX_BRAND_PAGES = 20;

/**
 * One page of `GET /brands`: each brand's name by its id, and whether another page follows
 * (`pagination.currentPage < totalPages`). The shape is Salla's list envelope, as its products'.
 */
export function sallaBrands(body: unknown): { names: Record<string, string>; more: boolean } {
  const b = (body ?? {}) as { data?: unknown; pagination?: { currentPage?: unknown; totalPages?: unknown } };
  const names: Record<string, string> = {};
  for (const raw of Array.isArray(b.data) ? b.data.slice(0, 100) : []) {
    const brand = (raw ?? {}) as { id?: unknown; name?: unknown };
    const id = sallaProductId({ id: brand.id });
    const name = typeof brand.name === 'string' ? brand.name.trim().slice(0, 200) : '';
    if (id && name) names[id] = name;
  }
  const current = Number(b.pagination?.currentPage);
  const total = Number(b.pagination?.totalPages);
  return { names, more: Number.isInteger(current) && Number.isInteger(total) && current < total };
}
