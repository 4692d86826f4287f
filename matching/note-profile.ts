/**
 * A scent profile from notes, the way a perfumer reads a pyramid: each note
 * lends the accords it is known for (vocabulary/notes.ts), weighted by its
 * tier — base notes last and dominate the dry-down, top notes fade — and the
 * families, seasons, times of day and occasions follow from the accords by
 * the same leans the scoring engine uses. Pure.
 */
import type { AccordWeight } from '../catalog/types.ts';
import { OCCASION_LEANS, OCCASION_TIME, OCCASIONS_WORN_AS, SEASON_LEANS } from '../scoring/affinities.ts';
import { type AccordSlug, FAMILIES, type OccasionSlug, type SeasonSlug, type TimeSlug } from '../vocabulary/index.ts';
import { type NoteIndex, type NoteRecord, noteIndex, resolveNote } from '../vocabulary/notes.ts';

export interface NoteList {
  top?: readonly string[];
  heart?: readonly string[];
  base?: readonly string[];
  /** notes given without a tier ("Notes: oud, rose, saffron") */
  flat?: readonly string[];
}

export type Tier = keyof NoteList;

/**
 * How much a note of each tier lends: a base note is smelt for hours, a
 * heart note for the middle of the wear, a top note for its first minutes.
 * A note given without a tier counts as a heart note.
 */
export const TIER_WEIGHT: Readonly<Record<Tier, number>> = { top: 0.6, heart: 0.85, base: 1, flat: 0.85 };
/**
 * Several notes lending one accord add up with diminishing returns: the
 * strongest lends in full, the next ACCUMULATION times its share, the next
 * ACCUMULATION² … — five woods make a woody perfume, not five times one.
 */
export const ACCUMULATION = 0.7;

/**
 * How loudly an accord speaks in a profile, beside how much the notes lend
 * it: the same notes described by our catalog put material accords (oud,
 * tobacco, leather, iris) and some characters (aromatic, warm spicy, marine,
 * aldehydic) before the ones many notes lend a little of (woody facets such
 * as cedar, sandalwood, vetiver; earthy, mossy, incense, cardamom). Fitted
 * on half of the shipped catalog and measured on the other half
 * (bench/notes-calibrate.ts, docs/notes.md); an accord not listed is 1.
 */
export const ACCORD_SALIENCE: Readonly<Partial<Record<AccordSlug, number>>> = {
  citrus: 1.5,
  fresh: 0.85,
  aromatic: 2,
  herbal: 0.25,
  lavender: 1.5,
  mint: 1.5,
  tea: 1.2,
  aquatic: 1.5,
  marine: 1.5,
  mineral: 1.5,
  aldehydic: 2.5,
  floral: 0.85,
  rose: 1.2,
  iris: 1.5,
  'orange blossom': 0.7,
  fruity: 1.5,
  tropical: 1.5,
  cherry: 3,
  coconut: 1.5,
  sweet: 0.85,
  caramel: 1.2,
  honey: 1.5,
  chocolate: 0.35,
  coffee: 2,
  almond: 1.5,
  lactonic: 0.85,
  boozy: 2,
  'warm spicy': 2.5,
  saffron: 1.2,
  cinnamon: 0.25,
  cardamom: 0.25,
  oud: 1.5,
  sandalwood: 0.25,
  cedar: 0.7,
  vetiver: 0.25,
  patchouli: 0.25,
  mossy: 0.85,
  earthy: 0.25,
  balsamic: 0.7,
  smoky: 0.85,
  leather: 1.2,
  tobacco: 1.5,
  animalic: 0.25,
  musky: 0.85,
};

/** accords a profile keeps (the engine reads eight) */
export const PROFILE_ACCORDS = 8;
/** an accord under this share of the strongest is not part of the profile */
export const MIN_ACCORD_SHARE = 0.15;
/** notes read per tier: no real pyramid lists more */
export const MAX_NOTES_PER_TIER = 40;

export interface AccordProfile {
  accords: AccordWeight[];
  families: string[];
  seasons: SeasonSlug[];
  times: TimeSlug[];
  occasions: OccasionSlug[];
}

export interface NoteProfile extends AccordProfile {
  /** the notes understood, as their canonical names, by tier */
  known: { tier: Tier; slug: string }[];
  /** the names given that are no note we know: ignored, never guessed */
  unknown: string[];
}

const round = (x: number) => Math.round(x * 100) / 100;

/**
 * The strongest accords of a sum of contributions, the strongest scaled to 1;
 * ties go to the accord named first alphabetically, so the result never
 * depends on the order the notes were given in.
 */
export function rankAccords(sum: ReadonlyMap<string, number>): AccordWeight[] {
  const max = Math.max(0, ...sum.values());
  if (max <= 0) return [];
  return [...sum]
    .filter(([, w]) => w > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([name, w]) => ({ name, weight: w / max }));
}

/** The profile's accords: the first PROFILE_ACCORDS of the ranking, at least MIN_ACCORD_SHARE of the strongest. */
export function topAccords(sum: ReadonlyMap<string, number>): AccordWeight[] {
  return rankAccords(sum)
    .filter((a) => a.weight >= MIN_ACCORD_SHARE)
    .slice(0, PROFILE_ACCORDS)
    .map((a) => ({ name: a.name, weight: round(a.weight) }));
}

