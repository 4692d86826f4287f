/**
 * The scoring engine: a shopper's taste against products' scent profiles.
 * Pure and synchronous; plain data in, plain data out.
 *
 * Products are compiled once (per catalog version) into column arrays — up to
 * eight accord indexes and weights each, and bit masks of families, seasons,
 * times of day and occasions — so a quiz scores 10,000 products in a tight
 * loop, and the best are picked without sorting them all.
 */
import { ACCORDS, FAMILIES, familyAccords, OCCASIONS, RATINGS, SEASONS, TIMES } from '../vocabulary/index.ts';
import { OCCASION_LEANS, OCCASION_TIME, SEASON_LEANS } from './affinities.ts';
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
  /** products of one perfume line (flankers, concentrations) share a key */
  lineKey: Int32Array;
  houseKey: Int32Array;
}

const mask = (values: readonly string[], bits: Map<string, number>) => {
  let m = 0;
  for (const v of values) m |= bits.get(v) ?? 0;
  return m;
};

/** Compiles products once; `line` and `house` group near-twins for diversity. */
/** A product's wearer as bits: a shopper's wearer bit must be among them. */
const WEARER_BIT = { men: 1, women: 2 } as const;
const wearerBits = (gender: string | null | undefined) =>
  gender === 'men' ? WEARER_BIT.men : gender === 'women' ? WEARER_BIT.women : WEARER_BIT.men | WEARER_BIT.women;

export function buildProductMatrix(
  products: readonly { profile: ScoringProfile; line: string; house: string; gender?: string | null }[],
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
    lineKey: new Int32Array(n),
    houseKey: new Int32Array(n),
  };
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
    // prominent: the three strongest (equal weights: the earlier listed first) and any at 0.5 or more
    const order = Array.from({ length: slot }, (_, s) => s).sort(
      (a, b) => (m.accordWeight[i * SLOTS + b] as number) - (m.accordWeight[i * SLOTS + a] as number) || a - b,
    );
    order.forEach((s, r) => {
      const w = m.accordWeight[i * SLOTS + s] as number;
      if (r < PROMINENT_RANK || w >= PROMINENT_WEIGHT) {
        const idx = m.accordIndex[i * SLOTS + s] as number;
        const word = i * ACCORD_WORDS + (idx >> 5);
        m.prominent[word] = (m.prominent[word] as number) | (1 << (idx & 31));
      }
    });
    m.familyMask[i] = mask(p.profile.families, FAMILY_BIT);
    m.seasonMask[i] = mask(p.profile.seasons, SEASON_BIT);
    m.timeMask[i] = mask(p.profile.times, TIME_BIT);
    m.occasionMask[i] = mask(p.profile.occasions, OCCASION_BIT);
    m.wearer[i] = wearerBits(p.gender);
    m.lineKey[i] = lines.get(p.line) ?? lines.set(p.line, lines.size).size - 1;
    m.houseKey[i] = houses.get(p.house) ?? houses.set(p.house, houses.size).size - 1;
  });
  return m;
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
  lovedBits: Uint32Array;
  /** some accord is rated love */
  anyLoved: boolean;
  /** the shopper's wearer bit (1 men, 2 women), 0 for no preference */
  wearerBit: number;
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

export function buildTaste(quiz: Quiz): Taste {
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
  for (const [accord, rating] of quiz.ratings) {
    const i = ACCORD_INDEX.get(accord) as number;
    const w = RATING_WEIGHT.get(rating) ?? 0;
    // a rating replaces what families and the season implied; "like" never lowers it, "neutral" keeps it
    if (rating === 'neutral') continue;
    values[i] = rating === 'like' ? Math.max(values[i] as number, w) : w;
    if (rating === 'avoid') avoided[i] = 1;
    if (rating === 'love') loved[i] = 1;
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
    lovedBits: bits(loved),
    anyLoved: loved.includes(1),
    wearerBit: quiz.gender ? WEARER_BIT[quiz.gender] : 0,
    familyMask: mask(quiz.families, FAMILY_BIT),
    seasonBit: quiz.season ? (SEASON_BIT.get(quiz.season) ?? 0) : 0,
    timeBit: time ? (TIME_BIT.get(time) ?? 0) : 0,
    occasionBit: quiz.occasion ? (OCCASION_BIT.get(quiz.occasion) ?? 0) : 0,
  };
}

