/**
 * What every connector shares: the caps on one page's work, text and URL cleaning, prices, and the
 * variant rule (a shop's variants by size are the sizes of one row; variants by concentration, and
 * testers, samples, gift sets and refills, are rows of their own). Pure.
 */
import { hasArabic, normalizeText } from '../lib/text.ts';
import { MAX_DESCRIPTION_LENGTH } from '../matching/listing.ts';
import { type ProductForm, parseListing } from '../matching/parse.ts';
import type { FeedPage, FeedProblem, FeedRow, FeedSize, ResponseHeaders } from './types.ts';

/** Items read from one page of a paged API (Shopify, WooCommerce); the rest is rejected in one line that counts them. */
export const MAX_ITEMS_PER_PAGE = 1000;
/** A page of a paged API longer than this (in characters) is not read at all. */
export const MAX_PAGE_CHARS = 16_000_000;
/**
 * A feed in one document (Google Merchant Center, CSV, JSON) holds the whole shop: up to the
 * product sync's 50,000 products, in at most 64 million characters (a 20,000-product RSS feed with
 * sizes is about 24 MB).
 */
export const MAX_ITEMS_PER_DOCUMENT = 50_000;
export const MAX_DOCUMENT_CHARS = 64_000_000;
/** Variants read of one product; a shop's product with more is cut here. */
export const MAX_VARIANTS = 100;
/** The product sync's limits (matching/listing.ts): longer text is cut to these. */
export const MAX_ID = 200;
export const MAX_NAME = 300;
export const MAX_HOUSE = 200;
export const MAX_DESCRIPTION = MAX_DESCRIPTION_LENGTH;
export const MAX_URL = 2000;
/** Categories kept of one product, and the length of each. */
export const MAX_CATEGORIES = 30;
export const MAX_CATEGORY = 80;
/** HTML read of a description before its tags are stripped (the plain text is cut to MAX_DESCRIPTION). */
export const MAX_HTML_CHARS = 64_000;
/** A size label's length. */
export const MAX_LABEL = 120;
/** A barcode's length (a GTIN has at most 14 digits: longer text is cut here, and checked by the product sync). */
export const MAX_BARCODE = 40;

export const DEFAULT_FEED_CURRENCY = 'SAR';

/** An empty page that says why nothing on it was read. */
export function failedPage(reason: string): FeedPage {
  return { rows: [], rejected: [{ reason }], next: null, failed: true };
}

/** The items of a page past the cap, as one rejection that counts them. */
export function overCap(total: number, cap = MAX_ITEMS_PER_PAGE): FeedProblem[] {
  return total > cap ? [{ reason: `${total - cap} items past the first ${cap} of this page were not read` }] : [];
}

/** Text cut to `max` characters, trimmed; null when empty or not text. Never splits a surrogate pair. */
export function cut(v: unknown, max: number): string | null {
  if (typeof v === 'number' && Number.isFinite(v)) v = String(v);
  if (typeof v !== 'string') return null;
  let s = v.length > max * 4 ? v.slice(0, max * 4) : v;
  s = s.replace(/\s+/g, ' ').trim();
  if (s.length > max) {
    s = s.slice(0, max);
    if (/[\uD800-\uDBFF]$/.test(s)) s = s.slice(0, -1);
    s = s.trim();
  }
  return s || null;
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  rsquo: '’',
  lsquo: '‘',
  rdquo: '”',
  ldquo: '“',
  eacute: 'é',
  egrave: 'è',
  ocirc: 'ô',
  reg: '®',
  trade: '™',
  copy: '©',
};

/** HTML and XML character references decoded (one pass: `&amp;lt;` is `&lt;`, not `<`). */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8});/gi, (m, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : '';
    }
    return NAMED_ENTITIES[ref.toLowerCase()] ?? m;
  });
}

/** A shop's HTML as plain text: tags, scripts and styles removed, entities decoded, cut to `max`. */
export function plainText(v: unknown, max = MAX_DESCRIPTION): string | null {
  if (typeof v !== 'string' || v === '') return null;
  const text = v
    .slice(0, MAX_HTML_CHARS)
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<\/?(p|div|br|li|ul|ol|h[1-6]|tr|td|table|section)\b[^>]*>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/<[^>]*$/, '');
  return cut(decodeEntities(text), max);
}

/** A plain name: any tags removed and entities decoded (WooCommerce sends `&#8211;` in names). */
export function plainName(v: unknown, max: number): string | null {
  if (typeof v !== 'string' && typeof v !== 'number') return null;
  const s = String(v).slice(0, max * 4);
  return cut(decodeEntities(s.replace(/<[^>]*>/g, ' ')), max);
}

