/**
 * What every platform's app reads the same way (docs/platforms.md): a store's tokens for the
 * platform's API, its identity, an order as a purchase, and money and dates as platforms write
 * them. Pure; each platform's own module (salla.ts, zid.ts) reads its answers into these shapes.
 */

export interface PlatformTokens {
  /** the store's token for the platform's API (Salla's access token; Zid's `access_token`, sent as `X-Manager-Token`) */
  accessToken: string;
  /** null when the platform gives none (Shopify's offline token, which does not expire) */
  refreshToken: string | null;
  /** null when the token does not expire (Shopify's) */
  expiresAt: Date | null;
  scope: string | null;
  /** a second token some platforms ask for on every call as well (Zid's `authorization`, sent as the bearer) */
  authorization?: string | null;
}

export interface PlatformStore {
  name: string | null;
  /** the storefront's origin, when the platform says where it is */
  origin: string | null;
}

export interface PlatformOrder {
  orderId: string;
  total: number;
  currency: string;
  items: { merchant_product_id: string; quantity: number; price: number }[];
  occurredAt: Date;
}

/** How many lines of an order are read (an order with more is read up to here). */
export const MAX_ORDER_ITEMS = 200;

/** How long before its expiry an access token is refreshed, unless the platform says otherwise. */
export const REFRESH_AHEAD_MS = 24 * 3600 * 1000;

/** Whether a token expiring at `expiresAt` is to be refreshed before use at `now`. */
export function needsRefresh(expiresAt: Date | null, now = Date.now(), aheadMs = REFRESH_AHEAD_MS): boolean {
  return expiresAt === null || expiresAt.getTime() - now < aheadMs;
}

/** A JSON value as an object (an empty one when it is not). */
export const record = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** A token as a platform sends it: non-empty text of at most 4 KB, else null. */
export const tokenOf = (v: unknown): string | null =>
  typeof v === 'string' && v.length > 0 && v.length <= 4096 ? v : null;

/** A money value: `{amount}`, a number or digits, at least 0 and at most a billion; else null. */
export function amountOf(v: unknown): number | null {
  const raw = v && typeof v === 'object' ? (v as { amount?: unknown }).amount : v;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
  return Number.isFinite(n) && n >= 0 && n <= 1e9 ? n : null;
}

/** A three-letter currency code, upper-cased; `fallback` when there is none. */
export function currencyCode(v: unknown, fallback = 'SAR'): string {
  return typeof v === 'string' && /^[A-Za-z]{3}$/.test(v) ? v.toUpperCase() : fallback;
}

/** An http(s) URL's origin, or null. */
export function originOf(v: unknown): string | null {
  if (typeof v !== 'string' || v.length > 2000) return null;
  try {
    const u = new URL(v.includes('://') ? v : `https://${v}`);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.origin : null;
  } catch {
    return null;
  }
}

/** The time zone of a Gulf platform's date that names none: Saudi Arabia's (UTC+3 all year). */
export const RIYADH = 'Asia/Riyadh';

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
