/**
 * Merchant product rows: validation of one MerchantProductInput, and the
 * scent profile a product is recommended by. Pure.
 */

import { FAMILIES, resolveTerm } from '../vocabulary/index.ts';
import type { ProductProfile } from './types.ts';

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
}

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
  const house = str(r.house, 200);
  if (!house) return fail('house is required (1–200 characters)');
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
  return {
    ok: true,
    product: {
      merchantProductId,
      name,
      house,
      price,
      currency,
      imageUrl: image.value,
      productUrl: product.value,
      accords: accords.value,
      notes,
    },
  };
}

export interface PerfumeProfileSource {
  families: readonly string[];
  accords: readonly { name: string; weight: number }[];
  notes: { top?: readonly string[]; heart?: readonly string[]; base?: readonly string[] };
  seasons: readonly string[];
  times: readonly string[];
  occasions: readonly string[];
}

/** A matched product takes its perfume's profile. */
export function catalogProfile(p: PerfumeProfileSource): ProductProfile {
  return {
    source: 'catalog',
    families: [...p.families],
    accords: p.accords.map((a) => ({ name: a.name, weight: a.weight })),
    notes: { top: [...(p.notes.top ?? [])], heart: [...(p.notes.heart ?? [])], base: [...(p.notes.base ?? [])] },
    seasons: [...p.seasons],
    times: [...p.times],
    occasions: [...p.occasions],
  };
}

/**
 * An unmatched product's profile from the merchant's hints: accords named by
 * the merchant (in the vocabulary; listed first weighs most), else the notes
 * that are accord words too (rose, oud, vanilla, musk…); families whose own
 * accord is present. Null when the hints give nothing to recommend by.
 */
export function hintProfile(product: Pick<ProductInput, 'accords' | 'notes'>): ProductProfile | null {
  const notes = {
    top: product.notes?.top ?? [],
    heart: product.notes?.heart ?? [],
    base: product.notes?.base ?? [],
  };
  const named = (product.accords ?? [])
    .map((a) => resolveTerm('accord', a))
    .filter((a): a is NonNullable<typeof a> => a !== null);
  const fromNotes = [...notes.top, ...notes.heart, ...notes.base]
    .map((n) => resolveTerm('accord', n))
    .filter((a): a is NonNullable<typeof a> => a !== null);
  const ordered = [...new Set(named.length ? named : fromNotes)].slice(0, 8);
  const hasNotes = notes.top.length + notes.heart.length + notes.base.length > 0;
  if (ordered.length === 0 && !hasNotes) return null;
  const accords = ordered.map((name, i) => ({ name, weight: Math.round(Math.max(0.3, 0.85 ** i) * 100) / 100 }));
  const present = new Map(accords.map((a) => [a.name, a.weight]));
  const families = FAMILIES.filter((f) => present.has(f.accords[0][0]))
    .sort((a, b) => (present.get(b.accords[0][0]) ?? 0) - (present.get(a.accords[0][0]) ?? 0))
    .slice(0, 3)
    .map((f) => f.slug);
  return { source: 'merchant', families, accords, notes, seasons: [], times: [], occasions: [] };
}
