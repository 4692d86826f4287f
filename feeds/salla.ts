/**
 * Salla's Merchant API (docs/feeds.md): `GET {base}/products?per_page=60&page=N` on
 * `https://api.salla.dev/admin/v2`, with the store's access token (`Authorization: Bearer …`) and
 * `Accept-Language: ar`. The body is `{status, success, data: [product…], pagination: {currentPage,
 * totalPages…}}`: the next page is asked while `currentPage < totalPages`.
 *
 * Prices are `{amount, currency}` objects. A product's `skus` are its sizes, each named by the
 * option values it relates to (`related_option_values` → `options[].values[].name`); a product
 * without options is read as one size. Hidden products and products that are not goods (a
 * service, a booking, a digital product, codes, a donation) are not read. The house is `brand.name`,
 * else the source's `brands` map (brand id → name) for `brand_id`: whether the listing carries the
 * brand is not confirmed. The product's barcode is its `gtin`, a size's its sku's `barcode` (a
 * product without skus is one size, with the product's); `sku` (the shop's own code) and `mpn` (the
 * maker's part number) are never read as barcodes. Pure.
 */
import {
  arr,
  barcodeOf,
  categoriesOf,
  currencyOf,
  failedPage,
  idOf,
  MAX_HOUSE,
  MAX_NAME,
  MAX_VARIANTS,
  obj,
  parseJson,
  plainName,
  plainText,
  priceOf,
  readItems,
  rowsOf,
  safeUrl,
  sourceCurrency,
  type VariantDraft,
} from './common.ts';
import type { Connector, FeedRow, FeedSource } from './types.ts';

export const SALLA_API = 'https://api.salla.dev/admin/v2';
/** Salla's largest page. */
export const SALLA_PAGE_SIZE = 60;
/** Product types that are not goods sent to the shopper: not read. */
const NOT_GOODS: ReadonlySet<string> = new Set(['service', 'booking', 'digital', 'donating', 'codes']);
/** The shop's clock for a sale's end date (Saudi Arabia, UTC+3 all year). */
const RIYADH_OFFSET_MS = 3 * 60 * 60 * 1000;

/** The API base of a source: its URL without a trailing slash or `/products`, else Salla's. */
export function sallaBase(url: string): string {
  const u = new URL(url.trim() || SALLA_API);
  return `${u.origin}${u.pathname.replace(/\/+$/, '').replace(/\/products$/, '')}`;
}

/** An amount as Salla gives it: `{amount, currency}`, or (read defensively) a bare number or text. */
function amountOf(v: unknown): number | null {
  if (v && typeof v === 'object' && !Array.isArray(v)) return priceOf((v as Record<string, unknown>).amount);
  return priceOf(v);
}

/** The first currency named by these price objects. */
function moneyCurrency(...values: unknown[]): string | null {
  for (const v of values) {
    const c = currencyOf(obj(v).currency);
    if (c) return c;
  }
  return null;
}

/** A count (a stock quantity) from a number or integer text; null when none. */
function countOf(v: unknown): number | null {
  const n = typeof v === 'string' && /^\s*-?\d{1,12}\s*$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
}

/** When a sale's `sale_end` ("2025-03-31", or `{date: "2025-03-31 23:59:00…"}`) is over: the day after it, Riyadh time. */
function saleOver(v: unknown): number | null {
  const s = typeof v === 'string' ? v : obj(v).date;
  if (typeof s !== 'string') return null;
  const m = /^\s*(\d{4})-(\d{2})-(\d{2})/.exec(s);
  if (!m) return null;
  const at = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + 1) - RIYADH_OFFSET_MS;
  return Number.isFinite(at) ? at : null;
}

interface Prices {
  price: number | null;
  sale_price: number | null;
}

/**
 * The regular price and the sale: `regular_price` when above 0 (Salla sends 0 when it has none),
 * else `price`; a `sale_price` above 0 and below it is the sale, unless the sale has ended.
 */
function pricesOf(p: Record<string, unknown>, ended: boolean): Prices {
  const regular = amountOf(p.regular_price);
  const price = regular !== null && regular > 0 ? regular : amountOf(p.price);
  const sale = amountOf(p.sale_price);
  const onSale = !ended && price !== null && sale !== null && sale > 0 && sale < price;
  return { price, sale_price: onSale ? sale : null };
}

/**
 * The product's house: `brand.name`, else its brand's id named by the source's `brands` map; no
 * brand at all, '' (the matcher reads the house from the name, as a placeholder brand's).
 */
function houseOf(p: Record<string, unknown>, source: FeedSource): { house: string } | { reason: string } {
  const brand = obj(p.brand);
  const named = plainName(brand.name, MAX_HOUSE);
  if (named) return { house: named };
  const id = idOf(p.brand_id) ?? idOf(brand.id);
  if (!id) return { house: '' };
  const brands = source.brands;
  const mapped = brands && Object.hasOwn(brands, id) ? plainName(brands[id], MAX_HOUSE) : null;
  if (mapped) return { house: mapped };
  return { reason: `the product's brand (id ${id}) is not named in the store's brands` };
}

