/**
 * Salla's side of the app, as Salla publishes it (docs/platforms.md): the webhook envelope and its
 * signature, the tokens of "Easy Mode" (sent in the `app.store.authorize` webhook; refresh tokens
 * are single-use), and the store's identity. Pure: what is read from Salla's answers and how; the
 * calls and the storage are services/platforms.ts's.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

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

/**
 * `X-Salla-Signature`: the hex HMAC-SHA256 of the raw body with the app's webhook secret, compared
 * in constant time. Anything else (missing, not hex, another length) is false.
 */
export function sallaSignatureValid(raw: Buffer, signature: string | undefined, secret: string): boolean {
  if (typeof signature !== 'string' || !/^[0-9a-f]{64}$/i.test(signature.trim())) return false;
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

export interface SallaTokens {
  accessToken: string;
  refreshToken: string;
  expiresAt: Date;
  scope: string | null;
}

/**
 * The tokens of an `app.store.authorize` webhook's data, or of a refresh's answer: `access_token`,
 * `refresh_token`, and `expires` (a Unix time) or `expires_in` (seconds from `now`).
 */
export function sallaTokens(data: unknown, now = Date.now()): SallaTokens | null {
  if (!data || typeof data !== 'object') return null;
  const d = data as Record<string, unknown>;
  const token = (v: unknown) => (typeof v === 'string' && v.length > 0 && v.length <= 4096 ? v : null);
  const accessToken = token(d.access_token);
  const refreshToken = token(d.refresh_token);
  if (!accessToken || !refreshToken) return null;
  let expiresAt: Date;
  if (typeof d.expires === 'number' && Number.isFinite(d.expires) && d.expires > 0) {
    expiresAt = new Date(d.expires * 1000);
  } else if (typeof d.expires_in === 'number' && Number.isFinite(d.expires_in) && d.expires_in > 0) {
    expiresAt = new Date(now + d.expires_in * 1000);
  } else return null;
  return { accessToken, refreshToken, expiresAt, scope: typeof d.scope === 'string' ? d.scope.slice(0, 2000) : null };
}

/** How long before its expiry an access token is refreshed. */
export const REFRESH_AHEAD_MS = 24 * 3600 * 1000;

/** Whether a token expiring at `expiresAt` is to be refreshed before use at `now`. */
export function needsRefresh(expiresAt: Date | null, now = Date.now()): boolean {
  return expiresAt === null || expiresAt.getTime() - now < REFRESH_AHEAD_MS;
}

export interface SallaStore {
  name: string | null;
  /** the storefront's origin, when Salla says where it is */
  origin: string | null;
}

/** `GET {accounts}/oauth2/user/info`: `data.merchant.{name, domain}`. */
export function sallaStore(body: unknown): SallaStore {
  const data = (body as { data?: { merchant?: Record<string, unknown> } } | null)?.data;
  const merchant = data?.merchant ?? {};
  const name = typeof merchant.name === 'string' && merchant.name.trim() ? merchant.name.trim().slice(0, 200) : null;
  let origin: string | null = null;
  if (typeof merchant.domain === 'string') {
    try {
      const u = new URL(merchant.domain);
      if (u.protocol === 'https:' || u.protocol === 'http:') origin = u.origin;
    } catch {
      origin = null;
    }
  }
  return { name, origin };
}

/** The product id a product webhook is about (`data.id`), as text, or null. */
export function sallaProductId(data: Record<string, unknown>): string | null {
  const id = data.id;
  if (typeof id === 'number' && Number.isSafeInteger(id) && id > 0) return String(id);
  if (typeof id === 'string' && /^[0-9]{1,20}$/.test(id)) return id;
  return null;
}

export interface SallaOrder {
  orderId: string;
  total: number;
  currency: string;
  items: { merchant_product_id: string; quantity: number; price: number }[];
  occurredAt: Date;
}

/** A money value as Salla writes it: `{amount, currency}`, a number or digits. */
function amountOf(v: unknown): number | null {
  const raw = v && typeof v === 'object' ? (v as { amount?: unknown }).amount : v;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
  return Number.isFinite(n) && n >= 0 && n <= 1e9 ? n : null;
}

/** How many lines of an order are read (an order with more is read up to here). */
export const MAX_ORDER_ITEMS = 200;

/**
 * An `order.created` webhook's order, as a purchase: its id, `amounts.total`, the currency and each
 * line's product (`product.id`, else `product_id`), quantity and unit price (`amounts.price`, else
 * the line's total over its quantity). Null when it has no id or no total. The line shapes are read
 * defensively: Salla's examples do not settle them (docs/platforms.md, "Check on a demo store").
 */
export function sallaOrder(data: Record<string, unknown>, fallbackDate: Date): SallaOrder | null {
  const id = sallaProductId(data);
  const amounts = (data.amounts ?? {}) as Record<string, unknown>;
  const total = amountOf(amounts.total) ?? amountOf(data.total);
  if (!id || total === null) return null;
  const totalObj = amounts.total as { currency?: unknown } | undefined;
  const code = typeof totalObj?.currency === 'string' ? totalObj.currency : data.currency;
  const currency = typeof code === 'string' && /^[A-Za-z]{3}$/.test(code) ? code.toUpperCase() : 'SAR';
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
      ? localTime(when.date, typeof when.timezone === 'string' ? when.timezone : SALLA_TIME_ZONE)
      : null;
  return { orderId: id, total, currency, items, occurredAt: parsed ?? fallbackDate };
}

/** The time zone of a Salla date that names none: Saudi Arabia's (UTC+3 all year). */
export const SALLA_TIME_ZONE = 'Asia/Riyadh';

/**
 * "2026-11-27 10:00:00.000000" in an IANA time zone ("Asia/Riyadh") as an instant; null when
 * either cannot be read. The zone's offset is the one at that time (Intl), so any zone is right.
 */
export function localTime(local: string, timeZone: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?/.exec(local.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, sec] = m.map(Number) as number[];
  const asUtc = Date.UTC(y as number, (mo as number) - 1, d, h, mi, sec || 0);
  if (Number.isNaN(asUtc)) return null;
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    }).formatToParts(new Date(asUtc));
  } catch {
    return null;
  }
  const part = (t: string) => Number(parts.find((p) => p.type === t)?.value);
  const shown = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  // the zone's offset at about that time: shown − asUtc
  return new Date(asUtc - (shown - asUtc));
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