/** An absolute http(s) URL of at most MAX_URL characters, resolved against `base`; else null. */
export function safeUrl(v: unknown, base?: string): string | null {
  if (typeof v !== 'string') return null;
  const s = v.trim();
  if (!s || s.length > MAX_URL) return null;
  try {
    const u = base ? new URL(s, base) : new URL(s);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    const out = u.toString();
    return out.length <= MAX_URL ? out : null;
  } catch {
    return null;
  }
}

/** A shop's own id as text (1–MAX_ID characters), from a string or a safe integer. */
export function idOf(v: unknown): string | null {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? String(v) : null;
  const s = cut(v, MAX_ID + 1);
  return s && s.length <= MAX_ID ? s : null;
}

/** A price as a number ≥ 0 rounded to 2 decimals, from a number or "150.00", "150,00", "1,250.00". */
export function priceOf(v: unknown): number | null {
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string') {
    let s = v.trim();
    if (!s || s.length > 32) return null;
    // "1,250.00" → 1250.00; "150,00" → 150.00
    if (/^\d{1,3}(,\d{3})+(\.\d+)?$/.test(s)) s = s.replaceAll(',', '');
    else s = s.replace(',', '.');
    if (!/^\d+(\.\d+)?$/.test(s)) return null;
    n = Number(s);
  } else return null;
  if (!Number.isFinite(n) || n < 0 || n > 1e9) return null;
  return Math.round(n * 100) / 100;
}

/**
 * A barcode (GTIN, EAN, UPC) as the shop gives it: text trimmed and cut to MAX_BARCODE, a number as
 * its decimal digits; null when there is none. Not checked here: its check digit is the product
 * sync's to check.
 */
export function barcodeOf(v: unknown): string | null {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return null;
    // an integer past 2^53 as its digits, not "1e+21"
    return cut(Number.isInteger(v) ? BigInt(v).toString() : String(v), MAX_BARCODE);
  }
  return cut(v, MAX_BARCODE);
}

/** The regular and sale price from a price and a higher "was" price (Shopify's compare_at_price). */
export function saleOf(price: number | null, was: number | null): { price: number | null; sale_price: number | null } {
  if (price !== null && was !== null && was > price) return { price: was, sale_price: price };
  return { price, sale_price: null };
}

/** An ISO 4217 code, upper case; null when it is not one. */
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));
export function currencyOf(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const c = v.trim().toUpperCase();
  return /^[A-Z]{3}$/.test(c) && CURRENCIES.has(c) ? c : null;
}

/** The currency a source names (SAR when it names none, or none that is one). */
export const sourceCurrency = (source: { currency?: string }): string =>
  currencyOf(source.currency) ?? DEFAULT_FEED_CURRENCY;

/** Categories as the shop names them: trimmed, cut, without repeats, at most MAX_CATEGORIES. */
export function categoriesOf(values: unknown[]): string[] {
  const out: string[] = [];
  for (const v of values.slice(0, MAX_CATEGORIES * 4)) {
    const c = plainName(v, MAX_CATEGORY);
    if (c && !out.includes(c)) out.push(c);
    if (out.length >= MAX_CATEGORIES) break;
  }
  return out;
}

/** A response header's value, its name in any case (several values: the first). */
export function header(headers: ResponseHeaders | undefined, name: string): string | null {
  if (!headers) return null;
  const want = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() !== want || v === undefined) continue;
    return Array.isArray(v) ? (v.length ? v.join(', ') : null) : v;
  }
  return null;
}

/** Common bottle sizes: a size in ounces is read as the nearest of these when within 4%. */
const BOTTLES = [
  1, 2, 3, 5, 7.5, 8, 10, 15, 20, 25, 30, 35, 40, 45, 50, 60, 65, 75, 80, 90, 100, 110, 120, 125, 150, 200,
];
const ML_PER_OZ = 29.5735;

/** The size in millilitres that a label says ("100 ml", "3.4 oz", "١٠٠ مل"), by the listing parser. */
export function mlOf(label: string): number | null {
  const size = parseListing(label).size;
  if (!size || !(size.value > 0)) return null;
  if (size.unit === 'ml') return size.value <= 5000 ? size.value : null;
  const ml = size.value * ML_PER_OZ;
  const near = BOTTLES.find((b) => Math.abs(b - ml) / b <= 0.04);
  return near ?? (ml <= 5000 ? Math.round(ml) : null);
}

/** A product before its variants are read: the fields all its rows share. */
export interface ProductDraft {
  id: string;
  name: string;
  house: string;
  currency: string;
  image_url: string | null;
  product_url: string | null;
  description: string | null;
  categories: string[];
  /** hints passed on as the feed gives them (the product sync validates them) */
  accords?: unknown;
  notes?: unknown;
  /** the product's own barcode, when the feed gives one beside its variants' (barcodeOf) */
  barcode?: string | null;
}

