/**
 * The scoring engine: a shopper's taste against products' scent profiles.
 * Pure and synchronous; plain data in, plain data out.
 *
 * Products are compiled once (per catalog version) into column arrays — up to
 * eight accord indexes and weights each, and bit masks of families, seasons,
 * times of day and occasions — so a quiz scores 10,000 products in a tight
 * loop, and the best are picked without sorting them all.
 */
import { MAX_REFERENCE_PERFUMES } from '../contracts/limits.ts';
import type { ProductKind } from '../matching/kind.ts';
import { ACCORDS, FAMILIES, familyAccords, OCCASIONS, RATINGS, SEASONS, TIMES } from '../vocabulary/index.ts';
import { OCCASION_LEANS, OCCASION_TIME, OCCASIONS_WORN_AS, SEASON_LEANS } from './affinities.ts';
import type { Quiz } from './quiz.ts';

const ACCORD_INDEX = new Map<string, number>(ACCORDS.map((a, i) => [a.slug, i]));
const FAMILY_BIT = new Map<string, number>(FAMILIES.map((f, i) => [f.slug, 1 << i]));
const SEASON_BIT = new Map<string, number>(SEASONS.map((s, i) => [s.slug, 1 << i]));
const TIME_BIT = new Map<string, number>(TIMES.map((t, i) => [t.slug, 1 << i]));
const OCCASION_BIT = new Map<string, number>(OCCASIONS.map((o, i) => [o.slug, 1 << i]));
const RATING_WEIGHT = new Map<string, number>(RATINGS.map((r) => [r.slug, r.weight]));
const N_ACCORDS = ACCORDS.length;
const SLOTS = 8;
const ACCORD_WORDS = Math.ceil(N_ACCORDS / 32);
/** the engine's loop compares every product with this many loved perfumes at once (the quiz's most) */
const REFS = MAX_REFERENCE_PERFUMES;

/**
 * An accord is prominent in a product — among what a shopper smells and a shop
 * would name — when it is one of the product's three strongest or weighs half
 * of the strongest or more. A product in which an accord the shopper avoids is
 * prominent is never recommended; one in which a loved accord is prominent
 * ranks before those in which none is.
 */
export const PROMINENT_RANK = 3;
export const PROMINENT_WEIGHT = 0.5;

/** A product as the engine sees it: its profile and how to tell it apart from near-twins. */
export interface ScoringProfile {
  families: readonly string[];
  accords: readonly { name: string; weight: number }[];
  seasons: readonly string[];
  times: readonly string[];
  occasions: readonly string[];
}

export interface ProductMatrix {
  size: number;
  accordIndex: Uint8Array;
  accordWeight: Float32Array;
  weightSum: Float32Array;
  familyMask: Uint32Array;
  seasonMask: Uint8Array;
  timeMask: Uint8Array;
  occasionMask: Uint32Array;
  /** each product's prominent accords (PROMINENT): a bit per accord, ACCORD_WORDS words a product */
  prominent: Uint32Array;
  /** for whom each product is made: 1 men, 2 women, 3 unisex or not known (WEARER_BIT) */
  wearer: Uint8Array;
  /** each product's kind as a bit (KIND_BIT): a spray, an oil, bakhoor… */
  kindBit: Uint8Array;
  /** 1 when a product holds no alcohol: an oil, bakhoor or oud wood, or its listing says so */
  alcoholFree: Uint8Array;
  /** what the shopper pays, NaN when the shop gives no price */
  price: Float64Array;
  /** how long each product is estimated to last in heat (scoring/heat.ts LASTING_LEVEL): 0 short, 1 moderate, 2 long */
  lasting: Uint8Array;
  /** products of one perfume line (flankers, concentrations) share a key */
  lineKey: Int32Array;
  houseKey: Int32Array;
  /** each product's accord vector length (√Σw²), for the cosine with a loved perfume */
  accordNorm: Float32Array;
  /** 1 / √(product i's notes), 0 for a product without notes */
  noteScale: Float32Array;
  /** product i's notes are noteIds[noteStart[i] .. noteStart[i + 1]), each once */
  noteStart: Uint32Array;
  noteIds: Uint32Array;
  /** the note keys of these products, numbered */
  noteNumber: ReadonlyMap<string, number>;
}

/** The positions of the prominent weights: the three strongest (equal weights: the earlier listed first) and any at 0.5 or more. */
function prominentOf(weights: readonly number[]): number[] {
  return weights
    .map((_, s) => s)
    .sort((a, b) => (weights[b] as number) - (weights[a] as number) || a - b)
    .filter((s, r) => r < PROMINENT_RANK || (weights[s] as number) >= PROMINENT_WEIGHT);
}

const mask = (values: readonly string[], bits: Map<string, number>) => {
  let m = 0;
  for (const v of values) m |= bits.get(v) ?? 0;
  return m;
};

/** per occasion of the calendar (OCCASIONS_WORN_AS): its bit, and the bits of the occasions it is worn as */
const WORN_AS: readonly [number, number][] = Object.entries(OCCASIONS_WORN_AS).map(([o, as]) => [
  OCCASION_BIT.get(o) as number,
  mask(as ?? [], OCCASION_BIT),
]);

/** Compiles products once; `line` and `house` group near-twins for diversity. */
/** A product's wearer as bits: a shopper's wearer bit must be among them. */
const WEARER_BIT = { men: 1, women: 2 } as const;
const wearerBits = (gender: string | null | undefined) =>
  gender === 'men' ? WEARER_BIT.men : gender === 'women' ? WEARER_BIT.women : WEARER_BIT.men | WEARER_BIT.women;