/** An avoided accord at this weight or more dominates a product. */
export const DOMINANT_WEIGHT = 0.5;

/**
 * Where a product stands before its score: 0 — a loved accord is prominent in
 * it, or nothing was loved; 1 — something was loved and none of it is
 * prominent here; 2 — never shown: an avoided accord is prominent here, or
 * it is made for the other wearer than the shopper asked for (men or women;
 * unisex products, and products whose wearer is not known, are for anyone).
 */
export const TIER_LOVED = 0;
export const TIER_OTHER = 1;
export const TIER_NEVER_SHOWN = 2;

/**
 * Scores every product: integers 0–100 (50 = indifferent), whether an
 * avoided accord dominates it (weighs 0.5 or more: the score's penalty), and
 * its tier (above). Each product's score and tier depend on that product and
 * the taste only.
 */
export function scoreProducts(m: ProductMatrix, t: Taste): { scores: Uint8Array; clash: Uint8Array; tier: Uint8Array } {
  const scores = new Uint8Array(m.size);
  const clash = new Uint8Array(m.size);
  const tier = new Uint8Array(m.size);
  const v = t.values;
  for (let i = 0; i < m.size; i++) {
    const base = i * SLOTS;
    let liked = 0;
    let disliked = 0;
    let dominantAvoid = 0;
    let lovedHit = 0;
    for (let s = 0; s < SLOTS; s++) {
      const idx = m.accordIndex[base + s] as number;
      if (idx === 255) break;
      const w = m.accordWeight[base + s] as number;
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
    const fit = 0.4 * share + 0.2 * depth + 0.15 * lovedHit + 0.1 * family + 0.075 * season + 0.075 * occasion;
    const against = Math.min(1, (1.5 * disliked) / sum + 0.5 * dominantAvoid + time);
    const score = 50 + 50 * fit - 60 * against;
    scores[i] = score <= 0 ? 0 : score >= 100 ? 100 : Math.round(score);
    clash[i] = dominantAvoid;
    let avoidedHere = 0;
    let lovedHere = 0;
    for (let w = 0; w < ACCORD_WORDS; w++) {
      const p = m.prominent[i * ACCORD_WORDS + w] as number;
      avoidedHere |= p & (t.avoidedBits[w] as number);
      lovedHere |= p & (t.lovedBits[w] as number);
    }
    const otherWearer = t.wearerBit !== 0 && ((m.wearer[i] as number) & t.wearerBit) === 0;
    tier[i] = avoidedHere || otherWearer ? TIER_NEVER_SHOWN : t.anyLoved && !lovedHere ? TIER_OTHER : TIER_LOVED;
  }
  return { scores, clash, tier };
}

/** The accords that drove a product's score: its liked accords, strongest contribution first. */
export function matchAccords(m: ProductMatrix, t: Taste, i: number, max = 3): string[] {
  const out: [string, number][] = [];
  for (let s = 0; s < SLOTS; s++) {
    const idx = m.accordIndex[i * SLOTS + s] as number;
    if (idx === 255) break;
    const c = (m.accordWeight[i * SLOTS + s] as number) * (t.values[idx] as number);
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

/** Order: by tier (a loved accord prominent first, an avoided one last), then score, then the product's position (stable). */
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

/** Why a product is in also_explore: a fit from a family not chosen; a weaker fit when few fit; the closest when none does. */
export type ExploreReason = 'other_family' | 'weaker_fit' | 'closest';

export interface Ranking {
  recommendations: Ranked[];
  alsoExplore: (Ranked & { reason: ExploreReason })[];
}

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
 * no avoided accord prominent), those carrying a loved accord first, then by
 * score; one product per perfume line and at most two per house while others
 * remain, so six flankers of one perfume don't fill the list; then the next
 * fitting ones, twins included. The list may be shorter than `limit`: it is
 * never filled with products that do not fit.
 * also_explore: fits from families the shopper did not choose; and, when
 * fewer than `limit` fit, the best weaker products (score WEAK_FLOOR or more,
 * no avoided accord prominent), labelled as such — "closest" when none fits.
 */
export function rank(m: ProductMatrix, t: Taste, limit: number): Ranking {
  const { scores, tier } = scoreProducts(m, t);
  const fitting = (i: number) => (tier[i] as number) !== TIER_NEVER_SHOWN && (scores[i] as number) >= FIT_FLOOR;
  // the best limit × 6 + 20 of the products that fit (all of them when there are fewer)
  const pool = topK(scores, tier, limit * 6 + EXPLORE * 4 + 8, (i) => !fitting(i));
  const picked: Ranked[] = [];
  const lines = new Set<number>();
  const houses = new Map<number, number>();
  for (const r of pool) {
    if (picked.length >= limit) break;
    const line = m.lineKey[r.index] as number;
    const house = m.houseKey[r.index] as number;
    if (lines.has(line) || (houses.get(house) ?? 0) >= PER_HOUSE) continue;
    picked.push(r);
    lines.add(line);
    houses.set(house, (houses.get(house) ?? 0) + 1);
  }
  // too few distinct products: the next fitting ones, twins included, rather than a shorter answer
  for (const r of pool) {
    if (picked.length >= limit) break;
    if (!picked.includes(r)) picked.push(r);
  }
  picked.sort((a, b) =>
    before(a.score, tier[a.index] as number, a.index, b.score, tier[b.index] as number, b.index) ? -1 : 1,
  );

  // the lines shown: a recommended product is left out of also_explore with its line
  const usedLines = new Set(picked.map((r) => m.lineKey[r.index] as number));
  const alsoExplore: Ranking['alsoExplore'] = [];
  for (const r of pool) {
    if (alsoExplore.length >= EXPLORE) break;
    const fam = m.familyMask[r.index] as number;
    if (!fam || fam & t.familyMask || usedLines.has(m.lineKey[r.index] as number)) continue;
    alsoExplore.push({ ...r, reason: 'other_family' });
    usedLines.add(m.lineKey[r.index] as number);
  }
  if (picked.length < limit) {
    const reason: ExploreReason = picked.length === 0 ? 'closest' : 'weaker_fit';
    const weaker = topK(
      scores,
      tier,
      EXPLORE * 4,
      (i) => fitting(i) || (tier[i] as number) === TIER_NEVER_SHOWN || (scores[i] as number) < WEAK_FLOOR,
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
  return { recommendations: picked, alsoExplore };
}

/**
 * Summary of the taste, as vocabulary slugs the widget shows with its
 * locale's labels. It reports the shopper: `top_accords` are the accords
 * loved, then liked (up to five); `dominant_families` the families chosen;
 * `avoid_accords` those avoided, then disliked. What the answers only imply
 * (the accords the chosen families, season and occasion lean to, the families
 * the taste leans to) is in `inferred`, present only when it holds something.
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
  const leaning = [...t.values]
    .map((v, i) => [ACCORDS[i]?.slug as string, v] as const)
    .filter(([a, v]) => v > 0 && !rated.has(a))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 5)
    .map(([a]) => a);
  // families whose own accord the shopper leans to most, beyond the ones chosen
  const inferredFamilies = FAMILIES.map(
    (f) => [f.slug, t.values[ACCORD_INDEX.get(f.accords[0][0]) as number] as number] as const,
  )
    .filter(([slug, v]) => v > 0 && !families.includes(slug))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, Math.max(0, 3 - families.length))
    .map(([slug]) => slug);
  const avoid = quiz.ratings
    .filter(([, r]) => r === 'avoid' || r === 'dislike')
    .sort((a, b) => (a[1] === b[1] ? (a[0] < b[0] ? -1 : 1) : a[1] === 'avoid' ? -1 : 1))
    .map(([a]) => a);
  return {
    dominant_families: families,
    top_accords: top,
    avoid_accords: avoid,
    ...(leaning.length || inferredFamilies.length
      ? { inferred: { families: inferredFamilies, accords: leaning } }
      : {}),
  };
}
