/**
 * Matching by barcode (docs/learning.md). A barcode is a match key for a perfume when our catalog
 * records it, or when the shops taught it (services/learning.ts): a product carrying one is matched
 * by it when its name does not match confidently. Pure: the keys come in as data.
 */

import type { CatalogSnapshot } from '../catalog/store.ts';
import type { CatalogPerfume } from '../catalog/types.ts';
import { gtinKey } from '../lib/gtin.ts';
import { spellingOf } from './listing.ts';
import { type RecognisedProduct, recogniseProduct } from './recognise.ts';

/** A barcode's perfume, and where we know it from: our catalog, or the shelves of `shops` merchants. */
export interface BarcodeKey {
  perfumeId: string;
  /** merchants whose products taught it; 0 when our catalog records it */
  shops: number;
}

/**
 * A name matched at this confidence or more is never overridden by a barcode, and only such a
 * match (or a pin) teaches one: below it, the barcode decides.
 */
export const CONFIDENT_MATCH = 0.95;

const catalogKeys = new WeakMap<CatalogSnapshot, Map<string, BarcodeKey>>();

/** The barcodes our catalog records, by key (built once per snapshot). */
export function catalogBarcodeKeys(snapshot: CatalogSnapshot): Map<string, BarcodeKey> {
  let keys = catalogKeys.get(snapshot);
  if (!keys) {
    keys = new Map();
    const owners = new Map<string, Set<string>>();
    for (const p of snapshot.perfumes)
      for (const b of p.barcodes) {
        const k = gtinKey(b);
        owners.set(k, (owners.get(k) ?? new Set()).add(p.id));
      }
    // a barcode two records claim is no key for either
    for (const [k, ids] of owners) if (ids.size === 1) keys.set(k, { perfumeId: [...ids][0] as string, shops: 0 });
    catalogKeys.set(snapshot, keys);
  }
  return keys;
}

/** The reason a barcode match gives, as the admin explanation shows it. */
export function barcodeReason(code: string, key: BarcodeKey, perfumeName: string): string {
  const from = key.shops > 0 ? `learnt from ${key.shops} shops` : 'from our catalog';
  return `matched by barcode ${code}, ${from}: ${perfumeName}`;
}

/** The reason a spelling match gives: how many shops pinned the spelling (the operator approved one shop's). */
export function spellingReason(key: BarcodeKey, perfumeName: string): string {
  const from = key.shops >= MIN_TEACHING_SHOPS ? `pinned by ${key.shops} shops` : 'pinned by a shop, approved';
  return `matched by its spelling, ${from}: ${perfumeName}`;
}

/**
 * Each product matched by its barcodes where its name is not matched confidently (nor pinned):
 * the catalog's keys first, then `learnt`. A product whose barcodes point to different perfumes
 * is left as its name matched it. Work: one lookup per barcode of each product.
 */
export function applyBarcodeKeys(
  recognised: readonly RecognisedProduct[],
  learnt: ReadonlyMap<string, BarcodeKey>,
  snapshot: CatalogSnapshot,
): RecognisedProduct[] {
  const own = catalogBarcodeKeys(snapshot);
  return recognised.map((r) => {
    if (r.pinned || (r.match.perfumeId && r.match.confidence >= CONFIDENT_MATCH)) return r;
    let found: { code: string; key: BarcodeKey; keyOf: string; perfume: CatalogPerfume } | null = null;
    const codes = [r.listing.barcode, ...(r.listing.sizes ?? []).map((s) => s.barcode)];
    // the listing's spelling last: a key only when shops pinned it (never our catalog's)
    const spelling = r.spelling === undefined ? spellingOf(r.listing) : r.spelling;
    for (const code of [...codes, spelling]) {
      if (!code) continue;
      const k = code === spelling ? code : gtinKey(code);
      const key = (code === spelling ? undefined : own.get(k)) ?? learnt.get(k);
      // a key for a perfume that has left the catalog names nothing
      const perfume = key && snapshot.byId.get(key.perfumeId);
      if (!key || !perfume) continue;
      if (found && found.perfume !== perfume) return r;
      found ??= { code, key, keyOf: k, perfume };
    }
    if (!found) return r;
    const { perfume } = found;
    const named = `${perfume.name} (${perfume.concentration ?? '?'}) by ${perfume.house}`;
    const byBarcode = recogniseProduct(r.listing, snapshot, {
      status: 'matched',
      perfumeId: perfume.id,
      confidence: 1,
      reason: found.code === spelling ? spellingReason(found.key, named) : barcodeReason(found.code, found.key, named),
      pinned: false,
      sibling: false,
    });
    return { ...byBarcode, matchKey: found.keyOf, ...(r.spelling !== undefined ? { spelling: r.spelling } : {}) };
  });
}

