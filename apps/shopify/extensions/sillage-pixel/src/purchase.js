/**
 * The web pixel's purchase report, as pure functions: a `checkout_completed` event's checkout
 * read into the body `POST {base}/api/widget/event` accepts (one `purchase_completed` event),
 * with the shopper's quiz session when the storefront still holds it. Plain JavaScript, no
 * dependencies: Shopify CLI bundles it into the pixel (src/index.js), and the service's tests
 * import it as it is. Every value is checked; nothing here throws.
 */

/** How long the widget keeps a shopper's session (widget/runtime.ts): 30 days. */
export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;
/** The most lines a purchase carries (the service reads no more). */
export const MAX_ITEMS = 200;
/** The most an order, a line's price and the lines together may come to (the service refuses more). */
export const MAX_AMOUNT = 1e9;
/** The most of one product a line may hold (the service refuses more). */
export const MAX_QUANTITY = 10_000;

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const SHOPIFY_ID = /^(?:gid:\/\/shopify\/[A-Za-z]+\/)?([0-9]{1,20})(?:\?[^\s]*)?$/;
/** the last millisecond of the year 9999: later times are written in a form the service does not read */
const MAX_TIME = 253_402_300_799_999;
/** how far ahead of the pixel's clock a stored session's time may be (the same browser wrote it) */
const CLOCK_SKEW_MS = 5 * 60 * 1000;

/**
 * @typedef {{
 *   merchant_product_id: string,
 *   quantity: number,
 *   price: number,
 * }} PurchaseItem
 * @typedef {{
 *   type: 'purchase_completed',
 *   event_id: string,
 *   occurred_at?: string,
 *   session_id?: string,
 *   order_id: string,
 *   total: number,
 *   currency: string,
 *   items: PurchaseItem[],
 * }} PurchaseEvent
 * @typedef {{ api_key: string, events: [PurchaseEvent] }} PurchaseBody
 */

/**
 * A JSON value as an object (an empty one when it is not).
 * @param {unknown} v
 * @returns {Record<string, unknown>}
 */
function record(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? /** @type {Record<string, unknown>} */ (v) : {};
}

/**
 * A numeric Shopify id from a GID (`gid://shopify/Order/123` → "123"), digits or a number; else
 * null (and for 0, which names nothing).
 * @param {unknown} v
 * @returns {string | null}
 */
export function shopifyId(v) {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v > 0 ? String(v) : null;
  if (typeof v !== 'string' || v.length > 200) return null;
  const m = SHOPIFY_ID.exec(v.trim());
  // Shopify's ids start at 1
  return m && /[1-9]/.test(/** @type {string} */ (m[1])) ? /** @type {string} */ (m[1]) : null;
}

/**
 * A money amount (`{amount}`, a number or digits) between 0 and MAX_AMOUNT; else null.
 * @param {unknown} v
 * @returns {number | null}
 */
function amountOf(v) {
  const raw = v !== null && typeof v === 'object' ? record(v).amount : v;
  const n =
    typeof raw === 'number'
      ? raw
      : typeof raw === 'string' && raw.trim() !== '' && raw.length <= 40
        ? Number(raw)
        : Number.NaN;
  // -0 is 0 (JSON writes it so)
  return Number.isFinite(n) && n >= 0 && n <= MAX_AMOUNT ? n + 0 : null;
}

/**
 * A line's quantity: a whole number up to MAX_QUANTITY, 1 when the line names none it can be
 * read as; null when it is below 1 (no purchase of that line).
 * @param {unknown} v
 * @returns {number | null}
 */
function quantityOf(v) {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  if (Number.isNaN(n)) return 1;
  const whole = Math.floor(n);
  if (!(whole >= 1)) return null;
  return Math.min(whole, MAX_QUANTITY);
}

/**
 * The address the purchase is posted to, from the pixel's settings (`base` is the service's
 * public address); null when it is not an http(s) address or the key is missing.
 * @param {unknown} settings
 * @returns {string | null}
 */
export function eventUrl(settings) {
  const s = record(settings);
  if (!keyOf(s.key)) return null;
  const base = baseOf(s.base);
  return base ? `${base}/api/widget/event` : null;
}

/**
 * @param {unknown} v
 * @returns {string | null}
 */
function baseOf(v) {
  if (typeof v !== 'string' || v.length > 2000) return null;
  try {
    const url = new URL(v.trim());
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    if (url.search || url.hash || url.username || url.password) return null;
    return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
  } catch {
    return null;
  }
}

/**
 * @param {unknown} v
 * @returns {string | null}
 */
function keyOf(v) {
  return typeof v === 'string' && v.trim() !== '' && v.length <= 200 ? v.trim() : null;
}