/** A product's kind as a bit, for the shopper's `kinds` (all bits: any kind). */
export const KIND_BIT: Readonly<Record<ProductKind, number>> = {
  spray: 1,
  oil: 2,
  bakhoor: 4,
  oud_wood: 8,
  mist: 16,
  gift_set: 32,
  sample: 64,
  other: 128,
};
/**
 * Kinds that are never "a perfume like" a loved one, nor an alternative to it: bakhoor and oud wood
 * are burnt, a mist is a body or hair mist. They may fit a taste; they are never passed off as the
 * answer to a perfume.
 */
export const NEVER_LIKE_A_PERFUME = KIND_BIT.bakhoor | KIND_BIT.oud_wood | KIND_BIT.mist;
/** kinds that hold no alcohol by what they are: an oil is worn as oil, bakhoor and wood are burnt */
const ALCOHOL_FREE_KINDS: ReadonlySet<ProductKind> = new Set(['oil', 'bakhoor', 'oud_wood']);

export function buildProductMatrix(
  products: readonly {
    profile: ScoringProfile;
    line: string;
    house: string;
    gender?: string | null;
    /** what kind of product it is (matching/kind.ts); a spray when not said */
    kind?: ProductKind;
    /** its listing says it holds no alcohol */
    alcoholFree?: boolean;
    price?: number | null;
    /** how long it is estimated to last in heat (LASTING_LEVEL); moderate when not said */
    lasting?: number;
    /** the notes, as canonical keys (any tier): compared with a loved perfume's */
    notes?: readonly string[];
  }[],
): ProductMatrix {
  const n = products.length;
  const m: ProductMatrix = {
    size: n,
    accordIndex: new Uint8Array(n * SLOTS).fill(255),
    accordWeight: new Float32Array(n * SLOTS),
    weightSum: new Float32Array(n),
    familyMask: new Uint32Array(n),
    seasonMask: new Uint8Array(n),
    timeMask: new Uint8Array(n),
    occasionMask: new Uint32Array(n),
    prominent: new Uint32Array(n * ACCORD_WORDS),
    wearer: new Uint8Array(n),
    kindBit: new Uint8Array(n),
    alcoholFree: new Uint8Array(n),
    price: new Float64Array(n),
    lasting: new Uint8Array(n),
    lineKey: new Int32Array(n),
    houseKey: new Int32Array(n),
    accordNorm: new Float32Array(n),
    noteScale: new Float32Array(n),
    noteStart: new Uint32Array(n + 1),
    noteIds: new Uint32Array(0),
    noteNumber: new Map(),
  };
  const noteNumber = new Map<string, number>();
  const noteIds: number[] = [];
  const lines = new Map<string, number>();
  const houses = new Map<string, number>();
  products.forEach((p, i) => {
    let slot = 0;
    let sum = 0;
    for (const a of p.profile.accords) {
      const idx = ACCORD_INDEX.get(a.name);
      if (idx === undefined || slot >= SLOTS) continue;
      const w = Math.max(0, Math.min(1, a.weight));
      m.accordIndex[i * SLOTS + slot] = idx;
      m.accordWeight[i * SLOTS + slot] = w;
      sum += w;
      slot++;
    }
    m.weightSum[i] = sum;
    let squares = 0;
    for (let s = 0; s < slot; s++) squares += (m.accordWeight[i * SLOTS + s] as number) ** 2;
    m.accordNorm[i] = Math.sqrt(squares);
    const own = new Set<number>();
    for (const note of p.notes ?? []) {
      const id = noteNumber.get(note) ?? noteNumber.set(note, noteNumber.size).size - 1;
      if (!own.has(id)) noteIds.push(id);
      own.add(id);
    }
    m.noteStart[i + 1] = noteIds.length;
    m.noteScale[i] = own.size ? 1 / Math.sqrt(own.size) : 0;
    for (const s of prominentOf(Array.from(m.accordWeight.subarray(i * SLOTS, i * SLOTS + slot)))) {
      const idx = m.accordIndex[i * SLOTS + s] as number;
      const word = i * ACCORD_WORDS + (idx >> 5);
      m.prominent[word] = (m.prominent[word] as number) | (1 << (idx & 31));
    }
    m.familyMask[i] = mask(p.profile.families, FAMILY_BIT);
    m.seasonMask[i] = mask(p.profile.seasons, SEASON_BIT);
    m.timeMask[i] = mask(p.profile.times, TIME_BIT);
    let occasions = mask(p.profile.occasions, OCCASION_BIT);
    for (const [bit, as] of WORN_AS) if (occasions & as) occasions |= bit;
    m.occasionMask[i] = occasions;
    m.wearer[i] = wearerBits(p.gender);
    const kind = p.kind ?? 'spray';
    m.kindBit[i] = KIND_BIT[kind];
    m.alcoholFree[i] = p.alcoholFree === true || ALCOHOL_FREE_KINDS.has(kind) ? 1 : 0;
    m.price[i] = typeof p.price === 'number' ? p.price : Number.NaN;
    m.lasting[i] = p.lasting ?? 1;
    m.lineKey[i] = lines.get(p.line) ?? lines.set(p.line, lines.size).size - 1;
    m.houseKey[i] = houses.get(p.house) ?? houses.set(p.house, houses.size).size - 1;
  });
  m.noteIds = Uint32Array.from(noteIds);
  m.noteNumber = noteNumber;
  return m;
}

