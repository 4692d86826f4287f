/**
 * A merchant's listing (one MerchantProductInput of a feed or an inline
 * catalog), checked field by field. Pure.
 */

import { gtinKey, MAX_BARCODE_TEXT, readBarcode } from '../lib/gtin.ts';
import { normalizeText } from '../lib/text.ts';
import type { ProductAnswer } from './answers.ts';
import type { ProductKind } from './kind.ts';
import { parseListing } from './parse.ts';

export interface ProductInput {
  merchantProductId: string;
  name: string;
  house: string;
  price: number | null;
  currency: string;
  imageUrl: string | null;
  productUrl: string | null;
  accords: string[] | null;
  notes: { top?: string[]; heart?: string[]; base?: string[] } | null;
  /** the shop's description of the product, where most shops list its notes (plain text, English or Arabic) */
  description: string | null;
  /** false when the shop cannot sell it now (every size sold out): stored, never recommended */
  available: boolean;
  /** the price now, when the shop discounts the product; shoppers are shown it */
  salePrice: number | null;
  /** the sizes the shop sells it in, as a feed lists them (at most MAX_SIZES) */
  sizes: ProductSize[] | null;
  /** the bottle's barcode (GTIN), as its digits, when the shop sent a valid one */
  barcode: string | null;
  /** the barcodes sent that were not read (malformed, a failed check digit…), each with why: never a reason to refuse the product */
  barcodeIssues: string[];
  /** the merchant's own answer for it, stored (matching/answers.ts): never sent in a feed, kept through syncs */
  answer?: ProductAnswer | null;
  /** the merchant's correction of its kind, stored (matching/kind.ts): never sent in a feed, kept through syncs */
  kindOverride?: ProductKind | null;
}

export interface ProductSize {
  label: string;
  ml: number | null;
  price: number | null;
  sale_price: number | null;
  available: boolean;
  /** this size's own barcode, when the shop sent a valid one */
  barcode?: string;
}

/** Most sizes one product lists (a shop sells a perfume in a handful). */
export const MAX_SIZES = 20;

/** A description longer than this is refused: notes are listed in the first few hundred characters. */
export const MAX_DESCRIPTION_LENGTH = 4000;

export const DEFAULT_CURRENCY = 'SAR';
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

export type ValidatedProduct =
  | { ok: true; product: ProductInput }
  | { ok: false; reason: string; merchantProductId?: string };

const str = (v: unknown, max: number): string | null =>
  typeof v === 'string' && v.trim() !== '' && v.trim().length <= max ? v.trim() : null;

function url(v: unknown, field: string): { value: string | null; error?: string } {
  if (v === undefined || v === null || v === '') return { value: null };
  if (typeof v !== 'string' || v.length > 2000)
    return { value: null, error: `${field} must be a URL of at most 2000 characters` };
  try {
    const u = new URL(v);
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      return { value: null, error: `${field} must be an http(s) URL` };
    return { value: u.toString() };
  } catch {
    return { value: null, error: `${field} is not a valid URL` };
  }
}

function stringList(v: unknown, field: string, max = 30): { value: string[] | null; error?: string } {
  if (v === undefined || v === null) return { value: null };
  if (!Array.isArray(v) || v.length > max || !v.every((x) => typeof x === 'string' && x.length <= 80)) {
    return { value: null, error: `${field} must be a list of at most ${max} short strings` };
  }
  const clean = v.map((x: string) => x.trim().toLowerCase()).filter(Boolean);
  return { value: clean };
}

const money = (v: unknown): number | null | undefined =>
  v === undefined || v === null
    ? null
    : typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 1e9
      ? Math.round(v * 100) / 100
      : undefined;

/** A barcode field as sent: left out, read, or ignored with why (pushed onto `issues`). */
function barcodeField(v: unknown, field: string, issues: string[]): string | null {
  if (v === undefined || v === null || v === '') return null;
  const read = readBarcode(v);
  if ('code' in read) return read.code;
  const shown =
    typeof v === 'string' || typeof v === 'number' ? JSON.stringify(String(v).slice(0, MAX_BARCODE_TEXT)) : '';
  issues.push(`${field}${shown ? ` ${shown}` : ''} ${read.reason}: ignored`);
  return null;
}

/** A spelling key (`s:…`) at most this long: a perfume's house, name and concentration. */
export const MAX_SPELLING_LENGTH = 200;

/**
 * A listing's spelling, as a key: its house's and name's words (as the parser reads them: no size,
 * no "tester", digits folded, either script), each once, the house's first, then its concentration:
 * `s:lattafa al noble ameer|edp`, whether the house came in its own field or in the name. What a
 * merchant's pin teaches every shop (docs/learning.md). Null when the name gives no word.
 */
export function spellingOf(listing: Pick<ProductInput, 'name' | 'house'>): string | null {
  const parsed = parseListing(listing.name);
  if (parsed.words.length === 0) return null;
  const words = [...new Set([...normalizeText(listing.house).split(' ').filter(Boolean), ...parsed.words])];
  return `s:${words.join(' ')}|${parsed.concentration ?? ''}`.slice(0, MAX_SPELLING_LENGTH);
}

/** A listing's match keys: its barcodes' (barcodeKeysOf) and its spelling's (given, when it was read already). */
export function listingKeysOf(
  listing: Pick<ProductInput, 'barcode' | 'sizes' | 'name' | 'house'>,
  read?: string | null,
): string[] {
  const spelling = read === undefined ? spellingOf(listing) : read;
  return spelling ? [...barcodeKeysOf(listing), spelling] : barcodeKeysOf(listing);
}

