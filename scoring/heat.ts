/**
 * How a product lasts and projects in Gulf heat: an estimate, never a measure. Nothing here is
 * measured on skin; it is read from what the product is (docs/gulf-shelf.md "Heat and longevity"):
 *
 * - its kind and concentration: a perfume oil is worn on the skin undiluted and lasts; bakhoor and
 *   oud wood perfume clothes and hair, which hold the smoke; an extrait or parfum holds more oil than
 *   an eau de parfum, which holds more than an eau de toilette or cologne; a body or hair mist is the
 *   lightest of all;
 * - the weight of its base: heavy, slow materials (oud, amber, resins, musk, leather, woods,
 *   vanilla…) outlast bright, volatile ones (citrus, aquatic, green, herbs), and heat speeds the
 *   volatile ones most.
 *
 * Points from the kind (0–3), plus one for a heavy profile (half its accord weight or more heavy),
 * minus one for a light one (half or more volatile): 3 or more lasts long, 2 or more moderately,
 * less briefly. Projection (how far it carries in a warm room): an oil sits close to the skin
 * (soft), bakhoor fills a room (strong), a spray by its concentration and weight.
 * Pure; a fixed amount of work per product (at most its eight scored accords).
 */
import type { ProductKind } from '../matching/kind.ts';

export type Lasting = 'long' | 'moderate' | 'short';
export type Projection = 'strong' | 'moderate' | 'soft';
/** Why the estimate is what it is, as slugs the widget words in its locale. */
export type HeatReason =
  | 'oil_on_skin'
  | 'smoke_on_clothes'
  | 'concentration_high'
  | 'concentration_edp'
  | 'concentration_light'
  | 'concentration_unknown'
  | 'mist_light'
  | 'heavy_base'
  | 'volatile_profile';

export interface HeatEstimate {
  lasting: Lasting;
  projection: Projection;
  /** the reasons, the kind's first */
  reasons: HeatReason[];
}

/** Accords of slow, heavy materials: what still smells hours later. */
export const HEAVY_ACCORDS: ReadonlySet<string> = new Set([
  'oud',
  'amber',
  'balsamic',
  'incense',
  'smoky',
  'leather',
  'musky',
  'animalic',
  'vanilla',
  'woody',
  'sandalwood',
  'patchouli',
  'tobacco',
  'caramel',
  'honey',
  'beeswax',
  'earthy',
  'mossy',
  'vetiver',
  'saffron',
]);
/** Accords of bright, volatile materials: what heat spends first. */
export const VOLATILE_ACCORDS: ReadonlySet<string> = new Set([
  'citrus',
  'fresh',
  'aquatic',
  'marine',
  'ozonic',
  'green',
  'aromatic',
  'herbal',
  'lavender',
  'mint',
  'tea',
  'fresh spicy',
  'aldehydic',
  'salty',
  'mineral',
]);

/** A profile is heavy (or volatile) when such accords weigh this share of its accords or more. */
export const HEAVY_SHARE = 0.5;

const KIND_POINTS: Partial<Record<ProductKind, [number, HeatReason]>> = {
  oil: [3, 'oil_on_skin'],
  bakhoor: [3, 'smoke_on_clothes'],
  oud_wood: [3, 'smoke_on_clothes'],
  mist: [0, 'mist_light'],
};
const CONCENTRATION_POINTS: Readonly<Record<string, [number, HeatReason]>> = {
  extrait: [3, 'concentration_high'],
  parfum: [3, 'concentration_high'],
  elixir: [3, 'concentration_high'],
  edp: [2, 'concentration_edp'],
  edt: [1, 'concentration_light'],
  edc: [0, 'concentration_light'],
};

export function estimateHeat(p: {
  kind: ProductKind;
  concentration: string | null;
  accords: readonly { name: string; weight: number }[];
}): HeatEstimate {
  const byKind = KIND_POINTS[p.kind];
  // a spray, a sample or a set by its concentration; a spray whose concentration no one states counts as an eau de toilette
  const [points, reason] = byKind ??
    CONCENTRATION_POINTS[p.concentration ?? ''] ?? [1, 'concentration_unknown' as HeatReason];
  let total = 0;
  let heavy = 0;
  let volatile = 0;
  for (const a of p.accords.slice(0, 8)) {
    const w = Math.max(0, Math.min(1, a.weight));
    total += w;
    if (HEAVY_ACCORDS.has(a.name)) heavy += w;
    else if (VOLATILE_ACCORDS.has(a.name)) volatile += w;
  }
  const reasons: HeatReason[] = [reason];
  let score = points;
  if (total > 0 && heavy / total >= HEAVY_SHARE) {
    score += 1;
    reasons.push('heavy_base');
  } else if (total > 0 && volatile / total >= HEAVY_SHARE) {
    score -= 1;
    reasons.push('volatile_profile');
  }
  const lasting: Lasting = score >= 3 ? 'long' : score >= 2 ? 'moderate' : 'short';
  const projection: Projection =
    p.kind === 'bakhoor' || p.kind === 'oud_wood'
      ? 'strong'
      : p.kind === 'oil' || p.kind === 'mist'
        ? 'soft'
        : score >= 3
          ? 'strong'
          : score >= 2
            ? 'moderate'
            : 'soft';
  return { lasting, projection, reasons };
}

/** The engine's number for a lasting: 0 short, 1 moderate, 2 long. */
export const LASTING_LEVEL: Readonly<Record<Lasting, number>> = { short: 0, moderate: 1, long: 2 };