/**
 * A perfume the shopper named as loved or disliked (an extension of the
 * interface's quiz): its profile, compared with each product's.
 */
export interface ReferencePerfume {
  id: string;
  name: string;
  house: string;
  families: readonly string[];
  accords: readonly { name: string; weight: number }[];
  /** canonical note keys, as the products' */
  notes: readonly string[];
}

/** The shopper's taste: one value per accord in [-1, 1], and what the quiz asked for. */
export interface Taste {
  values: Float32Array;
  /** accords rated avoid: a product dominated by one ranks below every other */
  avoided: Uint8Array;
  /** accords rated love */
  loved: Uint8Array;
  /** the same as bits (ACCORD_WORDS words), to test against a product's prominent accords */
  avoidedBits: Uint32Array;
  /**
   * accords rated love or like, and the main accords of each family chosen (unless rated down), as bits:
   * what a product shown as "closest" must hold prominent, if no chosen family or loved perfume is shared
   */
  wantedBits: Uint32Array;
  /** the shopper asked for something a product can share: an accord loved or liked, a family, a loved perfume */
  askedSomething: boolean;
  /** the perfumes the shopper loves (at most MAX_REFERENCE_PERFUMES) */
  lovedPerfumes: readonly ReferencePerfume[];
  /** their accord vectors, each of unit length, accord by accord: loved perfume k's weight of accord a at a × REFS + k */
  lovedAccords: Float32Array;
  /** per accord, the most it weighs in a loved perfume: what loving them says */
  lovedLean: Float32Array;
  dislikedPerfumes: readonly ReferencePerfume[];
  /** the loved perfumes' families: not "other" families for also_explore */
  lovedFamilyMask: number;
  /** families were chosen or accords rated: the quiz says more than the loved perfumes */
  answered: boolean;
  /** the shopper's wearer bit (1 men, 2 women), 0 for no preference */
  wearerBit: number;
  /** the kinds the shopper asked for as KIND_BITs, 0 for any */
  kindMask: number;
  /** only products that hold no alcohol */
  alcoholFreeOnly: boolean;
  /** the price range asked for, [0, Infinity] when none */
  budgetMin: number;
  budgetMax: number;
  /** the shopper wants what lasts in heat: short-lasting products are not shown, long-lasting ones gain HEAT_BONUS */
  lastsInHeat: boolean;
  /** a gift: gift sets gain GIFT_SET_BONUS, decants and samples are not shown (unless asked for by kind) */
  gift: boolean;
  familyMask: number;
  seasonBit: number;
  timeBit: number;
  occasionBit: number;
}

/** Unrated accords stay well below a loved one, so an explicit "love" always says the most. */
const IMPLIED_CAP = 0.6;
const FAMILY_SHARE = 0.6;
const SEASON_SHARE = 0.3;
const OCCASION_SHARE = 0.3;
/** A family's accord of this weight or more is one of what it is made of (oud: oud, woody, smoky, saffron). */
const FAMILY_MAIN = 0.5;

/** The perfumes a quiz names, resolved to their profiles (by the caller: the engine knows no catalog). */
export interface References {
  loved?: readonly ReferencePerfume[];
  disliked?: readonly ReferencePerfume[];
}

/** A named perfume's accords as a product's are scored: those the vocabulary knows, the first eight. */
const scoredAccords = (p: ReferencePerfume) => p.accords.filter((a) => ACCORD_INDEX.has(a.name)).slice(0, SLOTS);