/** Merchants whose products must agree on a barcode's perfume before it is a key for every shop. */
export const MIN_TEACHING_SHOPS = 2;

/**
 * One merchant's products carrying a barcode, matched to one perfume by name confidently (at
 * CONFIDENT_MATCH or more) or pinned: `teaches` when one of them is the product itself (not a
 * sibling version of it).
 */
export interface BarcodeWitness {
  barcode: string;
  merchantId: string;
  perfumeId: string;
  teaches: boolean;
}

export interface BarcodeVerdict {
  barcode: string;
  status: 'key' | 'conflict';
  /** the key's perfume; null for a conflict */
  perfumeId: string | null;
  /** merchants that taught the key; for a conflict, merchants that matched it to any perfume */
  shops: number;
  /** a conflict's perfumes, with how many merchants matched a product carrying it to each (most first) */
  perfumes: { perfume_id: string; shops: number }[] | null;
  merchantIds: string[];
}

/**
 * What the shelves say of each barcode: a key when every confident match of a product carrying it
 * names one perfume and at least MIN_TEACHING_SHOPS merchants teach it; a conflict when confident
 * matches name two perfumes or more; nothing otherwise (one shop's word is not enough).
 */
export function barcodeVerdicts(witnesses: readonly BarcodeWitness[]): BarcodeVerdict[] {
  const by = new Map<string, BarcodeWitness[]>();
  for (const w of witnesses) {
    const list = by.get(w.barcode);
    if (list) list.push(w);
    else by.set(w.barcode, [w]);
  }
  const out: BarcodeVerdict[] = [];
  for (const [barcode, ws] of by) {
    const perfumes = new Map<string, Set<string>>();
    for (const w of ws) perfumes.set(w.perfumeId, (perfumes.get(w.perfumeId) ?? new Set()).add(w.merchantId));
    const merchantIds = [...new Set(ws.map((w) => w.merchantId))].sort();
    if (perfumes.size > 1) {
      out.push({
        barcode,
        status: 'conflict',
        perfumeId: null,
        shops: merchantIds.length,
        perfumes: [...perfumes]
          .map(([perfume_id, shops]) => ({ perfume_id, shops: shops.size }))
          .sort((a, b) => b.shops - a.shops || a.perfume_id.localeCompare(b.perfume_id)),
        merchantIds,
      });
      continue;
    }
    const teachers = new Set(ws.filter((w) => w.teaches).map((w) => w.merchantId));
    if (teachers.size < MIN_TEACHING_SHOPS) continue;
    out.push({
      barcode,
      status: 'key',
      perfumeId: (ws[0] as BarcodeWitness).perfumeId,
      shops: teachers.size,
      perfumes: null,
      merchantIds,
    });
  }
  return out;
}

/** The operator's word on spellings (a pin's, proposed): by spelling key, the perfume approved, and those rejected. */
export interface SpellingReview {
  approved: ReadonlyMap<string, string>;
  rejected: ReadonlyMap<string, ReadonlySet<string>>;
}

/**
 * The verdicts under the operator's review of spellings: a spelling key rejected for its perfume is
 * no key; one approved for a perfume is a key for it on one shop's pin, unless shops pinned it to
 * another perfume too (a conflict stays a conflict).
 */
export function reviewedVerdicts(
  verdicts: readonly BarcodeVerdict[],
  witnesses: readonly BarcodeWitness[],
  review: SpellingReview,
): BarcodeVerdict[] {
  const out = verdicts.filter(
    // a conflict names no perfume: only keys are taken back
    (v) => !(v.perfumeId && review.rejected.get(v.barcode)?.has(v.perfumeId)),
  );
  const judged = new Set(verdicts.map((v) => v.barcode));
  for (const [key, perfumeId] of review.approved) {
    if (judged.has(key)) continue;
    const ws = witnesses.filter((w) => w.barcode === key);
    if (ws.length === 0 || ws.some((w) => w.perfumeId !== perfumeId)) continue;
    const merchantIds = [...new Set(ws.map((w) => w.merchantId))].sort();
    out.push({ barcode: key, status: 'key', perfumeId, shops: merchantIds.length, perfumes: null, merchantIds });
  }
  return out;
}
