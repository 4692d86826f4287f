/**
 * The scent profile a product is recommended by: its perfume's when it is
 * matched, else one built from the merchant's hints. Pure.
 */
import type { ProductProfile } from '../catalog/types.ts';
import { FAMILIES, resolveTerm } from '../vocabulary/index.ts';
import type { ProductInput } from './listing.ts';

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
