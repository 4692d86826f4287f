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
export function buildProductMatrix(
  products: readonly { profile: ScoringProfile; line: string; house: string }[],
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
    m.familyMask[i] = mask(p.profile.families, FAMILY_BIT);
    m.seasonMask[i] = mask(p.profile.seasons, SEASON_BIT);
    m.timeMask[i] = mask(p.profile.times, TIME_BIT);
    m.occasionMask[i] = mask(p.profile.occasions, OCCASION_BIT);
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
  return {
    values,
    avoided,
    loved,
    familyMask: mask(quiz.families, FAMILY_BIT),
    seasonBit: quiz.season ? (SEASON_BIT.get(quiz.season) ?? 0) : 0,
    timeBit: time ? (TIME_BIT.get(time) ?? 0) : 0,
    occasionBit: quiz.occasion ? (OCCASION_BIT.get(quiz.occasion) ?? 0) : 0,
  };
}

/** An avoided accord at this weight or more dominates a product. */
export const DOMINANT_WEIGHT = 0.5;

/**
 * Scores every product: integers 0–100 (50 = indifferent), and whether an
 * avoided accord dominates it. Each product's score depends on that product
 * and the taste only.
 */
export function scoreProducts(m: ProductMatrix, t: Taste): { scores: Uint8Array; clash: Uint8Array } {
  const scores = new Uint8Array(m.size);
  const clash = new Uint8Array(m.size);
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
  }
  return { scores, clash };
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

/** Order: not dominated by an avoided accord first, then score, then the product's position (stable). */
const before = (sa: number, ca: number, ia: number, sb: number, cb: number, ib: number) =>
  ca !== cb ? ca < cb : sa !== sb ? sa > sb : ia < ib;

/** The k best products by the ranking order, without sorting them all. */
export function topK(scores: Uint8Array, clash: Uint8Array, k: number, skip?: (i: number) => boolean): Ranked[] {
  const top: number[] = [];
  for (let i = 0; i < scores.length; i++) {
    if (skip?.(i)) continue;
    const s = scores[i] as number;
    const c = clash[i] as number;
    if (top.length === k) {
      const last = top[k - 1] as number;
      if (!before(s, c, i, scores[last] as number, clash[last] as number, last)) continue;
    }
    // with room left j is top.length: the shift below, or the last line, makes the new place
    let j = Math.min(top.length, k - 1);
    while (j > 0) {
      const prev = top[j - 1] as number;
      if (!before(s, c, i, scores[prev] as number, clash[prev] as number, prev)) break;
      top[j] = prev;
      j--;
    }
    top[j] = i;
  }
  return top.map((i) => ({ index: i, score: scores[i] as number }));
}

export interface Ranking {
  recommendations: Ranked[];
  alsoExplore: Ranked[];
}

/** At most this many of one house among the first picks, before the list is filled regardless. */
const PER_HOUSE = 2;
const EXPLORE = 3;
const EXPLORE_MIN_SCORE = 55;

/**
 * Picks the recommendations: best first, one product per perfume line and
 * at most two per house while others remain, so six flankers of one perfume
 * don't fill the list; then fills with the next best if there are too few.
 * also_explore: good products from families the shopper did not choose.
 */
export function rank(m: ProductMatrix, t: Taste, limit: number): Ranking {
  const { scores, clash } = scoreProducts(m, t);
  // the best limit × 6 + 20 (all of them when there are fewer: topK takes what there is)
  const pool = topK(scores, clash, limit * 6 + EXPLORE * 4 + 8);
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
  // too few distinct products: the next best, twins included, rather than a short answer
  for (const r of pool) {
    if (picked.length >= limit) break;
    if (!picked.includes(r)) picked.push(r);
  }
  picked.sort((a, b) =>
    before(a.score, clash[a.index] as number, a.index, b.score, clash[b.index] as number, b.index) ? -1 : 1,
  );

  // the lines shown: a recommended product is left out of also_explore with its line
  const usedLines = new Set(picked.map((r) => m.lineKey[r.index] as number));
  const alsoExplore: Ranked[] = [];
  for (const r of pool) {
    if (alsoExplore.length >= EXPLORE) break;
    const fam = m.familyMask[r.index] as number;
    if (clash[r.index] || r.score < EXPLORE_MIN_SCORE) continue;
    if (!fam || fam & t.familyMask || usedLines.has(m.lineKey[r.index] as number)) continue;
    alsoExplore.push(r);
    usedLines.add(m.lineKey[r.index] as number);
  }
  return { recommendations: picked, alsoExplore };
}

/** Summary of the taste, as vocabulary slugs the widget shows with its locale's labels. */
export function tasteSummary(quiz: Quiz, t: Taste) {
  const top = [...t.values]
    .map((v, i) => [ACCORDS[i]?.slug as string, v] as const)
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 5)
    .map(([a]) => a);
  const families: string[] = [...quiz.families];
  if (families.length < 3) {
    // families whose own accord the shopper leans to most, after the ones chosen
    const inferred = FAMILIES.map(
      (f) => [f.slug, t.values[ACCORD_INDEX.get(f.accords[0][0]) as number] as number] as const,
    )
      .filter(([slug, v]) => v > 0 && !families.includes(slug))
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    for (const [slug] of inferred) if (families.length < 3) families.push(slug);
  }
  const avoid = quiz.ratings
    .filter(([, r]) => r === 'avoid' || r === 'dislike')
    .sort((a, b) => (a[1] === b[1] ? (a[0] < b[0] ? -1 : 1) : a[1] === 'avoid' ? -1 : 1))
    .map(([a]) => a);
  return { dominant_families: families.slice(0, 3), top_accords: top, avoid_accords: avoid };
}
