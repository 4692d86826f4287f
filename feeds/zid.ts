/**
 * Zid's Merchant API (docs/feeds.md, docs/platforms.md): `GET {base}/products/?page=N&page_size=50`
 * on `https://api.zid.sa/v1`, with the store's two tokens (`Authorization: Bearer {authorization}`,
 * `X-Manager-Token` and `Access-Token: {access_token}`), its `Store-Id` and `Role: Manager`. The body
 * is `{count, next, previous, results: [product…]}`: the next page is asked while `next` is set (the
 * page number is counted here, never a URL taken from the answer).
 *
 * Names, attribute values and categories are `{ar, en}` objects to a manager: the Arabic is read,
 * else the English. The house is the attribute named brand ("Brand", "الماركة"…), else a `brand`
 * field. A variant is a product of its own with a `parent_id`: those on the page are folded into
 * their parent as its sizes (their attribute values name the size), as are a parent's `variants`;
 * a variant whose parent is not on the page is read as a product. A product's `barcode` is its own,
 * a variant's its size's (a product without variants is one size, with the product's). Unpublished
 * and draft products are not read. Pure.
 */
import {
  arr,
  barcodeOf,
  categoriesOf,
  currencyOf,
  failedPage,
  idOf,
  isBrandAttribute,
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

export const ZID_API = 'https://api.zid.sa/v1';
/** Zid's largest page. */
export const ZID_PAGE_SIZE = 50;

/** The API base of a source: its URL without a trailing slash or `/products`, else Zid's. */
export function zidBase(url: string): string {
  const u = new URL(url.trim() || ZID_API);
  return `${u.origin}${u.pathname.replace(/\/+$/, '').replace(/\/products$/, '')}`;
}

/** Text Zid gives as `{ar, en}` to a manager (or, to others, as plain text): the Arabic, else the English. */
export function localized(v: unknown): unknown {
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const ar = typeof o.ar === 'string' && o.ar.trim() ? o.ar : null;
    return ar ?? (typeof o.en === 'string' && o.en.trim() ? o.en : null);
  }
  return v;
}

/** A count (a stock quantity) from a number or integer text; null when none. */
function countOf(v: unknown): number | null {
  const n = typeof v === 'string' && /^\s*-?\d{1,12}\s*$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
}

/** The house: the attribute named brand, else a `brand` field (a name, or an object with one). */
function houseOf(p: Record<string, unknown>): string | null {
  for (const a of arr(p.attributes).slice(0, 50)) {
    const attr = obj(a);
    if (!isBrandAttribute(localized(attr.name)) && !isBrandAttribute(attr.slug)) continue;
    const name = plainName(localized(attr.value), MAX_HOUSE);
    if (name) return name;
  }
  const brand = p.brand;
  return plainName(localized(typeof brand === 'object' ? obj(brand).name : brand), MAX_HOUSE);
}

/** What names a variant: its attributes' values other than the brand ("100 مل", "EDP"), else its own name. */
function variantLabel(v: Record<string, unknown>): string {
  const values = arr(v.attributes)
    .slice(0, 10)
    .map(obj)
    .filter((a) => !isBrandAttribute(localized(a.name)) && !isBrandAttribute(a.slug))
    .map((a) => plainName(localized(a.value), 80))
    .filter((x): x is string => !!x);
  return values.length ? values.join(' / ') : (plainName(localized(v.name), 120) ?? '');
}

/** In stock: unlimited (`is_infinite`), or a quantity above 0; a quantity Zid does not give is taken as some. */
function inStock(p: Record<string, unknown>): boolean {
  if (p.is_infinite === true) return true;
  const q = countOf(p.quantity);
  return q === null || q > 0;
}

/** The regular price and a sale below it (`sale_price` is null when there is none). */
function pricesOf(p: Record<string, unknown>): { price: number | null; sale_price: number | null } {
  const price = priceOf(p.price);
  const sale = priceOf(p.sale_price);
  return { price, sale_price: price !== null && sale !== null && sale > 0 && sale < price ? sale : null };
}

const hidden = (p: Record<string, unknown>) => p.is_published === false || p.is_draft === true;

function imageOf(p: Record<string, unknown>): string | null {
  const first = arr(p.images)[0];
  if (typeof first === 'string') return safeUrl(first);
  const img = obj(first);
  const sized = obj(img.image);
  return (
    safeUrl(sized.full_size) ?? safeUrl(sized.large) ?? safeUrl(sized.medium) ?? safeUrl(img.url) ?? safeUrl(img.image)
  );
}