/** One variant (or the product itself when it has none). */
export interface VariantDraft {
  /** the size as the shop names it ("100 ml", "EDP / 50 ml"); '' when it names none */
  label: string;
  /** the words to read the size, concentration and form from (the label, or the item's whole title) */
  text: string;
  price: number | null;
  sale_price: number | null;
  available: boolean;
  /** a variant's own title, when each variant is an item of its own (Google feeds) */
  name?: string | null;
  /** its own id, when each variant is an item of its own */
  id?: string | null;
  image_url?: string | null;
  product_url?: string | null;
  /** its barcode (barcodeOf), when it has one */
  barcode?: string | null;
}

/** Forms that are products of their own, never another size of the full bottle. */
const OWN_ROW_FORMS: ReadonlySet<ProductForm> = new Set(['tester', 'sample', 'gift_set', 'refill']);

const CONCENTRATION_NAMES: Record<string, [en: string, ar: string]> = {
  edp: ['Eau de Parfum', 'أو دو بارفان'],
  edt: ['Eau de Toilette', 'أو دو تواليت'],
  edc: ['Eau de Cologne', 'أو دو كولون'],
  parfum: ['Parfum', 'بارفان'],
  extrait: ['Extrait de Parfum', 'اكستريت دو بارفان'],
  elixir: ['Elixir', 'إكسير'],
  oil: ['Perfume Oil', 'دهن عطري'],
};
const FORM_NAMES: Partial<Record<ProductForm, [en: string, ar: string]>> = {
  tester: ['Tester', 'تستر'],
  sample: ['Sample', 'عينة'],
  gift_set: ['Gift Set', 'طقم هدية'],
  refill: ['Refill', 'ريفيل'],
};

/** A size expression in a title ("100ml", "3.4 oz", "١٠٠ مل"), set aside to name the product its sizes share. */
const SIZE_IN_TITLE =
  /[\s,/(-]*[\d\u0660-\u0669\u06F0-\u06F9]+(?:[.,][\d\u0660-\u0669]+)?\s*(?:ml|fl\.?\s*oz\.?|oz\.?|مل|ملي)(?=\s|$|[^\p{L}])\)?/giu;

