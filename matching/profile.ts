/**
 * The scent profile a product is recommended by: its perfume's when it is
 * matched, else one built from what the merchant says of it. Pure.
 */
import type { ProductProfile, ProfileBasis } from '../catalog/types.ts';
import { familyAccords, resolveTerm } from '../vocabulary/index.ts';
import { readDescription } from './description.ts';
import type { ProductInput } from './listing.ts';
import { noteContributions, profileOfAccords, topAccords } from './note-profile.ts';

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
 * How far each source of a partial profile is trusted: accords the merchant
 * names, then the notes it lists, then the notes and family words its
 * description gives, then the note and family words of the product's name.
 */
export const BASIS_TRUST: Readonly<Record<Exclude<ProfileBasis, 'answer'>, number>> = {
  accords: 1,
  notes: 0.8,
  description: 0.6,
  name: 0.35,
};
/** a family word lends its family's accords at this share of a note's */
const FAMILY_WORD_SHARE = 0.5;

/** The accords a source gives, the strongest scaled to 1 (empty when it gives none). */
function scaled(sum: ReadonlyMap<string, number>): Map<string, number> {
  return new Map(topAccords(sum).map((a) => [a.name, a.weight]));
}

function addFamilyWords(sum: Map<string, number>, families: readonly string[]): void {
  for (const f of families) {
    const slug = resolveTerm('family', f);
    if (!slug) continue;
    for (const [a, w] of familyAccords(slug)) sum.set(a, (sum.get(a) ?? 0) + FAMILY_WORD_SHARE * w);
  }
}

/**
 * An unmatched product's profile, from what the merchant says of it, in order
 * of trust (BASIS_TRUST): the accords it names (listed first weighs most),
 * the notes it lists (each note lends the accords it is known for, weighted by
 * its tier), its description's notes and family words, and the note and
 * family words of its name. Families, seasons, times and occasions follow
 * from the accords. Null when nothing gives an accord: the product is not
 * recommended rather than recommended at random.
 */
export function partialProfile(
  product: Pick<ProductInput, 'accords' | 'notes' | 'description' | 'name'>,
): ProductProfile | null {
  const sources: [Exclude<ProfileBasis, 'answer'>, Map<string, number>][] = [];

  const named = [
    ...new Set((product.accords ?? []).map((a) => resolveTerm('accord', a)).filter((a) => a !== null)),
  ].slice(0, 8);
  sources.push(['accords', new Map(named.map((a, i) => [a, Math.round(Math.max(0.3, 0.85 ** i) * 100) / 100]))]);

  const listed = product.notes ?? {};
  sources.push(['notes', scaled(noteContributions(listed).sum)]);

  let described: ReturnType<typeof readDescription> | null = null;
  if (product.description) {
    described = readDescription(product.description);
    const { sum } = noteContributions(described.notes);
    addFamilyWords(sum, described.families);
    sources.push(['description', scaled(sum)]);
  }

  const inName = readDescription(product.name);
  const nameSum = noteContributions({
    flat: [...inName.notes.flat, ...inName.notes.top, ...inName.notes.heart, ...inName.notes.base],
  }).sum;
  addFamilyWords(nameSum, inName.families);
  sources.push(['name', scaled(nameSum)]);

  const total = new Map<string, number>();
  const basis: ProfileBasis[] = [];
  for (const [b, accords] of sources) {
    if (accords.size === 0) continue;
    basis.push(b);
    for (const [a, w] of accords) total.set(a, (total.get(a) ?? 0) + BASIS_TRUST[b] * w);
  }
  if (basis.length === 0) return null;
  const derived = profileOfAccords(topAccords(total));
  const hasListed = (listed.top?.length ?? 0) + (listed.heart?.length ?? 0) + (listed.base?.length ?? 0) > 0;
  const notes = hasListed
    ? { top: [...(listed.top ?? [])], heart: [...(listed.heart ?? [])], base: [...(listed.base ?? [])] }
    : // the description's tiers as it states them; notes it names without a tier are in no tier
      described
      ? { top: described.notes.top, heart: described.notes.heart, base: described.notes.base }
      : { top: [], heart: [], base: [] };
  return {
    source: 'merchant',
    basis,
    families: derived.families,
    accords: derived.accords,
    notes,
    seasons: derived.seasons,
    times: derived.times,
    occasions: derived.occasions,
  };
}
