/**
 * A perfume's profile as shops describe it (docs/learning.md): the notes that the descriptions of
 * products at least two merchants sell, matched to one perfume, agree on. Pure.
 *
 * Each merchant is one voice (its richest description of the perfume); voices whose texts are
 * copies of one another (the same description pasted by two shops) are one; a note is kept when at
 * least two independent voices give it, so a note only one shop gives is left out.
 */

import type { ProductProfile } from '../catalog/types.ts';
import { normalizeText } from '../lib/text.ts';
import { resolveNote } from '../vocabulary/notes.ts';
import { profileOfItems } from './answers.ts';
import { readDescription } from './description.ts';
import type { ProductInput } from './listing.ts';
import { profileFromNotes } from './note-profile.ts';

/** The notes a shop's product gives (its description and its note hints), by canonical name. */
export interface ShopNotes {
  top: string[];
  heart: string[];
  base: string[];
  /** named without a tier */
  flat: string[];
}

const TIERS = ['top', 'heart', 'base', 'flat'] as const;
type Tier = (typeof TIERS)[number];

/** Notes read from one product at most, per tier: a description lists a handful. */
export const MAX_SHOP_NOTES = 30;

/**
 * The notes one product gives: its listed notes and those its description names, each by its
 * canonical name, each tier's at most MAX_SHOP_NOTES; null when it gives none. Work: one
 * description read (at most 4,000 characters) and one lookup per listed note.
 */
export function shopNotesOf(listing: Pick<ProductInput, 'description' | 'notes'>): ShopNotes | null {
  const out: ShopNotes = { top: [], heart: [], base: [], flat: [] };
  const add = (tier: Tier, name: string) => {
    const slug = resolveNote(name)?.slug;
    if (slug && !out[tier].includes(slug) && out[tier].length < MAX_SHOP_NOTES) out[tier].push(slug);
  };
  for (const tier of ['top', 'heart', 'base'] as const) for (const n of listing.notes?.[tier] ?? []) add(tier, n);
  if (listing.description) {
    const read = readDescription(listing.description);
    for (const tier of TIERS) for (const n of read.notes[tier]) add(tier, n);
  }
  return TIERS.some((t) => out[t].length > 0) ? out : null;
}

/** Values in a text's print (a MinHash of its word triples). */
export const PRINT_SIZE = 64;

/** FNV-1a of a string: 32 bits. */
function fnv(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h;
}