export function buildTaste(quiz: Quiz, references: References = {}): Taste {
  const values = new Float32Array(N_ACCORDS);
  const add = (accord: string, v: number) => {
    const i = ACCORD_INDEX.get(accord);
    if (i !== undefined) values[i] = (values[i] as number) + v;
  };
  for (const f of quiz.families) for (const [a, w] of familyAccords(f)) add(a, FAMILY_SHARE * w);
  if (quiz.season) for (const [a, w] of SEASON_LEANS[quiz.season]) add(a, SEASON_SHARE * w);
  if (quiz.occasion) for (const [a, w] of OCCASION_LEANS[quiz.occasion]) add(a, OCCASION_SHARE * w);
  for (let i = 0; i < N_ACCORDS; i++) values[i] = Math.min(IMPLIED_CAP, values[i] as number);
  const avoided = new Uint8Array(N_ACCORDS);
  const loved = new Uint8Array(N_ACCORDS);
  const wanted = new Uint8Array(N_ACCORDS);
  for (const [accord, rating] of quiz.ratings) {
    const i = ACCORD_INDEX.get(accord) as number;
    const w = RATING_WEIGHT.get(rating) ?? 0;
    // a rating replaces what families and the season implied; "like" never lowers it, "neutral" keeps it
    if (rating === 'neutral') continue;
    values[i] = rating === 'like' ? Math.max(values[i] as number, w) : w;
    if (rating === 'avoid') avoided[i] = 1;
    if (rating === 'love') loved[i] = 1;
    if (rating === 'love' || rating === 'like') wanted[i] = 1;
  }
  // a chosen family's main accords (half its character or more) are wanted too, unless rated down
  for (const f of quiz.families) {
    for (const [a, w] of familyAccords(f)) {
      const i = ACCORD_INDEX.get(a);
      if (w >= FAMILY_MAIN && i !== undefined && (values[i] as number) > 0) wanted[i] = 1;
    }
  }
  const lovedPerfumes = (references.loved ?? []).slice(0, MAX_REFERENCE_PERFUMES);
  const dislikedPerfumes = (references.disliked ?? []).slice(0, MAX_REFERENCE_PERFUMES);
  const lovedAccords = new Float32Array(N_ACCORDS * REFS);
  const lovedLean = new Float32Array(N_ACCORDS);
  const lovedProminent = new Set<string>();
  lovedPerfumes.forEach((p, k) => {
    const accords = scoredAccords(p);
    const norm = Math.sqrt(accords.reduce((s, a) => s + Math.max(0, Math.min(1, a.weight)) ** 2, 0)) || 1;
    for (const a of accords) {
      const i = ACCORD_INDEX.get(a.name) as number;
      const w = Math.max(0, Math.min(1, a.weight));
      lovedAccords[i * REFS + k] = w / norm;
      lovedLean[i] = Math.max(lovedLean[i] as number, w);
    }
    for (const s of prominentOf(accords.map((a) => a.weight))) lovedProminent.add(accords[s]?.name as string);
  });
  // a disliked perfume's distinctive accords — prominent in it, in no loved perfume, not rated — count as disliked
  const rated = new Set<string>(quiz.ratings.map(([a]) => a));
  const dislike = RATING_WEIGHT.get('dislike') as number;
  for (const p of dislikedPerfumes) {
    const accords = scoredAccords(p);
    for (const s of prominentOf(accords.map((a) => a.weight))) {
      const name = accords[s]?.name as string;
      if (!lovedProminent.has(name) && !rated.has(name)) values[ACCORD_INDEX.get(name) as number] = dislike;
    }
  }
  const time = quiz.occasion ? OCCASION_TIME[quiz.occasion] : null;
  const bits = (flags: Uint8Array) => {
    const out = new Uint32Array(ACCORD_WORDS);
    flags.forEach((f, i) => {
      if (f) out[i >> 5] = (out[i >> 5] as number) | (1 << (i & 31));
    });
    return out;
  };
  return {
    values,
    avoided,
    loved,
    avoidedBits: bits(avoided),
    wantedBits: bits(wanted),
    askedSomething: wanted.includes(1) || quiz.families.length > 0 || lovedPerfumes.length > 0,
    lovedPerfumes,
    lovedAccords,
    lovedLean,
    dislikedPerfumes,
    lovedFamilyMask: mask(
      lovedPerfumes.flatMap((p) => p.families),
      FAMILY_BIT,
    ),
    answered: quiz.families.length > 0 || quiz.ratings.length > 0,
    wearerBit: quiz.gender ? WEARER_BIT[quiz.gender] : 0,
    kindMask: (quiz.kinds ?? []).reduce((bits, k) => bits | KIND_BIT[k], 0),
    alcoholFreeOnly: quiz.alcoholFree === true,
    budgetMin: quiz.budget?.min ?? 0,
    budgetMax: quiz.budget?.max ?? Number.POSITIVE_INFINITY,
    lastsInHeat: quiz.lastsInHeat === true,
    gift: quiz.gift === true,
    familyMask: mask(quiz.families, FAMILY_BIT),
    seasonBit: quiz.season ? (SEASON_BIT.get(quiz.season) ?? 0) : 0,
    timeBit: time ? (TIME_BIT.get(time) ?? 0) : 0,
    occasionBit: quiz.occasion ? (OCCASION_BIT.get(quiz.occasion) ?? 0) : 0,
  };
}

/** With lasts_in_heat, a product estimated to last long gains this much (one estimated short is not shown). */
export const HEAT_BONUS = 5;
/** With a gift, a gift set gains this much: a shop's ready gift comes first among equal fits. */
export const GIFT_SET_BONUS = 5;

/** An avoided accord at this weight or more dominates a product. */
export const DOMINANT_WEIGHT = 0.5;

/**
 * Where a product stands before its score: 0 — the very perfume the shopper
 * loves (shown first, and said to be it); 1 — any other, ranked by its score
 * alone, the number the shopper reads; 2 — never shown: an avoided accord is
 * prominent here, it is a perfume the shopper dislikes (or a version of one),
 * or it is made for the other wearer than the shopper asked for (men or
 * women; unisex products, and products whose wearer is not known, are for
 * anyone). A loved accord leads through the score (its weight in the
 * product, `loved`), never past a higher number.
 */
export const TIER_SAME = 0;
export const TIER_BY_SCORE = 1;
export const TIER_NEVER_SHOWN = 2;

/** How a product stands to the perfumes a quiz names (the caller knows catalog identities; the engine does not). */
export const REL_NONE = 0;
/** the loved perfume itself */
export const REL_SAME = 1;
/** another concentration or a flanker of a loved perfume: near, not a discovery */
export const REL_VERSION = 2;
/** a disliked perfume, or a version of one: never shown */
export const REL_DISLIKED = 3;

export interface Relations {
  /** per product: REL_NONE, REL_SAME, REL_VERSION or REL_DISLIKED */
  relation: Uint8Array;
  /** per product of REL_SAME or REL_VERSION: which loved perfume (its position in the taste) */
  of: Uint8Array;
  /** per product: its price where comparable with the prices to beat, NaN otherwise */
  price?: Float64Array;
  /** per loved perfume: the price an alternative "for less" must be under (NaN: none known or asked) */
  forLessThan?: Float64Array;
}