/** How well an accord profile meets a list of leans (0–1). */
function leanScore(accords: ReadonlyMap<string, number>, lean: readonly (readonly [AccordSlug, number])[]): number {
  let total = 0;
  let weight = 0;
  for (const [a, w] of lean) {
    total += w * (accords.get(a) ?? 0);
    weight += w;
  }
  return weight ? total / weight : 0;
}

/** the leans within this share of the best one are kept (seasons, occasions, families) */
const NEAR_BEST = 0.6;

function nearBest<T extends string>(scores: [T, number][], max: number): T[] {
  const best = Math.max(0, ...scores.map(([, s]) => s));
  if (best <= 0) return [];
  return scores
    .filter(([, s]) => s >= best * NEAR_BEST)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, max)
    .map(([k]) => k);
}

/**
 * Families, seasons, times of day and occasions of an accord profile: the
 * families, seasons and occasions whose leans it meets within 60% of the best
 * one (at most 3 families, 3 seasons, 4 occasions); the times of day those
 * occasions are worn at, both when they say neither.
 */
export function profileOfAccords(accords: readonly AccordWeight[]): AccordProfile {
  const byName = new Map(accords.map((a) => [a.name, a.weight]));
  if (byName.size === 0) return { accords: [], families: [], seasons: [], times: [], occasions: [] };
  const families = nearBest(
    FAMILIES.map((f) => [f.slug, leanScore(byName, f.accords as readonly (readonly [AccordSlug, number])[])]),
    3,
  );
  const seasons = nearBest(
    (Object.keys(SEASON_LEANS) as SeasonSlug[]).map((s) => [s, leanScore(byName, SEASON_LEANS[s])]),
    3,
  );
  const occasions = nearBest(
    (Object.keys(OCCASION_LEANS) as OccasionSlug[])
      .filter((o) => !OCCASIONS_WORN_AS[o])
      .map((o) => [o, leanScore(byName, OCCASION_LEANS[o])]),
    4,
  );
  const times = [...new Set(occasions.map((o) => OCCASION_TIME[o]).filter((t): t is TimeSlug => t !== null))];
  return {
    accords: [...accords],
    families,
    seasons,
    times: times.length ? times.sort() : ['day', 'night'],
    occasions,
  };
}

/** Notes resolved, each with its tier: a note twice in one tier is there once. */
export function resolveNotes(
  notes: NoteList,
  index: NoteIndex = noteIndex(),
): { known: { tier: Tier; note: NoteRecord }[]; unknown: string[] } {
  const known: { tier: Tier; note: NoteRecord }[] = [];
  const unknown: string[] = [];
  for (const tier of ['top', 'heart', 'base', 'flat'] as const) {
    const seen = new Set<string>();
    for (const name of (notes[tier] ?? []).slice(0, MAX_NOTES_PER_TIER)) {
      const note = resolveNote(name, index);
      if (!note) unknown.push(name);
      else if (!seen.has(note.slug)) {
        seen.add(note.slug);
        known.push({ tier, note });
      }
    }
  }
  return { known, unknown };
}

/**
 * What resolved notes lend each accord: tier weight × the note's weight for
 * it × the accord's salience, added up strongest first with diminishing
 * returns (ACCUMULATION).
 */
export function accordSums(
  notes: readonly { tier: Tier; note: NoteRecord }[],
  salience: Readonly<Partial<Record<string, number>>> = ACCORD_SALIENCE,
): Map<string, number> {
  const lent = new Map<string, number[]>();
  for (const { tier, note } of notes) {
    for (const [a, w] of Object.entries(note.accords)) {
      const share = TIER_WEIGHT[tier] * (w as number) * (salience[a] ?? 1);
      const list = lent.get(a);
      if (list) list.push(share);
      else lent.set(a, [share]);
    }
  }
  const sum = new Map<string, number>();
  for (const [a, shares] of lent) {
    // strongest first, whatever order the notes came in
    shares.sort((x, y) => y - x);
    let total = 0;
    let factor = 1;
    for (const share of shares) {
      total += factor * share;
      factor *= ACCUMULATION;
    }
    sum.set(a, total);
  }
  return sum;
}

/** The accord contributions of a note list, summed: what topAccords ranks. */
export function noteContributions(
  notes: NoteList,
  index: NoteIndex = noteIndex(),
): { sum: Map<string, number>; known: NoteProfile['known']; unknown: string[] } {
  const { known, unknown } = resolveNotes(notes, index);
  return { sum: accordSums(known), known: known.map((k) => ({ tier: k.tier, slug: k.note.slug })), unknown };
}

/** The profile a note pyramid (or a flat list) makes. Unknown notes are ignored, not guessed. */
export function profileFromNotes(notes: NoteList, index: NoteIndex = noteIndex()): NoteProfile {
  const { sum, known, unknown } = noteContributions(notes, index);
  return { ...profileOfAccords(topAccords(sum)), known, unknown };
}
