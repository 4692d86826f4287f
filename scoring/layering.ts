/**
 * Layering pairs from a shop's own stock: a perfume oil, or bakhoor or oud wood, worn under a
 * spray, as the Gulf wears them. A pair is proposed only when both fit the shopper's taste (each
 * scored FIT_FLOOR or more and never ruled out: no avoided accord prominent, the kind, alcohol,
 * budget and wearer the shopper asked for) and they agree where the taste leads (they share an
 * accord the shopper loves, likes or leans to). Products are in stock by construction (a sold-out
 * product is never compiled). docs/gulf-shelf.md "Layering".
 *
 * Bounded: at most LAYER_CANDIDATES bases and as many sprays are paired (36 pairs), each pair
 * compared accord by accord (8 × 8).
 */
import { ACCORDS } from '../vocabulary/index.ts';
import {
  FIT_FLOOR,
  KIND_BIT,
  keepBest,
  type ProductMatrix,
  type Ranked,
  type Scored,
  type Taste,
  TIER_NEVER_SHOWN,
} from './engine.ts';

/** At most this many pairs are proposed. */
export const MAX_PAIRS = 3;
/** The best this many bases, and as many sprays, are paired. */
export const LAYER_CANDIDATES = 6;
const SLOTS = 8;

/** How each step of a pair is worn. */
export type LayerStep = 'oil_on_skin' | 'smoke_clothes' | 'spray_over';

export interface LayeringPair {
  base: number;
  top: number;
  /** the pair's fit: the mean of its two scores */
  score: number;
  /** the accords the two share that the taste leads with, strongest in both first (up to three) */
  shared: string[];
  /** the base's way of wearing it, then the spray's */
  steps: [LayerStep, LayerStep];
}

const BASE_BITS = KIND_BIT.oil | KIND_BIT.bakhoor | KIND_BIT.oud_wood;

/** A product's accords the taste leads with (loved, liked, implied or leaned to by a loved perfume), by weight. */
function leading(m: ProductMatrix, t: Taste, i: number): Map<number, number> {
  const out = new Map<number, number>();
  for (let s = 0; s < SLOTS; s++) {
    const idx = m.accordIndex[i * SLOTS + s] as number;
    if (idx === 255) break;
    const v = t.values[idx] as number;
    if (v > 0 || (v === 0 && (t.lovedLean[idx] as number) > 0)) out.set(idx, m.accordWeight[i * SLOTS + s] as number);
  }
  return out;
}

/** the higher score first (the earlier product first among equals, as they come in order) */
const higher = (a: Ranked, b: Ranked) => a.score > b.score;

export function layeringPairs(m: ProductMatrix, t: Taste, scored: Scored): LayeringPair[] {
  const { scores, tier } = scored;
  // the best bases and sprays that fit, in one pass over the products
  const bases: Ranked[] = [];
  const tops: Ranked[] = [];
  for (let i = 0; i < m.size; i++) {
    const score = scores[i] as number;
    if (score < FIT_FLOOR || tier[i] === TIER_NEVER_SHOWN) continue;
    const bit = m.kindBit[i] as number;
    if (bit & BASE_BITS) keepBest(bases, { index: i, score }, LAYER_CANDIDATES, higher);
    else if (bit === KIND_BIT.spray) keepBest(tops, { index: i, score }, LAYER_CANDIDATES, higher);
  }
  const candidates: LayeringPair[] = [];
  for (const b of bases) {
    const lead = leading(m, t, b.index);
    for (const s of tops) {
      const shared: [number, number][] = [];
      for (const [idx, w] of leading(m, t, s.index)) {
        const other = lead.get(idx);
        if (other !== undefined) shared.push([idx, Math.min(w, other)]);
      }
      if (shared.length === 0) continue;
      shared.sort((x, y) => y[1] - x[1] || x[0] - y[0]);
      candidates.push({
        base: b.index,
        top: s.index,
        score: Math.round((b.score + s.score) / 2),
        shared: shared.slice(0, 3).map(([idx]) => ACCORDS[idx]?.slug as string),
        steps: [(m.kindBit[b.index] as number) === KIND_BIT.oil ? 'oil_on_skin' : 'smoke_clothes', 'spray_over'],
      });
    }
  }
  // the best pairs first (more shared accords break ties), each product in one pair
  candidates.sort((x, y) => y.score - x.score || y.shared.length - x.shared.length || x.base - y.base || x.top - y.top);
  const used = new Set<number>();
  const pairs: LayeringPair[] = [];
  for (const c of candidates) {
    if (pairs.length >= MAX_PAIRS) break;
    if (used.has(c.base) || used.has(c.top)) continue;
    pairs.push(c);
    used.add(c.base);
    used.add(c.top);
  }
  return pairs;
}