/**
 * Similarity to a loved perfume: the cosine of the accord vectors, and of the
 * note sets (when both have notes), three parts to one. It counts toward the
 * fit from SIMILARITY_ZERO (below it, two perfumes share what most do) and in
 * full from SIMILARITY_FULL.
 */
export const SIMILARITY_ZERO = 0.35;
export const SIMILARITY_FULL = 0.9;
const NOTE_SHARE = 0.25;
const SIMILARITY_SPAN = SIMILARITY_FULL - SIMILARITY_ZERO;
/** An alternative "for less", and a recommendation said to be like a loved perfume, are at least this similar. */
export const CLOSE_SIMILARITY = 0.6;

export interface Scored {
  scores: Uint8Array;
  clash: Uint8Array;
  tier: Uint8Array;
  /**
   * 1 when the product shares something the shopper asked for — a prominent accord loved or liked or
   * main in a chosen family, a chosen family, more than what most perfumes share with a loved one — or
   * the quiz asked for none
   * of these (season and occasion only): a product shown as "closest" must
   */
  shares: Uint8Array;
  /** with loved perfumes: each product's similarity to the closest of them (0–100), and which one */
  similarity: Uint8Array;
  closest: Uint8Array;
}

/**
 * Scores every product: integers 0–100 (50 = indifferent), whether an
 * avoided accord dominates it (weighs 0.5 or more: the score's penalty), and
 * its tier (above). Each product's score and tier depend on that product and
 * the taste only. With loved perfumes, the fit is the similarity to the
 * closest of them; with families or ratings as well, half each.
 */
export function scoreProducts(m: ProductMatrix, t: Taste, rel?: Relations): Scored {
  const scores = new Uint8Array(m.size);
  const clash = new Uint8Array(m.size);
  const tier = new Uint8Array(m.size);
  const shares = new Uint8Array(m.size);
  const similarity = new Uint8Array(m.size);
  const closest = new Uint8Array(m.size);
  const v = t.values;
  const refs = t.lovedPerfumes.length;
  const la = t.lovedAccords;
  // each note of these products: a bit per loved perfume holding it
  const noteBits = new Uint8Array(refs ? m.noteNumber.size : 0);
  // per loved perfume: NOTE_SHARE / √(its notes), 0 when it has none
  const refScale = new Float64Array(REFS);
  for (let k = 0; k < refs; k++) {
    const notes = new Set((t.lovedPerfumes[k] as ReferencePerfume).notes);
    refScale[k] = notes.size ? NOTE_SHARE / Math.sqrt(notes.size) : 0;
    for (const note of notes) {
      const id = m.noteNumber.get(note);
      if (id !== undefined) noteBits[id] = (noteBits[id] as number) | (1 << k);
    }
  }
  const sims = new Float64Array(REFS);
  const relations = rel?.relation;
  for (let i = 0; i < m.size; i++) {
    const base = i * SLOTS;
    let liked = 0;
    let disliked = 0;
    let dominantAvoid = 0;
    let lovedHit = 0;
    // the accord vector's dot product with each loved perfume's (all five at once: zeros past the last)
    let d0 = 0;
    let d1 = 0;
    let d2 = 0;
    let d3 = 0;
    let d4 = 0;
    for (let s = 0; s < SLOTS; s++) {
      const idx = m.accordIndex[base + s] as number;
      if (idx === 255) break;
      const w = m.accordWeight[base + s] as number;
      if (refs) {
        const r = idx * REFS;
        d0 += w * (la[r] as number);
        d1 += w * (la[r + 1] as number);
        d2 += w * (la[r + 2] as number);
        d3 += w * (la[r + 3] as number);
        d4 += w * (la[r + 4] as number);
      }
      const tv = v[idx] as number;
      if (t.loved[idx] && w > lovedHit) lovedHit = w;
      if (tv > 0) liked += w * tv;
      else if (tv < 0) {
        disliked -= w * tv;
        if (t.avoided[idx] && w >= DOMINANT_WEIGHT) dominantAvoid = 1;
      }
    }
    const sum = (m.weightSum[i] as number) || 1;
    const share = liked / sum; // how much of this perfume is what the shopper likes
    const depth = liked >= 2 ? 1 : liked / 2; // how much liked character it delivers
    const family = t.familyMask && (m.familyMask[i] as number) & t.familyMask ? 1 : 0;
    const season = t.seasonBit ? ((m.seasonMask[i] as number) & t.seasonBit ? 1 : 0) : 0.5;
    const occasion = t.occasionBit ? ((m.occasionMask[i] as number) & t.occasionBit ? 1 : 0) : 0.5;
    const time = t.timeBit && m.timeMask[i] ? ((m.timeMask[i] as number) & t.timeBit ? 0 : 0.05) : 0;
    let fit = 0.4 * share + 0.2 * depth + 0.15 * lovedHit + 0.1 * family + 0.075 * season + 0.075 * occasion;
    let likeALoved = false;
    if (refs) {
      // notes shared with each loved perfume
      let n0 = 0;
      let n1 = 0;
      let n2 = 0;
      let n3 = 0;
      let n4 = 0;
      const end = m.noteStart[i + 1] as number;
      for (let j = m.noteStart[i] as number; j < end; j++) {
        const b = noteBits[m.noteIds[j] as number] as number;
        if (b !== 0) {
          n0 += b & 1;
          n1 += (b >> 1) & 1;
          n2 += (b >> 2) & 1;
          n3 += (b >> 3) & 1;
          n4 += (b >> 4) & 1;
        }
      }
      const inv = 1 / ((m.accordNorm[i] as number) || 1);
      const notes = m.noteScale[i] as number;
      // with notes on both sides, a quarter of the similarity is theirs
      const accordShare = notes ? 1 - NOTE_SHARE : 1;
      sims[0] = d0 * inv * (refScale[0] ? accordShare : 1) + n0 * notes * (refScale[0] as number);
      sims[1] = d1 * inv * (refScale[1] ? accordShare : 1) + n1 * notes * (refScale[1] as number);
      sims[2] = d2 * inv * (refScale[2] ? accordShare : 1) + n2 * notes * (refScale[2] as number);
      sims[3] = d3 * inv * (refScale[3] ? accordShare : 1) + n3 * notes * (refScale[3] as number);
      sims[4] = d4 * inv * (refScale[4] ? accordShare : 1) + n4 * notes * (refScale[4] as number);
      let best = sims[0] as number;
      let bestK = 0;
      for (let k = 1; k < refs; k++) {
        if ((sims[k] as number) > best) {
          best = sims[k] as number;
          bestK = k;
        }
      }
      similarity[i] = Math.round(100 * (best >= 1 ? 1 : best));
      closest[i] = bestK;
      likeALoved = best > SIMILARITY_ZERO;
      const close =
        best <= SIMILARITY_ZERO ? 0 : best >= SIMILARITY_FULL ? 1 : (best - SIMILARITY_ZERO) / SIMILARITY_SPAN;
      fit = t.answered ? 0.5 * fit + 0.5 * close : 0.85 * close + 0.075 * season + 0.075 * occasion;
    }
    const against = Math.min(1, (1.5 * disliked) / sum + 0.5 * dominantAvoid + time);
    const kindBit = m.kindBit[i] as number;
    // what the shopper asked beyond taste: what lasts in heat, a gift set for a gift
    const asked =
      (t.lastsInHeat && m.lasting[i] === 2 ? HEAT_BONUS : 0) +
      (t.gift && kindBit === KIND_BIT.gift_set ? GIFT_SET_BONUS : 0);
    const score = 50 + 50 * fit - 60 * against + asked;
    scores[i] = score <= 0 ? 0 : score >= 100 ? 100 : Math.round(score);
    clash[i] = dominantAvoid;
    let avoidedHere = 0;
    let wantedHere = 0;
    for (let w = 0; w < ACCORD_WORDS; w++) {
      const p = m.prominent[i * ACCORD_WORDS + w] as number;
      avoidedHere |= p & (t.avoidedBits[w] as number);
      wantedHere |= p & (t.wantedBits[w] as number);
    }
    shares[i] = !t.askedSomething || wantedHere !== 0 || family === 1 || likeALoved ? 1 : 0;
    const otherWearer = t.wearerBit !== 0 && ((m.wearer[i] as number) & t.wearerBit) === 0;
    const price = m.price[i] as number;
    // what the shopper ruled out: another kind, alcohol, a price outside the budget (or none to compare)
    const ruledOut =
      (t.kindMask !== 0 && (kindBit & t.kindMask) === 0) ||
      (t.lastsInHeat && m.lasting[i] === 0) ||
      // a decant or a sample is no gift, unless the shopper asked for that kind
      (t.gift && kindBit === KIND_BIT.sample && (t.kindMask & KIND_BIT.sample) === 0) ||
      (t.alcoholFreeOnly && m.alcoholFree[i] === 0) ||
      ((t.budgetMin > 0 || t.budgetMax < Number.POSITIVE_INFINITY) && !(price >= t.budgetMin && price <= t.budgetMax));
    const relation = relations ? (relations[i] as number) : REL_NONE;
    tier[i] =
      avoidedHere || otherWearer || ruledOut || relation === REL_DISLIKED
        ? TIER_NEVER_SHOWN
        : relation === REL_SAME
          ? TIER_SAME
          : TIER_BY_SCORE;
  }
  return { scores, clash, tier, shares, similarity, closest };
}

