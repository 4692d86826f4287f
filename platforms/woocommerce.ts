/**
 * WooCommerce's side of the app (docs/platforms.md): a store named by its own address and the
 * installation key its plugin keeps (an Ed25519 key pair: the store confirms each connection it
 * starts by signing the service's challenge), the one-click REST keys (`/wc-auth/v1/authorize`, which posts the keys to the service with the
 * `user_id` the service gave: here a signed, short-lived connect token), the webhooks the
 * store's plugin registers (signed with a secret of the store's: `X-WC-Webhook-Signature`, the
 * base64 HMAC-SHA256 of the raw body), and the orders they carry. Pure: what is read and how; the
 * calls are the plugin's (plugins/app/woocommerce.ts).
 */
import { createHash, createHmac, createPublicKey, timingSafeEqual, verify } from 'node:crypto';
import {
  amountOf,
  currencyCode,
  MAX_ORDER_ITEMS,
  type PlatformOrder,
  type PlatformTokens,
  record,
  tokenOf,
} from './common.ts';

/** The topics the plugin registers, and the notice it sends when it is disconnected or deactivated. */
export const WOO_TOPICS = [
  'product.created',
  'product.updated',
  'product.deleted',
  'product.restored',
  'order.created',
  'order.updated',
] as const;
export const WOO_DISCONNECTED = 'sillage.disconnected';
const TOPICS: ReadonlySet<string> = new Set([...WOO_TOPICS, WOO_DISCONNECTED]);
export const isWooTopic = (t: unknown): t is string => typeof t === 'string' && TOPICS.has(t);

/** How long a connect token is good for: the merchant's way through WooCommerce's key screen and back. */
export const CONNECT_TTL_MS = 30 * 60_000;

/**
 * A store's address as the plugin sends it (`home_url()`): https (plain http only for the
 * operator's private hosts, `FEED_ALLOW_PRIVATE_HOSTS`), no credentials, query or fragment; its
 * origin and path without a trailing slash. Null for anything else.
 */
export function wooStoreUrl(v: unknown, privateHosts: readonly string[] = []): string | null {
  if (typeof v !== 'string' || v.length > 300) return null;
  let u: URL;
  try {
    u = new URL(v.trim());
  } catch {
    return null;
  }
  const local = privateHosts.includes(u.hostname);
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && local)) return null;
  if (u.username || u.password || u.search || u.hash) return null;
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

/**
 * A store's id here: its host and path as `[a-z0-9-]` (at most 27 characters), then 32 hex (128
 * bits) of the SHA-256 of its whole address and its plugin's installation key. The readable part
 * alone is not one-to-one (`a.example/b` and `a-example.b` read the same, and punctuation in a path
 * reads as nothing): the hash keeps two stores from sharing an id; the connection also checks the
 * install's address. Another installation at the same address (a new WordPress there) is another
 * store, with a merchant of its own. Stores connected before installation keys have an id of their
 * address alone (`installationKey` null).
 */