/** The keys of every valid barcode a listing carries (its own and its sizes'), each once. */
export function barcodeKeysOf(listing: Pick<ProductInput, 'barcode' | 'sizes'>): string[] {
  const keys = new Set<string>();
  if (listing.barcode) keys.add(gtinKey(listing.barcode));
  for (const s of listing.sizes ?? []) if (s.barcode) keys.add(gtinKey(s.barcode));
  return [...keys];
}

function sizesOf(v: unknown, issues: string[]): { value: ProductSize[] | null; error?: string } {
  if (v === undefined || v === null) return { value: null };
  if (!Array.isArray(v) || v.length > MAX_SIZES)
    return { value: null, error: `sizes must be a list of at most ${MAX_SIZES}` };
  const out: ProductSize[] = [];
  for (const [i, x] of v.entries()) {
    const o = x && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : null;
    const label = o ? str(o.label, 80) : null;
    const price = o ? money(o.price) : undefined;
    const sale = o ? money(o.sale_price) : undefined;
    const ml = o?.ml === undefined || o?.ml === null ? null : o.ml;
    if (!o || !label || price === undefined || sale === undefined) {
      return { value: null, error: `sizes/${i} must have a label (1–80 characters) and prices ≥ 0` };
    }
    if (ml !== null && (typeof ml !== 'number' || !Number.isFinite(ml) || ml <= 0 || ml > 10_000)) {
      return { value: null, error: `sizes/${i}/ml must be a number of millilitres` };
    }
    if (o.available !== undefined && typeof o.available !== 'boolean') {
      return { value: null, error: `sizes/${i}/available must be true or false` };
    }
    const size: ProductSize = {
      label,
      ml: ml as number | null,
      price,
      sale_price: sale,
      available: o.available !== false,
    };
    const barcode = barcodeField(o.barcode, `sizes/${i}/barcode`, issues);
    if (barcode) size.barcode = barcode;
    out.push(size);
  }
  return { value: out };
}

/** Checks one MerchantProductInput; the reason names the first problem. */
export function validateProductInput(raw: unknown): ValidatedProduct {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    return { ok: false, reason: 'a product must be an object' };
  const r = raw as Record<string, unknown>;
  const rawId =
    typeof r.merchant_product_id === 'number' && Number.isSafeInteger(r.merchant_product_id)
      ? String(r.merchant_product_id)
      : r.merchant_product_id;
  const merchantProductId = str(rawId, 200);
  if (!merchantProductId)
    return { ok: false, reason: 'merchant_product_id is required (a string of 1–200 characters)' };
  const fail = (reason: string): ValidatedProduct => ({ ok: false, reason, merchantProductId });
  const name = str(r.name, 300);
  if (!name) return fail('name is required (1–300 characters)');
  // a house left out or empty is read from the title, as a placeholder's ("N/A", "Brand") is
  let house = '';
  if (r.house !== undefined && r.house !== null) {
    if (typeof r.house !== 'string' || r.house.trim().length > 200)
      return fail('house must be text of at most 200 characters (empty or left out: read from the name)');
    house = r.house.trim();
  }
  let price: number | null = null;
  if (r.price !== undefined && r.price !== null) {
    if (typeof r.price !== 'number' || !Number.isFinite(r.price) || r.price < 0 || r.price > 1e9) {
      return fail('price must be a number ≥ 0');
    }
    price = Math.round(r.price * 100) / 100;
  }
  let currency = DEFAULT_CURRENCY;
  if (r.currency !== undefined && r.currency !== null && r.currency !== '') {
    const c = typeof r.currency === 'string' ? r.currency.trim().toUpperCase() : '';
    if (!/^[A-Z]{3}$/.test(c) || !CURRENCIES.has(c))
      return fail('currency must be an ISO 4217 code such as SAR, AED, USD');
    currency = c;
  }
  const image = url(r.image_url, 'image_url');
  if (image.error) return fail(image.error);
  const product = url(r.product_url, 'product_url');
  if (product.error) return fail(product.error);
  const accords = stringList(r.accords, 'accords');
  if (accords.error) return fail(accords.error);
  let notes: ProductInput['notes'] = null;
  if (r.notes !== undefined && r.notes !== null) {
    if (typeof r.notes !== 'object' || Array.isArray(r.notes))
      return fail('notes must be an object with top, heart and base lists');
    const n = r.notes as Record<string, unknown>;
    notes = {};
    for (const tier of ['top', 'heart', 'base'] as const) {
      const l = stringList(n[tier], `notes.${tier}`);
      if (l.error) return fail(l.error);
      if (l.value) notes[tier] = l.value;
    }
  }
  let description: string | null = null;
  if (r.description !== undefined && r.description !== null && r.description !== '') {
    if (typeof r.description !== 'string' || r.description.length > MAX_DESCRIPTION_LENGTH)
      return fail(`description must be text of at most ${MAX_DESCRIPTION_LENGTH} characters`);
    description = r.description.trim() || null;
  }
  if (r.available !== undefined && r.available !== null && typeof r.available !== 'boolean') {
    return fail('available must be true or false');
  }
  const salePrice = money(r.sale_price);
  if (salePrice === undefined) return fail('sale_price must be a number ≥ 0');
  const barcodeIssues: string[] = [];
  const barcode = barcodeField(r.barcode, 'barcode', barcodeIssues);
  const sizes = sizesOf(r.sizes, barcodeIssues);
  if (sizes.error) return fail(sizes.error);
  return {
    ok: true,
    product: {
      available: r.available !== false,
      salePrice,
      sizes: sizes.value,
      merchantProductId,
      name,
      house,
      price,
      currency,
      imageUrl: image.value,
      productUrl: product.value,
      accords: accords.value,
      notes,
      description,
      barcode,
      barcodeIssues,
    },
  };
}