/** The accords that drove a product's score: its liked accords, strongest contribution first. */
export function matchAccords(m: ProductMatrix, t: Taste, i: number, max = 3): string[] {
  const out: [string, number][] = [];
  for (let s = 0; s < SLOTS; s++) {
    const idx = m.accordIndex[i * SLOTS + s] as number;
    if (idx === 255) break;
    // a loved perfume's accords drive a score too, unless the shopper rated them down
    const tv = t.values[idx] as number;
    const c = (m.accordWeight[i * SLOTS + s] as number) * (tv < 0 ? tv : Math.max(tv, t.lovedLean[idx] as number));
    if (c > 0) out.push([ACCORDS[idx]?.slug as string, c]);
  }
  return out
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, max)
    .map(([a]) => a);
}

export interface Ranked {
  index: number;
  score: number;
}

/** Order: by tier (the loved perfume itself first, the never shown last), then score, then the product's position (stable). */
const before = (sa: number, ta: number, ia: number, sb: number, tb: number, ib: number) =>
  ta !== tb ? ta < tb : sa !== sb ? sa > sb : ia < ib;

/** The k best products by the ranking order, without sorting them all. */
export function topK(scores: Uint8Array, tier: Uint8Array, k: number, skip?: (i: number) => boolean): Ranked[] {
  const top: number[] = [];
  for (let i = 0; i < scores.length; i++) {
    if (skip?.(i)) continue;
    const s = scores[i] as number;
    const c = tier[i] as number;
    if (top.length === k) {
      const last = top[k - 1] as number;
      if (!before(s, c, i, scores[last] as number, tier[last] as number, last)) continue;
    }
    // with room left j is top.length: the shift below, or the last line, makes the new place
    let j = Math.min(top.length, k - 1);
    while (j > 0) {
      const prev = top[j - 1] as number;
      if (!before(s, c, i, scores[prev] as number, tier[prev] as number, prev)) break;
      top[j] = prev;
      j--;
    }
    top[j] = i;
  }
  return top.map((i) => ({ index: i, score: scores[i] as number }));
}

