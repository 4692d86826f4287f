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