export function wooStoreId(storeUrl: string, installationKey: string | null = null): string {
  const u = new URL(storeUrl);
  const readable = `${u.host}${u.pathname}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 27)
    .replace(/-+$/, '');
  const hash = createHash('sha256')
    .update(installationKey === null ? storeUrl : `${storeUrl}\n${installationKey}`)
    .digest('hex')
    .slice(0, 32);
  return `${readable || 'store'}-${hash}`;
}

/** The hex SHA-256 of a connect token, as an install keeps it. */
export const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

export interface ConnectToken {
  /** the store's address (wooStoreUrl) */
  store: string;
  /** the hex SHA-256 of the plugin's own connect secret: only that plugin can claim the connection */
  proof: string;
  /** the WordPress admin's email, as the plugin sent it: the console account it is signed in to */
  email: string | null;
  /** the plugin's admin page (`admin_url('admin.php')`), when WordPress is not at the store's address */
  admin: string | null;
  /** the installation key (base64url Ed25519 public key) the store confirmed the connection with */
  key: string;
  /** when the token ends, in ms */
  exp: number;
}

const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64url');
const mac = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest();

/** A connect token: the payload and its HMAC with the service's key, both base64url. */
export function signConnect(t: ConnectToken, key: Buffer): string {
  const payload = b64(JSON.stringify({ s: t.store, p: t.proof, e: t.email, a: t.admin, k: t.key, x: t.exp }));
  return `${payload}.${b64(mac(key, payload))}`;
}

/** A connect token read back: null unless its HMAC is the service's and it has not ended. */
export function readConnect(token: unknown, key: Buffer, now = Date.now()): ConnectToken | null {
  if (typeof token !== 'string' || token.length > 2000) return null;
  const [payload, sig, ...rest] = token.split('.');
  if (!payload || !sig || rest.length) return null;
  const given = Buffer.from(sig, 'base64url');
  const expected = mac(key, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let p: Record<string, unknown>;
  try {
    p = record(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
  } catch {
    return null;
  }
  if (
    typeof p.s !== 'string' ||
    typeof p.p !== 'string' ||
    !isInstallationKey(p.k) ||
    typeof p.x !== 'number' ||
    p.x < now
  )
    return null;
  return {
    store: p.s,
    proof: p.p,
    email: typeof p.e === 'string' ? p.e : null,
    admin: typeof p.a === 'string' ? p.a : null,
    key: p.k,
    exp: p.x,
  };
}

/** An installation key as the plugin shows it: an Ed25519 public key, 32 bytes in base64url. */
export const isInstallationKey = (v: unknown): v is string => typeof v === 'string' && /^[A-Za-z0-9_-]{43}$/.test(v);

/** The REST route of the plugin that confirms a connection it started (`?rest_route=` works with any permalinks). */
export const CONNECTION_ROUTE = '/sillage/v1/connection';

/**
 * Where the service asks a store whether its plugin started the connection with this proof: the
 * plugin's REST route, in its query form, on the store's own address, with the service's challenge.
 */
export function connectionUrl(store: string, proof: string, challenge: string): string {
  const u = new URL(`${store}/`);
  u.searchParams.set('rest_route', CONNECTION_ROUTE);
  u.searchParams.set('proof', proof);
  u.searchParams.set('challenge', challenge);
  return u.toString();
}

/** What the plugin signs with its installation key to confirm a connection. */
export const connectionMessage = (proof: string, challenge: string) =>
  Buffer.from(`sillage-woocommerce-connection\n${proof}\n${challenge}`);

/**
 * The installation key of a store's confirmation (`{proof, key, signature}`, JSON, at most 4 KB):
 * the Ed25519 signature (base64url) of connectionMessage for the proof asked about and the
 * service's challenge, made with that key. Null for anything else: a page that is not the
 * plugin's, a signature over another proof or challenge, or made with another key.
 */
export function confirmedKey(body: string, proof: string, challenge: string): string | null {
  let b: Record<string, unknown>;
  try {
    b = record(body.length <= 4096 ? JSON.parse(body) : null);
  } catch {
    return null;
  }
  const { key, signature } = b;
  if (!isInstallationKey(key)) return null;
  try {
    const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key }, format: 'jwk' });
    return verify(null, connectionMessage(proof, challenge), publicKey, Buffer.from(String(signature), 'base64url'))
      ? key
      : null;
  } catch {
    // no 32 bytes are refused as a key today; should a runtime refuse one, it confirms nothing
    return null;
  }
}

/** A proof as the plugin sends it: the hex SHA-256 of its secret. */
export const isProof = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);

/** Whether `secret` is the one whose hash the connect token carries, compared in constant time. */
export function proofValid(secret: unknown, proof: string): boolean {
  if (typeof secret !== 'string' || secret.length === 0 || secret.length > 200 || !isProof(proof)) return false;
  return timingSafeEqual(createHash('sha256').update(secret).digest(), Buffer.from(proof, 'hex'));
}

/**
 * The keys WooCommerce posts to the callback (`{key_id, user_id, consumer_key, consumer_secret,
 * key_permissions}`), as tokens: the consumer key is the access token, the secret the second one.
 * Null unless both are there, WooCommerce's (`ck_`, `cs_`), and read-only or more.
 */
export function wooKeys(body: unknown): { userId: string; tokens: PlatformTokens } | null {
  const b = record(body);
  const key = tokenOf(b.consumer_key);
  const secret = tokenOf(b.consumer_secret);
  const userId = typeof b.user_id === 'string' ? b.user_id : typeof b.user_id === 'number' ? String(b.user_id) : null;
  if (!key || !secret || !userId || !key.startsWith('ck_') || !secret.startsWith('cs_')) return null;
  if (key.length > 200 || secret.length > 200) return null;
  const permissions = typeof b.key_permissions === 'string' ? b.key_permissions : 'read';
  if (!['read', 'write', 'read_write'].includes(permissions)) return null;
  return {
    userId,
    tokens: { accessToken: key, authorization: secret, refreshToken: null, expiresAt: null, scope: permissions },
  };
}

/** Whether `X-WC-Webhook-Signature` is the base64 HMAC-SHA256 of the raw body with the store's secret. */
export function wooSignatureValid(raw: unknown, header: unknown, secret: string | null): boolean {
  if (
    !Buffer.isBuffer(raw) ||
    !secret ||
    typeof header !== 'string' ||
    header.length > 100 ||
    !/^[A-Za-z0-9+/]+={0,2}$/.test(header)
  )
    return false;
  const expected = createHmac('sha256', secret).update(raw).digest();
  const given = Buffer.from(header, 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The signature WooCommerce would send (the simulator's and the plugin's side). */
export const signWoo = (raw: Buffer | string, secret: string) =>
  createHmac('sha256', secret).update(raw).digest('base64');

/** A WooCommerce id: a positive integer, or its digits. */
export function wooId(v: unknown): string | null {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return String(v);
  if (typeof v === 'string' && /^[1-9][0-9]{0,18}$/.test(v.trim())) return v.trim();
  return null;
}

/** The product a product webhook is about (a variation's parent: products are stored by it). */
export function wooWebhookProduct(body: unknown): string | null {
  const b = record(body);
  return wooId(b.parent_id) ?? wooId(b.id);
}

/** Order statuses that are a sale; any other (pending, failed, cancelled, refunded, a draft) is not, yet. */
const SALE: ReadonlySet<string> = new Set(['processing', 'completed', 'on-hold']);

/**
 * An order webhook's order (the REST API's shape) as a purchase: `id`, `total`, `currency`,
 * `date_created_gmt`, each line by its `product_id` (a variation's parent), its price the line's
 * total over its quantity. Null without an id or a total, and while the order is no sale:
 * `order.updated` records it once it is paid or on hold.
 */
export function wooOrder(body: unknown, fallbackDate: Date): PlatformOrder | null {
  const o = record(body);
  const id = wooId(o.id);
  const total = amountOf(o.total);
  if (!id || total === null || typeof o.status !== 'string' || !SALE.has(o.status)) return null;
  const items: PlatformOrder['items'] = [];
  for (const raw of Array.isArray(o.line_items) ? o.line_items.slice(0, MAX_ORDER_ITEMS) : []) {
    const line = record(raw);
    const productId = wooId(line.product_id);
    const quantity = typeof line.quantity === 'number' && Number.isInteger(line.quantity) ? line.quantity : 1;
    if (!productId || quantity < 1) continue;
    const lineTotal = amountOf(line.total);
    items.push({
      merchant_product_id: productId,
      quantity,
      price: lineTotal === null ? (amountOf(line.price) ?? 0) : lineTotal / quantity,
    });
  }
  const gmt =
    typeof o.date_created_gmt === 'string' && /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}$/.test(o.date_created_gmt)
      ? new Date(`${o.date_created_gmt.replace(' ', 'T')}Z`)
      : null;
  // a date no order has (before 2000, or after the day it is received) is not the order's
  const sane =
    gmt &&
    !Number.isNaN(gmt.getTime()) &&
    gmt.getUTCFullYear() >= 2000 &&
    gmt.getTime() <= fallbackDate.getTime() + 86_400_000;
  return {
    orderId: id,
    total,
    currency: currencyCode(o.currency),
    items,
    occurredAt: sane ? gmt : fallbackDate,
  };
}

/**
 * Where WooCommerce's key screen is for a store, with the connect token as its `user_id`: the
 * query form of `/wc-auth/v1/authorize` (the two query variables its rewrite rule maps to), which
 * also works on a store with plain permalinks.
 */
export function authorizeUrl(store: string, o: { token: string; returnUrl: string; callbackUrl: string }): string {
  const u = new URL(`${store}/`);
  u.searchParams.set('wc-auth-version', '1');
  u.searchParams.set('wc-auth-route', 'authorize');
  u.searchParams.set('app_name', 'Sillage');
  u.searchParams.set('scope', 'read');
  u.searchParams.set('user_id', o.token);
  u.searchParams.set('return_url', o.returnUrl);
  u.searchParams.set('callback_url', o.callbackUrl);
  return u.toString();
}

/**
 * The plugin's `admin.php` as it sent it: on the store's own origin (WordPress may live in another
 * folder than the store's home), ending in `/admin.php`, no query; null otherwise.
 */
export function wooAdminUrl(v: unknown, store: string): string | null {
  if (typeof v !== 'string' || v.length > 300) return null;
  try {
    const u = new URL(v);
    if (u.origin !== new URL(store).origin || !u.pathname.endsWith('/admin.php') || u.search || u.hash) return null;
    return `${u.origin}${u.pathname}`;
  } catch {
    return null;
  }
}

/** The plugin's settings page on the store, where the admin comes back to after WooCommerce's key screen. */
export function pluginPage(t: Pick<ConnectToken, 'store' | 'admin'>, token: string, success: boolean): string {
  const u = new URL(t.admin ?? `${t.store}/wp-admin/admin.php`);
  u.searchParams.set('page', 'sillage');
  u.searchParams.set('sillage_connect', token);
  u.searchParams.set('success', success ? '1' : '0');
  return u.toString();
}