/**
 * Keeps the `k` best items seen so far in `best`, best first, as each comes (`ahead`: a goes before
 * b; an item never goes before an equal one already kept): a pass over n items, no sort, at most k
 * kept. For the small lists beside the ranking (layering's bases and sprays, alternatives).
 */
export function keepBest<T>(best: T[], item: T, k: number, ahead: (a: T, b: T) => boolean): void {
  if (best.length === k && !ahead(item, best[k - 1] as T)) return;
  let j = Math.min(best.length, k - 1);
  while (j > 0 && ahead(item, best[j - 1] as T)) {
    best[j] = best[j - 1] as T;
    j--;
  }
  best[j] = item;
}

/**
 * Why a product is in also_explore: a close alternative to a loved perfume at
 * a lower price; a fit from a family not chosen; a weaker fit when few fit;
 * the closest when none does.
 */
export type ExploreReason = 'for_less' | 'other_family' | 'weaker_fit' | 'closest';

export interface Ranking {
  recommendations: Ranked[];
  alsoExplore: (Ranked & { reason: ExploreReason })[];
  /** the scoring behind the ranking: similarity to the loved perfumes, for the explanation */
  scored: Scored;
}

/** Of each loved perfume, at most this many other versions (concentrations, flankers) among the recommendations. */
export const VERSIONS_PER_LOVED = 1;

/** The lowest match_score of a recommendation: 50 is indifferent, so a recommendation is clearly liked. */
export const FIT_FLOOR = 60;
/** A fit from this score on is strong (the widget's badge says so). */
export const STRONG_FIT = 75;
/** Below this, a product is one the shopper would dislike: never shown, not even as the closest. */
export const WEAK_FLOOR = 50;
/** At most this many of one house among the first picks, before the list is filled regardless. */
const PER_HOUSE = 2;
/** also_explore: at most this many discoveries, and this many weaker fits */
const EXPLORE = 3;

/** The band a score falls in, for the badge and wording. */
export const fitOf = (score: number): 'strong' | 'good' | 'weak' =>
  score >= STRONG_FIT ? 'strong' : score >= FIT_FLOOR ? 'good' : 'weak';

/**
 * Picks the recommendations: only products that fit (score FIT_FLOOR or more,
 * no avoided accord prominent), the loved perfume itself first, then by score,
 * the number shown; one product per perfume line and at most two per house
 * while others remain, so six flankers of one perfume don't fill the list —
 * but a version of a loved perfume (up to VERSIONS_PER_LOVED) is held by
 * neither cap, since it is the closest thing to what the shopper named; then
 * the next fitting ones, twins included. The list may be shorter than
 * `limit`: it is never filled with products that do not fit.
 * also_explore: fits from families the shopper did not choose; and, when
 * fewer than `limit` fit, the best weaker products (score WEAK_FLOOR or more,
 * no avoided accord prominent, sharing something asked for), labelled as
 * such — "closest" when none fits.
 */