/**
 * The storefront's localStorage entry where the widget keeps the shopper's session for `key`.
 * @param {unknown} key
 * @returns {string | null}
 */
export function sessionStorageName(key) {
  const k = keyOf(key);
  return k ? `sillage:session:${k.slice(0, 16)}` : null;
}

/**
 * The session id in the widget's stored entry (`{"id": "…", "at": epochMillis}`), when it is a
 * UUID written less than 30 days before `now`; else null.
 * @param {unknown} stored the entry's text as localStorage holds it (or the entry already read)
 * @param {number} now epoch milliseconds
 * @returns {string | null}
 */
export function storedSessionId(stored, now) {
  let entry = stored;
  if (typeof stored === 'string') {
    if (stored.length > 1000) return null;
    try {
      entry = JSON.parse(stored);
    } catch {
      return null;
    }
  }
  const { id, at } = record(entry);
  if (typeof id !== 'string' || !UUID.test(id)) return null;
  if (typeof at !== 'number' || !Number.isFinite(at) || !Number.isFinite(now)) return null;
  const age = now - at;
  return age < SESSION_TTL_MS && age > -CLOCK_SKEW_MS ? id : null;
}

/**
 * A three-letter currency code, upper-cased; null otherwise.
 * @param {unknown} v
 * @returns {string | null}
 */
function currencyOf(v) {
  return typeof v === 'string' && /^[A-Za-z]{3}$/.test(v) ? v.toUpperCase() : null;
}

/**
 * @param {unknown} now
 * @returns {number}
 */
function millisOf(now) {
  if (now instanceof Date) return now.getTime();
  return typeof now === 'number' ? now : Number.NaN;
}

/**
 * The body that reports a completed checkout as a purchase: its order id and each line's product
 * as Shopify's numeric ids, the total, the currency, at most MAX_ITEMS lines, and the shopper's
 * session when `storedSession` (the widget's localStorage entry) still names one. Null when the
 * checkout has no order id, no line with a product, or the settings lack the address or the key.
 * @param {unknown} checkout `checkout_completed`'s `event.data.checkout`
 * @param {unknown} settings the pixel's settings (`{base, key}`)
 * @param {unknown} storedSession the widget's session entry (its text), or null
 * @param {number | Date} now
 * @returns {PurchaseBody | null}
 */
export function purchaseEvent(checkout, settings, storedSession, now) {
  try {
    return build(checkout, settings, storedSession, now);
  } catch {
    // an object no JSON makes (a getter that throws): no report rather than a broken pixel
    return null;
  }
}

/**
 * @param {unknown} checkout
 * @param {unknown} settings
 * @param {unknown} storedSession
 * @param {number | Date} now
 * @returns {PurchaseBody | null}
 */
function build(checkout, settings, storedSession, now) {
  const s = record(settings);
  const key = keyOf(s.key);
  if (!key || !baseOf(s.base)) return null;
  const c = record(checkout);
  const orderId = shopifyId(record(c.order).id);
  if (!orderId) return null;

  /** @type {PurchaseItem[]} */
  const items = [];
  let sum = 0;
  const lines = Array.isArray(c.lineItems) ? c.lineItems : [];
  for (const raw of lines) {
    if (items.length >= MAX_ITEMS) break;
    const line = record(raw);
    const variant = record(line.variant);
    const productId = shopifyId(record(variant.product).id);
    const quantity = quantityOf(line.quantity);
    if (!productId || quantity === null) continue;
    const price = amountOf(variant.price) ?? 0;
    // the lines together may come to at most MAX_AMOUNT: one that would pass it is left out
    if (sum + quantity * price > MAX_AMOUNT) continue;
    sum += quantity * price;
    items.push({ merchant_product_id: productId, quantity, price });
  }
  if (items.length === 0) return null;

  const totalPrice = record(c.totalPrice);
  const millis = millisOf(now);
  const sessionId = storedSessionId(storedSession, millis);
  /** @type {PurchaseEvent} */
  const event = {
    type: 'purchase_completed',
    event_id: `purchase:${orderId}`,
    // an unreadable clock leaves the time to the service (the time it receives the event)
    ...(Number.isFinite(millis) && millis >= 0 && millis <= MAX_TIME
      ? { occurred_at: new Date(millis).toISOString() }
      : {}),
    ...(sessionId ? { session_id: sessionId } : {}),
    order_id: orderId,
    total: amountOf(totalPrice.amount) ?? 0,
    currency: currencyOf(c.currencyCode) ?? currencyOf(totalPrice.currencyCode) ?? 'SAR',
    items,
  };
  return { api_key: key, events: [event] };
}
