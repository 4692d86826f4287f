/**
 * WooCommerce's public Store API (no key): `GET {shop}/wp-json/wc/store/v1/products?per_page=100&page=N`,
 * paged by `page=` until a short page (or by the `X-WP-TotalPages` header when it is given).
 * Prices are strings in the currency's minor units (`"15000"` with `currency_minor_unit: 2` is
 * 150.00). A variation's own price and stock are not in the listing: a variable product's sizes
 * take the product's stock, and their prices come from `prices.price_range` (the smallest size the
 * lowest, the largest the highest) when the range has two ends, else the product's price. The
 * house is the `brands` field, else an attribute named brand (in English or Arabic). The barcode is
 * `global_unique_id` (WooCommerce 9.2's GTIN, UPC, EAN or ISBN field), the product's and a
 * variation's, when the answer carries it (the REST API's product does; the Store API's names no such
 * field). Pure.
 */

import {
  arr,
  barcodeOf,
  categoriesOf,
  currencyOf,
  failedPage,
  header,
  idOf,
  isBrandAttribute,
  MAX_HOUSE,
  MAX_NAME,
  MAX_VARIANTS,
  mlOf,
  obj,
  parseJson,
  plainName,
  plainText,
  readItems,
  rowsOf,
  safeUrl,
  sourceCurrency,
  type VariantDraft,
} from './common.ts';
import { shopOrigin, shopUrl } from './shopify.ts';

/**
 * Where the shop's WordPress lives: its origin and path, for a WordPress in a folder
 * (https://shop.example/store); a path already into its REST API (…/wp-json/…) is cut there.
 */
export function wordpressBase(url: string): string {
  const u = shopUrl(url);
  return `${u.origin}${u.pathname.replace(/\/wp-json(\/.*)?$/, '').replace(/\/+$/, '')}`;
}

import type { Connector, FeedSource } from './types.ts';

export const WOO_PAGE_SIZE = 100;

/** A price in minor units ("15000", unit 2) as a number (150). */
export function minorUnits(v: unknown, unit: number): number | null {
  const s = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : '';
  if (!/^\d{1,15}$/.test(s)) return null;
  const n = Number(s) / 10 ** unit;
  return n <= 1e9 ? Math.round(n * 100) / 100 : null;
}

/** A slug as words: percent-decoded ("%d9%85%d9%84" → "مل"), hyphens as spaces. */
function slugText(slug: string): string {
  let s = slug.slice(0, 400);
  try {
    s = decodeURIComponent(s);
  } catch {
    // not percent-encoded after all
  }
  return s.replace(/-/g, ' ');
}

function houseOf(p: Record<string, unknown>): string | null {
  for (const b of arr(p.brands)) {
    const name = plainName(obj(b).name, MAX_HOUSE);
    if (name) return name;
  }
  for (const a of arr(p.attributes)) {
    const attr = obj(a);
    if (!isBrandAttribute(attr.name)) continue;
    for (const t of arr(attr.terms)) {
      const name = plainName(obj(t).name, MAX_HOUSE);
      if (name) return name;
    }
  }
  return null;
}