type Read = { rows: FeedRow[] } | { reason: string; id?: string };

function readProduct(p: Record<string, unknown>, children: Record<string, unknown>[], source: FeedSource): Read {
  if (hidden(p)) return { rows: [] };
  const id = idOf(p.id);
  if (!id) return { reason: 'the product has no id' };
  const fail = (reason: string) => ({ id, reason });
  const name = plainName(localized(p.name), MAX_NAME);
  if (!name) return fail('the product has no name');
  // no brand: the house is read from the name by the matcher, as a placeholder brand is
  const house = houseOf(p) ?? children.map(houseOf).find(Boolean) ?? '';

  const kids = [...children, ...arr(p.variants).map(obj)].filter((v) => !hidden(v)).slice(0, MAX_VARIANTS);
  const barcode = barcodeOf(p.barcode);
  const variants: VariantDraft[] = kids.length
    ? kids.map((v) => {
        const label = variantLabel(v);
        return {
          label,
          text: [label, name].filter(Boolean).join(' / '),
          ...pricesOf(v),
          available: inStock(v),
          image_url: imageOf(v),
          barcode: barcodeOf(v.barcode),
        };
      })
    : [{ label: '', text: name, ...pricesOf(p), available: inStock(p), barcode }];

  return {
    rows: rowsOf(
      {
        id,
        name,
        house,
        currency: currencyOf(p.currency) ?? currencyOf(kids[0]?.currency) ?? sourceCurrency(source),
        image_url: imageOf(p),
        product_url: safeUrl(p.html_url) ?? safeUrl(p.url),
        description: plainText(localized(p.description)) ?? plainText(localized(p.short_description)),
        categories: categoriesOf(arr(p.categories).map((c) => localized(obj(c).name))),
        barcode,
      },
      variants,
    ),
  };
}

/** A page's products, each variant on the page folded into its parent when the parent is there too. */
function readResults(results: unknown[], source: FeedSource) {
  const items = results.map(obj);
  const ids = new Set(items.map((p) => idOf(p.id)).filter(Boolean));
  const children = new Map<string, Record<string, unknown>[]>();
  const products: Record<string, unknown>[] = [];
  for (const p of items) {
    const parent = idOf(p.parent_id);
    if (parent && ids.has(parent)) {
      const list = children.get(parent) ?? [];
      list.push(p);
      children.set(parent, list);
    } else products.push(p);
  }
  return readItems(products, (p: Record<string, unknown>) =>
    readProduct(p, children.get(idOf(p.id) ?? '') ?? [], source),
  );
}

/** One product as `GET /products/{id}/` answers it (a product webhook's refetch): its rows, none when hidden or unreadable. */
export function zidProductRows(product: unknown, source: FeedSource): FeedRow[] {
  const p = obj(product);
  return readResults([obj(p.product).id ? p.product : p], source).rows;
}

/** The page after `url`: its `page` + 1. */
function nextPage(url: string): string | null {
  try {
    const u = new URL(url);
    const page = Number(u.searchParams.get('page') ?? '1');
    if (!Number.isSafeInteger(page) || page < 1) return null;
    u.searchParams.set('page', String(page + 1));
    return u.toString();
  } catch {
    return null;
  }
}

export const zid: Connector = {
  kind: 'zid',
  firstUrl: (source) => `${zidBase(source.url)}/products/?page=1&page_size=${ZID_PAGE_SIZE}`,
  headers: (source, secret): Record<string, string> => ({
    ...(source.zid ? { Authorization: `Bearer ${source.zid.authorization}`, 'Store-Id': source.zid.storeId } : {}),
    ...(secret ? { 'X-Manager-Token': secret, 'Access-Token': secret } : {}),
    Role: 'Manager',
    'Accept-Language': 'ar',
  }),
  parse(body, url, source) {
    const json = parseJson(body);
    if (!json.ok) return failedPage(json.reason);
    const page = obj(json.value);
    if (!Array.isArray(page.results)) return failedPage('the page has no "results" list of products');
    const { rows, rejected } = readResults(page.results, source);
    const more = typeof page.next === 'string' && page.next !== '' && page.results.length > 0;
    return { rows, rejected, next: more ? nextPage(url) : null };
  },
};