export function rank(m: ProductMatrix, t: Taste, limit: number, rel?: Relations): Ranking {
  const scored = scoreProducts(m, t, rel);
  const { scores, tier } = scored;
  const versions = new Uint8Array(MAX_REFERENCE_PERFUMES);
  /** a version of a loved perfume past the first: near, so it takes no discovery's place */
  const spareVersion = (i: number) =>
    rel !== undefined &&
    rel.relation[i] === REL_VERSION &&
    (versions[rel.of[i] as number] as number) >= VERSIONS_PER_LOVED;
  const pick = (r: Ranked) => {
    picked.push(r);
    if (rel && rel.relation[r.index] === REL_VERSION) {
      const k = rel.of[r.index] as number;
      versions[k] = (versions[k] as number) + 1;
    }
  };
  const fitting = (i: number) => (tier[i] as number) !== TIER_NEVER_SHOWN && (scores[i] as number) >= FIT_FLOOR;
  // the best limit × 6 + 20 of the products that fit (all of them when there are fewer)
  const pool = topK(scores, tier, limit * 6 + EXPLORE * 4 + 8, (i) => !fitting(i));
  const picked: Ranked[] = [];
  const lines = new Set<number>();
  const houses = new Map<number, number>();
  for (const r of pool) {
    if (picked.length >= limit) break;
    if (spareVersion(r.index)) continue;
    const line = m.lineKey[r.index] as number;
    const house = m.houseKey[r.index] as number;
    const version = rel !== undefined && rel.relation[r.index] === REL_VERSION;
    if (!version && (lines.has(line) || (houses.get(house) ?? 0) >= PER_HOUSE)) continue;
    pick(r);
    lines.add(line);
    houses.set(house, (houses.get(house) ?? 0) + 1);
  }
  // too few distinct products: the next fitting ones, twins included, rather than a shorter answer
  for (const r of pool) {
    if (picked.length >= limit) break;
    if (!picked.includes(r) && !spareVersion(r.index)) pick(r);
  }
  picked.sort((a, b) =>
    before(a.score, tier[a.index] as number, a.index, b.score, tier[b.index] as number, b.index) ? -1 : 1,
  );

  // the lines shown: a recommended product is left out of also_explore with its line
  const usedLines = new Set(picked.map((r) => m.lineKey[r.index] as number));
  const alsoExplore: Ranking['alsoExplore'] = [];
  const prices = rel?.price;
  const beat = rel?.forLessThan;
  if (prices && beat?.some((p) => p > 0)) {
    // close alternatives to a loved perfume, under its price: never the perfume or a version of it
    const cheaper = topK(
      scores,
      tier,
      EXPLORE * 4,
      (i) =>
        !fitting(i) ||
        rel.relation[i] !== REL_NONE ||
        ((m.kindBit[i] as number) & NEVER_LIKE_A_PERFUME) !== 0 ||
        (scored.similarity[i] as number) < CLOSE_SIMILARITY * 100 ||
        !((prices[i] as number) < (beat[scored.closest[i] as number] as number)),
    );
    for (const r of cheaper) {
      if (alsoExplore.length >= EXPLORE) break;
      if (usedLines.has(m.lineKey[r.index] as number)) continue;
      alsoExplore.push({ ...r, reason: 'for_less' });
      usedLines.add(m.lineKey[r.index] as number);
    }
  }
  const discoveries = alsoExplore.length + EXPLORE;
  for (const r of pool) {
    if (alsoExplore.length >= discoveries) break;
    const fam = m.familyMask[r.index] as number;
    if (!fam || fam & (t.familyMask | t.lovedFamilyMask) || usedLines.has(m.lineKey[r.index] as number)) continue;
    alsoExplore.push({ ...r, reason: 'other_family' });
    usedLines.add(m.lineKey[r.index] as number);
  }
  if (picked.length < limit) {
    const reason: ExploreReason = picked.length === 0 ? 'closest' : 'weaker_fit';
    const weaker = topK(
      scores,
      tier,
      EXPLORE * 4,
      (i) =>
        fitting(i) ||
        (tier[i] as number) === TIER_NEVER_SHOWN ||
        (scores[i] as number) < WEAK_FLOOR ||
        scored.shares[i] === 0,
    );
    let added = 0;
    for (const r of weaker) {
      if (added >= EXPLORE) break;
      const line = m.lineKey[r.index] as number;
      if (usedLines.has(line)) continue;
      alsoExplore.push({ ...r, reason });
      usedLines.add(line);
      added++;
    }
  }
  return { recommendations: picked, alsoExplore, scored };
}

/**
 * Summary of the taste, as vocabulary slugs the widget shows with its
 * locale's labels. It reports the shopper: `top_accords` are the accords
 * loved, then liked (up to five); `dominant_families` the families chosen;
 * `avoid_accords` those avoided, then disliked; `loved_perfumes` and
 * `disliked_perfumes` the perfumes named, when any. What the answers only
 * imply (the accords the loved perfumes, chosen families, season and occasion
 * lean to, the families of the loved perfumes and those the taste leans to) is
 * in `inferred`, present only when it holds something.
 */
export function tasteSummary(quiz: Quiz, t: Taste) {
  const rated = new Set<string>(quiz.ratings.map(([a]) => a));
  const said = (rating: string) =>
    quiz.ratings
      .filter(([, r]) => r === rating)
      .map(([a]) => a)
      .sort();
  const top = [...said('love'), ...said('like')].slice(0, 5);
  const families: string[] = quiz.families.slice(0, 3);
  // what loving a perfume says counts with what the answers imply: the stronger of the two
  const leaning = [...t.values]
    .map((v, i) => [ACCORDS[i]?.slug as string, v >= 0 ? Math.max(v, t.lovedLean[i] as number) : v] as const)
    .filter(([a, v]) => v > 0 && !rated.has(a))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 5)
    .map(([a]) => a);
  // the loved perfumes' families, then those whose own accord the shopper leans to most, beyond the ones chosen
  const lovedFamilies = [...new Set(t.lovedPerfumes.flatMap((p) => p.families))].filter(
    (f) => FAMILY_BIT.has(f) && !families.includes(f),
  );
  const inferredFamilies = [
    ...lovedFamilies,
    ...FAMILIES.map((f) => [f.slug, t.values[ACCORD_INDEX.get(f.accords[0][0]) as number] as number] as const)
      .filter(([slug, v]) => v > 0 && !families.includes(slug) && !lovedFamilies.includes(slug))
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([slug]) => slug),
  ].slice(0, Math.max(0, 3 - families.length));
  const avoid = quiz.ratings
    .filter(([, r]) => r === 'avoid' || r === 'dislike')
    .sort((a, b) => (a[1] === b[1] ? (a[0] < b[0] ? -1 : 1) : a[1] === 'avoid' ? -1 : 1))
    .map(([a]) => a);
  const named = (ps: readonly ReferencePerfume[]) =>
    ps.map((p) => ({ sillage_perfume_id: p.id, name: p.name, house: p.house }));
  return {
    dominant_families: families,
    top_accords: top,
    avoid_accords: avoid,
    ...(t.lovedPerfumes.length ? { loved_perfumes: named(t.lovedPerfumes) } : {}),
    ...(t.dislikedPerfumes.length ? { disliked_perfumes: named(t.dislikedPerfumes) } : {}),
    ...(leaning.length || inferredFamilies.length
      ? { inferred: { families: inferredFamilies, accords: leaning } }
      : {}),
  };
}