function readProduct(raw: unknown, origin: string, source: FeedSource) {
  const p = obj(raw);
  const id = idOf(p.id);
  if (!id) return { reason: 'the product has no id' };
  const fail = (reason: string) => ({ id, reason });
  const name = plainName(p.name, MAX_NAME);
  if (!name) return fail('the product has no name');
  // no brand: the house is read from the name by the matcher, as a placeholder brand is
  const house = houseOf(p) ?? '';
  const prices = obj(p.prices);
  const rawUnit = prices.currency_minor_unit;
  const unit = typeof rawUnit === 'number' && Number.isInteger(rawUnit) && rawUnit >= 0 && rawUnit <= 4 ? rawUnit : 2;
  const price = minorUnits(prices.price, unit);
  const regular = minorUnits(prices.regular_price, unit) ?? price;
  const sale = minorUnits(prices.sale_price, unit);
  const onSale = regular !== null && sale !== null && sale < regular;
  const available = p.is_in_stock === true && p.is_purchasable !== false;
  const range = prices.price_range ? obj(prices.price_range) : null;
  const min = range ? minorUnits(range.min_amount, unit) : null;
  const max = range ? minorUnits(range.max_amount, unit) : null;

  // a variation names its attribute's term by slug ("100-ml"): the product's attributes give its name
  const termNames = new Map<string, string>();
  for (const a of arr(p.attributes))
    for (const t of arr(obj(a).terms)) {
      const term = obj(t);
      const label = plainName(term.name, 80);
      if (typeof term.slug === 'string' && label) termNames.set(term.slug, label);
    }
  const variations = arr(p.variations).slice(0, MAX_VARIANTS);
  const barcode = barcodeOf(p.global_unique_id);
  const barcodes = variations.map((v) => barcodeOf(obj(v).global_unique_id));
  const labels = variations.map((v) =>
    arr(obj(v).attributes)
      .slice(0, 5)
      .map((a) => {
        const value = obj(a).value;
        if (typeof value !== 'string') return null;
        return termNames.get(value) ?? plainName(slugText(value), 80);
      })
      .filter((x): x is string => !!x)
      .join(' / '),
  );
  let variants: VariantDraft[];
  if (!labels.length) {
    variants = [{ label: '', text: name, price: regular, sale_price: onSale ? sale : null, available, barcode }];
  } else if (min !== null && max !== null && min !== max) {
    const mls = labels.map((l) => mlOf(l));
    const known = mls.filter((m): m is number => m !== null);
    const least = known.length ? Math.min(...known) : null;
    const most = known.length ? Math.max(...known) : null;
    variants = labels.map((label, i) => ({
      label,
      text: label,
      price: mls[i] === null ? null : mls[i] === least ? min : mls[i] === most ? max : null,
      sale_price: null,
      available,
      barcode: barcodes[i],
    }));
  } else {
    variants = labels.map((label, i) => ({
      label,
      text: label,
      price: regular,
      sale_price: onSale ? sale : null,
      available,
      barcode: barcodes[i],
    }));
  }
  return {
    rows: rowsOf(
      {
        id,
        name,
        house,
        currency: currencyOf(prices.currency_code) ?? sourceCurrency(source),
        image_url: safeUrl(obj(arr(p.images)[0]).src, origin),
        product_url: safeUrl(p.permalink, origin),
        description: plainText(p.description) ?? plainText(p.short_description),
        categories: categoriesOf(arr(p.categories).map((c) => obj(c).name)),
        barcode,
      },
      variants,
    ),
  };
}

function nextPage(url: string, count: number, totalPages: string | null): string | null {
  try {
    const u = new URL(url);
    const page = Number(u.searchParams.get('page') ?? '1');
    const current = Number.isSafeInteger(page) && page >= 1 ? page : 1;
    const total = totalPages !== null && /^\d+$/.test(totalPages.trim()) ? Number(totalPages) : null;
    const perPage = Number(u.searchParams.get('per_page') ?? '10');
    const more = total !== null ? current < total : count > 0 && count >= perPage;
    if (!more) return null;
    u.searchParams.set('page', String(current + 1));
    return u.toString();
  } catch {
    return null;
  }
}

export const woocommerce: Connector = {
  kind: 'woocommerce',
  firstUrl: (source) => `${wordpressBase(source.url)}/wp-json/wc/store/v1/products?per_page=${WOO_PAGE_SIZE}&page=1`,
  parse(body, url, source, headers) {
    const json = parseJson(body);
    if (!json.ok) return failedPage(json.reason);
    if (!Array.isArray(json.value)) return failedPage('the page is not a list of products');
    let origin: string;
    try {
      origin = shopOrigin(source.url || url);
    } catch {
      return failedPage('the shop address is not a URL');
    }
    const items = json.value;
    const { rows, rejected } = readItems(items, (p) => readProduct(p, origin, source));
    return { rows, rejected, next: nextPage(url, items.length, header(headers, 'x-wp-totalpages')) };
  },
};