/** The k-th of PRINT_SIZE hashes derived from one (a multiply-xorshift mix of it with k's seed). */
function mix(h: number, k: number): number {
  let x = Math.imul(h ^ Math.imul(k + 1, 0x9e3779b9), 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/**
 * A description's print: for each of PRINT_SIZE seeds, the least hash of its word triples (a
 * MinHash), so two prints agree at about the share of triples the texts share. null for a text
 * too short to tell (under 3 words). Work: bounded by the text's first 4,000 characters.
 */
export function textPrint(text: string | null): number[] | null {
  if (!text) return null;
  const words = normalizeText(text.slice(0, 4000)).split(' ');
  if (words.length < 3) return null;
  const print = new Array<number>(PRINT_SIZE).fill(0xffffffff);
  for (let i = 0; i + 2 < words.length; i++) {
    const base = fnv(`${words[i]} ${words[i + 1]} ${words[i + 2]}`);
    for (let k = 0; k < PRINT_SIZE; k++) {
      const h = mix(base, k);
      if (h < (print[k] as number)) print[k] = h;
    }
  }
  // as PostgreSQL's integers keep them (signed): only equality is ever asked of them
  return print.map((h) => h | 0);
}

/** Two texts whose prints agree at this share or more are copies of one another. */
export const COPY_SIMILARITY = 0.75;

export function printSimilarity(a: readonly number[], b: readonly number[]): number {
  let same = 0;
  for (let k = 0; k < PRINT_SIZE; k++) if (a[k] === b[k]) same++;
  return same / PRINT_SIZE;
}

/** One merchant's description of a perfume, as learning reads it. */
export interface ShopVoice {
  merchantId: string;
  notes: ShopNotes;
  print: readonly number[] | null;
}

/** Independent descriptions that must agree before a perfume has a profile from shops. */
export const MIN_SHOPS = 2;
/** Notes they must agree on: fewer is too thin a profile to recommend by. */
export const MIN_AGREED_NOTES = 2;

export interface AgreedNotes {
  notes: { top: string[]; heart: string[]; base: string[]; flat: string[] };
  /** independent descriptions counted (copies once) */
  shops: number;
}

const noteCount = (n: ShopNotes) => TIERS.reduce((s, t) => s + n[t].length, 0);

/** > 0 when `a` gives more notes than `b`; of two as rich, the first in a fixed order, whatever order they came in. */
const richer = (a: ShopVoice, b: ShopVoice) =>
  noteCount(a.notes) - noteCount(b.notes) || JSON.stringify(b).localeCompare(JSON.stringify(a));

/**
 * The notes independent shops agree on, or null. One voice per merchant (its richest); copies
 * (COPY_SIMILARITY) are one voice; a note is kept when MIN_SHOPS voices give it, in the tier most
 * of them give it (a tier over none; ties: base, heart, top); at least MIN_AGREED_NOTES notes.
 */
export function agreedNotes(voices: readonly ShopVoice[]): AgreedNotes | null {
  const best = new Map<string, ShopVoice>();
  for (const v of voices) {
    const had = best.get(v.merchantId);
    if (!had || richer(v, had) > 0) best.set(v.merchantId, v);
  }
  // copies are one voice: a voice joins the first earlier one it copies
  const independent: ShopVoice[] = [];
  for (const v of [...best.values()].sort((a, b) => a.merchantId.localeCompare(b.merchantId))) {
    const copied =
      v.print && independent.some((u) => u.print && printSimilarity(u.print, v.print as number[]) >= COPY_SIMILARITY);
    if (!copied) independent.push(v);
  }
  const votes = new Map<string, { voices: number; tiers: Record<Tier, number> }>();
  for (const v of independent) {
    const seen = new Set<string>();
    for (const tier of TIERS)
      for (const n of v.notes[tier]) {
        const e = votes.get(n) ?? { voices: 0, tiers: { top: 0, heart: 0, base: 0, flat: 0 } };
        if (!seen.has(n)) e.voices++;
        seen.add(n);
        e.tiers[tier]++;
        votes.set(n, e);
      }
  }
  const notes: AgreedNotes['notes'] = { top: [], heart: [], base: [], flat: [] };
  let kept = 0;
  for (const [n, e] of [...votes].sort((a, b) => a[0].localeCompare(b[0]))) {
    if (e.voices < MIN_SHOPS) continue;
    const tiered = (['base', 'heart', 'top'] as const).reduce<Tier>(
      (t, u) => (e.tiers[u] > (t === 'flat' ? 0 : e.tiers[t]) ? u : t),
      'flat',
    );
    notes[tiered].push(n);
    kept++;
  }
  return kept >= MIN_AGREED_NOTES ? { notes, shops: independent.length } : null;
}

/**
 * The profile a perfume is recommended by when shops agree on its notes (quality `shops`), and on
 * accords where merchants' answers in force give some (matching/answers.ts).
 */
export function shopsProfile(agreed: AgreedNotes, accords: readonly string[] = []): ProductProfile {
  const tiered = { top: agreed.notes.top, heart: agreed.notes.heart, base: agreed.notes.base };
  if (accords.length > 0) {
    const all = TIERS.flatMap((t) => agreed.notes[t]);
    const withAccords = profileOfItems(all, accords, 'shops', tiered);
    if (withAccords) return withAccords;
  }
  const p = profileFromNotes(agreed.notes);
  return {
    source: 'shops',
    families: p.families,
    accords: p.accords,
    // notes named without a tier are scored (profileFromNotes) but shown in no tier
    notes: { top: agreed.notes.top, heart: agreed.notes.heart, base: agreed.notes.base },
    seasons: p.seasons,
    times: p.times,
    occasions: p.occasions,
  };
}

/** A perfume's profile from shops and how many independent descriptions it rests on. */
export interface ShopProfile {
  profile: ProductProfile;
  shops: number;
}