type Read = { rows: FeedRow[] } | { reason: string; id?: string };

function readProduct(raw: unknown, source: FeedSource, now: number, timed: { any: boolean }): Read {
  const p = obj(raw);
  // not on sale in the shop, or not a perfume bottle at all: not read, not rejected
  if (p.status === 'hidden') return { rows: [] };
  if (typeof p.type === 'string' && NOT_GOODS.has(p.type)) return { rows: [] };
  const id = idOf(p.id);
  if (!id) return { reason: 'the product has no id' };
  const fail = (reason: string) => ({ id, reason });
  const name = plainName(p.name, MAX_NAME);
  if (!name) return fail('the product has no name');
  const house = houseOf(p, source);
  if ('reason' in house) return fail(house.reason);

  const end = saleOver(p.sale_end);
  if (end !== null) timed.any = true;
  const ended = end !== null && now >= end;
  const out = p.status === 'out';
  const unlimited = p.unlimited_quantity === true;

  // option value id → its name ("100 مل", "EDP")
  const values = new Map<string, string>();
  for (const o of arr(p.options).slice(0, 20))
    for (const v of arr(obj(o).values).slice(0, MAX_VARIANTS)) {
      const value = obj(v);
      const vid = idOf(value.id);
      const label = plainName(value.name, 80);
      if (vid && label) values.set(vid, label);
    }
  const skus = values.size > 0 ? arr(p.skus).slice(0, MAX_VARIANTS) : [];
  const gtin = barcodeOf(p.gtin);

  let variants: VariantDraft[];
  if (skus.length) {
    variants = skus.map((raw) => {
      const sku = obj(raw);
      const label = arr(sku.related_option_values)
        .slice(0, 5)
        .map((ref) => {
          const r = obj(ref);
          const vid = idOf(typeof ref === 'object' ? r.id : ref);
          return (vid ? values.get(vid) : undefined) ?? plainName(r.name, 80);
        })
        .filter((x): x is string => !!x)
        .join(' / ');
      const stock = countOf(sku.stock_quantity);
      return {
        label,
        text: [label, name].filter(Boolean).join(' / '),
        ...pricesOf(sku, ended),
        available: !out && (unlimited || sku.unlimited_quantity === true || (stock !== null && stock > 0)),
        barcode: barcodeOf(sku.barcode),
      };
    });
  } else {
    const quantity = countOf(p.quantity);
    variants = [
      {
        label: '',
        text: name,
        ...pricesOf(p, ended),
        available: p.is_available === true && !out && (unlimited || quantity === null || quantity > 0),
        barcode: gtin,
      },
    ];
  }

  const urls = obj(p.urls);
  const firstSku = obj(skus[0]);
  return {
    rows: rowsOf(
      {
        id,
        name,
        house: house.house,
        currency:
          moneyCurrency(p.price, p.regular_price, p.sale_price, firstSku.price, firstSku.regular_price) ??
          sourceCurrency(source),
        image_url: safeUrl(p.main_image) ?? safeUrl(p.thumbnail) ?? safeUrl(obj(arr(p.images)[0]).url),
        product_url: safeUrl(urls.customer) ?? safeUrl(p.url),
        description: plainText(p.description),
        categories: categoriesOf(arr(p.categories).map((c) => obj(c).name)),
        barcode: gtin,
      },
      variants,
    ),
  };
}

/** The next page: this URL with `page` = `currentPage` + 1, while `currentPage < totalPages`. */
function nextPage(url: string, pagination: Record<string, unknown>): string | null {
  const current = countOf(pagination.currentPage);
  const total = countOf(pagination.totalPages);
  if (current === null || total === null || current < 1 || !(current < total)) return null;
  try {
    const u = new URL(url);
    u.searchParams.set('page', String(current + 1));
    return u.toString();
  } catch {
    return null;
  }
}

/**
 * One product as `GET /products/{id}` answers it (`data`), read as a page's product is: its rows,
 * or none when it is hidden, not goods or cannot be read (a product webhook's refetch).
 */
export function sallaProductRows(product: unknown, source: FeedSource, now = Date.now()): FeedRow[] {
  return readItems([product], (p) => readProduct(p, source, now, { any: false })).rows;
}

export const salla: Connector = {
  kind: 'salla',
  firstUrl: (source) => `${sallaBase(source.url)}/products?per_page=${SALLA_PAGE_SIZE}&page=1`,
  headers: (_source, secret): Record<string, string> => ({
    ...(secret ? { Authorization: `Bearer ${secret}` } : {}),
    'Accept-Language': 'ar',
  }),
  parse(body, url, source, _headers, now = Date.now()) {
    const json = parseJson(body);
    if (!json.ok) return failedPage(json.reason);
    const page = obj(json.value);
    if (!Array.isArray(page.data)) return failedPage('the page has no "data" list of products');
    const timed = { any: false };
    const { rows, rejected } = readItems(page.data, (p) => readProduct(p, source, now, timed));
    return {
      rows,
      rejected,
      next: nextPage(url, obj(page.pagination)),
      ...(timed.any ? { timed: true } : {}),
    };
  },
};