function titleWithoutSize(title: string): string {
  return title
    .replace(SIZE_IN_TITLE, ' ')
    .replace(/\s*[-|,/]\s*$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The variant rule: variants that differ only by size are the sizes of one row; those that differ by
 * concentration, and testers, samples, gift sets and refills, make rows of their own, with the id
 * `{productId}:{concentration}` (`:{form}` after it for a tester…). The default size is the first
 * available one, else the first: the row's price and sale price are its; the row is available when
 * any size is. Each size keeps its variant's barcode; the row's is the product's own (when the
 * product is one row), else its default size's.
 */
export function rowsOf(product: ProductDraft, variants: VariantDraft[]): FeedRow[] {
  const groups = new Map<string, { concentration: string | null; form: ProductForm | null; items: VariantDraft[] }>();
  for (const v of variants.slice(0, MAX_VARIANTS)) {
    const parsed = parseListing(v.text);
    const form = OWN_ROW_FORMS.has(parsed.form) ? parsed.form : null;
    const key = `${parsed.concentration ?? ''}:${form ?? ''}`;
    const group = groups.get(key) ?? { concentration: parsed.concentration, form, items: [] };
    group.items.push(v);
    groups.set(key, group);
  }
  const split = groups.size > 1;
  const arabic = hasArabic(product.name);
  const named = parseListing(product.name);
  const rows: FeedRow[] = [];
  for (const { concentration, form, items } of groups.values()) {
    const sizes: FeedSize[] = items.map((v) => {
      const ml = mlOf(v.text);
      // a size without a label of its own is named by its millilitres, else as the one size
      return {
        label: cut(v.label, MAX_LABEL) ?? (ml ? `${ml} ml` : 'one size'),
        ml,
        price: v.price,
        sale_price: v.sale_price !== null && v.price !== null && v.sale_price < v.price ? v.sale_price : null,
        available: v.available,
        ...(v.barcode ? { barcode: v.barcode } : {}),
      };
    });
    const at = Math.max(
      0,
      sizes.findIndex((s) => s.available),
    );
    const first = items[0] as VariantDraft;
    const chosen = sizes[at] as FeedSize;
    const suffix = [concentration, form].filter(Boolean).join(':');
    let name: string;
    // items of one group each name their size ("… 100ml"): the row is named without it
    if (first.name) name = variants.length > 1 ? titleWithoutSize(first.name) || first.name : first.name;
    else {
      const words = [product.name];
      if (split && concentration && named.concentration !== concentration) {
        const n = CONCENTRATION_NAMES[concentration];
        if (n) words.push(arabic ? n[1] : n[0]);
      }
      const f = form ? FORM_NAMES[form] : undefined;
      if (split && f && named.form !== form) words.push(arabic ? f[1] : f[0]);
      name = words.join(' ');
    }
    const own = items[at] ?? first;
    // the product's own barcode names it only when it is one row: split by concentration or form,
    // it would name at most one of them, so each row takes its default size's
    const barcode = (split ? null : product.barcode) || chosen.barcode || null;
    rows.push({
      merchant_product_id: split && suffix ? `${product.id}:${suffix}`.slice(0, MAX_ID) : product.id,
      name: cut(name, MAX_NAME) ?? product.name,
      house: product.house,
      price: chosen.price,
      sale_price: chosen.sale_price,
      currency: product.currency,
      available: sizes.some((s) => s.available),
      sizes,
      image_url: own.image_url ?? first.image_url ?? product.image_url,
      product_url: own.product_url ?? first.product_url ?? product.product_url,
      description: product.description,
      categories: product.categories,
      ...(product.accords !== undefined ? { accords: product.accords as FeedRow['accords'] } : {}),
      ...(product.notes !== undefined ? { notes: product.notes as FeedRow['notes'] } : {}),
      ...(barcode ? { barcode } : {}),
    });
  }
  return rows;
}

/** Reads each item with `read`, never letting one item's error stop the page. */
export function readItems<T>(
  items: unknown[],
  read: (item: T) => { rows: FeedRow[] } | { reason: string; id?: string },
): { rows: FeedRow[]; rejected: FeedProblem[] } {
  const rows: FeedRow[] = [];
  const rejected: FeedProblem[] = [];
  for (const item of items.slice(0, MAX_ITEMS_PER_PAGE)) {
    try {
      const r = read(item as T);
      if ('rows' in r) rows.push(...r.rows);
      else rejected.push(r.id ? { id: r.id, reason: r.reason } : { reason: r.reason });
    } catch (e) {
      rejected.push({ reason: `the item could not be read (${e instanceof Error ? e.message : 'unknown error'})` });
    }
  }
  rejected.push(...overCap(items.length));
  return { rows, rejected };
}

/** A JSON object's field as a record, or an empty one. */
export const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** JSON text parsed, or the reason it could not be. */
export function parseJson(
  body: string,
  maxChars = MAX_PAGE_CHARS,
): { ok: true; value: unknown } | { ok: false; reason: string } {
  if (typeof body !== 'string') return { ok: false, reason: 'the page is not text' };
  if (body.length > maxChars) return { ok: false, reason: `the page is longer than ${maxChars} characters` };
  try {
    return { ok: true, value: JSON.parse(body.replace(/^\uFEFF/, '')) };
  } catch {
    return { ok: false, reason: 'the page is not JSON' };
  }
}

/**
 * A single document's items read one by one and grouped into products: items sharing a group id
 * (Google's item_group_id, a feed's group_id) are the sizes of one product, any other item a
 * product of its own. An item that cannot be read is rejected with why; past the document's cap
 * the rest are counted in one line.
 */
export function groupItems<T extends { id: string; group: string | null }>(
  items: readonly unknown[],
  total: number,
  read: (raw: unknown) => T | FeedProblem,
  noun: 'item' | 'row',
): { groups: T[][]; rejected: FeedProblem[] } {
  const rejected: FeedProblem[] = [];
  const groups = new Map<string, T[]>();
  for (const raw of items.slice(0, MAX_ITEMS_PER_DOCUMENT)) {
    try {
      const r = read(raw);
      if ('reason' in r) {
        rejected.push(r);
        continue;
      }
      const key = r.group ? `group:${r.group}` : `item:${r.id}`;
      const list = groups.get(key) ?? [];
      list.push(r);
      groups.set(key, list);
    } catch (e) {
      rejected.push({ reason: `the ${noun} could not be read (${e instanceof Error ? e.message : 'unknown error'})` });
    }
  }
  rejected.push(...overCap(total, MAX_ITEMS_PER_DOCUMENT));
  return { groups: [...groups.values()], rejected };
}

/** Attribute names that name the house, folded (normalizeText). */
const BRAND_ATTRIBUTES = new Set(
  [
    'brand',
    'brands',
    'house',
    'designer',
    'manufacturer',
    'الماركة',
    'الماركه',
    'ماركة',
    'العلامة التجارية',
    'العلامة',
    'البراند',
    'الشركة المصنعة',
  ].map(normalizeText),
);

/** Whether a product attribute's name says it names the house ("Brand", "الماركة"…). */
export const isBrandAttribute = (name: unknown): boolean =>
  typeof name === 'string' && BRAND_ATTRIBUTES.has(normalizeText(name.slice(0, 60)));
