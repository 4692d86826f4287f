import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PRODUCT_KINDS } from '../matching/kind.ts';
import { estimateHeat, HEAVY_ACCORDS, VOLATILE_ACCORDS } from '../scoring/heat.ts';
import { ACCORDS } from '../vocabulary/index.ts';

// How a product lasts and projects in heat: an estimate from its kind, concentration and the
// weight of its base (docs/gulf-shelf.md "Heat and longevity").
const woody = [
  { name: 'woody', weight: 1 },
  { name: 'citrus', weight: 0.6 },
  { name: 'floral', weight: 0.5 },
];
const heavy = [
  { name: 'oud', weight: 1 },
  { name: 'amber', weight: 0.8 },
  { name: 'rose', weight: 0.5 },
];
const bright = [
  { name: 'citrus', weight: 1 },
  { name: 'aquatic', weight: 0.8 },
  { name: 'woody', weight: 0.3 },
];
const spray = (concentration: string | null, accords = woody) =>
  estimateHeat({ kind: 'spray', concentration, accords });

describe('the heat estimate', () => {
  it('a perfume oil lasts long and sits close to the skin; bakhoor and oud wood last on clothes and fill a room', () => {
    expect(estimateHeat({ kind: 'oil', concentration: null, accords: woody })).toEqual({
      lasting: 'long',
      projection: 'soft',
      reasons: ['oil_on_skin'],
    });
    for (const kind of ['bakhoor', 'oud_wood'] as const)
      expect(estimateHeat({ kind, concentration: null, accords: woody })).toEqual({
        lasting: 'long',
        projection: 'strong',
        reasons: ['smoke_on_clothes'],
      });
  });

  it('a spray lasts by its concentration: extrait, parfum and elixir long, EDP moderate, EDT and cologne briefly', () => {
    for (const c of ['extrait', 'parfum', 'elixir'])
      expect(spray(c)).toMatchObject({ lasting: 'long', projection: 'strong', reasons: ['concentration_high'] });
    expect(spray('edp')).toMatchObject({ lasting: 'moderate', projection: 'moderate', reasons: ['concentration_edp'] });
    expect(spray('edt')).toMatchObject({ lasting: 'short', projection: 'soft', reasons: ['concentration_light'] });
    expect(spray('edc')).toMatchObject({ lasting: 'short', reasons: ['concentration_light'] });
  });

  it('a spray whose concentration no one states counts as an eau de toilette, and says so', () => {
    expect(spray(null)).toMatchObject({ lasting: 'short', reasons: ['concentration_unknown'] });
    expect(spray('something-else')).toMatchObject({ lasting: 'short', reasons: ['concentration_unknown'] });
  });

  it('a heavy base lasts a step longer, a bright volatile profile a step shorter', () => {
    expect(spray('edp', heavy)).toMatchObject({
      lasting: 'long',
      projection: 'strong',
      reasons: ['concentration_edp', 'heavy_base'],
    });
    expect(spray('edp', bright)).toMatchObject({
      lasting: 'short',
      projection: 'soft',
      reasons: ['concentration_edp', 'volatile_profile'],
    });
    expect(spray('edt', heavy)).toMatchObject({ lasting: 'moderate', reasons: ['concentration_light', 'heavy_base'] });
    expect(spray('parfum', bright)).toMatchObject({
      lasting: 'moderate',
      reasons: ['concentration_high', 'volatile_profile'],
    });
    expect(estimateHeat({ kind: 'oil', concentration: null, accords: bright })).toMatchObject({
      lasting: 'moderate',
      projection: 'soft',
    });
  });

  it('heavy means half the accord weight or more: just under half is not heavy', () => {
    const half = [
      { name: 'oud', weight: 0.5 },
      { name: 'rose', weight: 0.5 },
    ];
    expect(spray('edp', half).reasons).toContain('heavy_base');
    const under = [
      { name: 'oud', weight: 0.49 },
      { name: 'rose', weight: 0.51 },
    ];
    expect(spray('edp', under).reasons).toEqual(['concentration_edp']);
    const brightHalf = [
      { name: 'citrus', weight: 0.5 },
      { name: 'rose', weight: 0.5 },
    ];
    expect(spray('edp', brightHalf).reasons).toContain('volatile_profile');
  });

  it('a body or hair mist is the lightest: it never lasts long, even with a heavy base', () => {
    expect(estimateHeat({ kind: 'mist', concentration: null, accords: heavy })).toEqual({
      lasting: 'short',
      projection: 'soft',
      reasons: ['mist_light', 'heavy_base'],
    });
  });

  it('a product without accords is estimated by its kind alone', () => {
    expect(spray('edp', [])).toEqual({ lasting: 'moderate', projection: 'moderate', reasons: ['concentration_edp'] });
  });

  it('reads at most eight accords, as the engine scores them', () => {
    const many = [
      ...Array.from({ length: 8 }, () => ({ name: 'rose', weight: 1 })),
      ...Array.from({ length: 30 }, () => ({ name: 'oud', weight: 1 })),
    ];
    expect(spray('edp', many).reasons).toEqual(['concentration_edp']);
  });

  it('heavy and volatile accords are accords of the vocabulary, and none is both', () => {
    const known = new Set<string>(ACCORDS.map((a) => a.slug));
    for (const a of [...HEAVY_ACCORDS, ...VOLATILE_ACCORDS]) expect(known.has(a), a).toBe(true);
    for (const a of HEAVY_ACCORDS) expect(VOLATILE_ACCORDS.has(a), a).toBe(false);
  });

  it('for every product, heavier accords never make it last less, and the first reason is its kind’s', () => {
    const slugs = ACCORDS.map((a) => a.slug);
    const level = { short: 0, moderate: 1, long: 2 } as const;
    fc.assert(
      fc.property(
        fc.constantFrom(...PRODUCT_KINDS),
        fc.constantFrom(null, 'edp', 'edt', 'edc', 'parfum', 'extrait', 'elixir'),
        fc.array(fc.record({ name: fc.constantFrom(...slugs), weight: fc.double({ min: 0, max: 1, noNaN: true }) }), {
          maxLength: 8,
        }),
        (kind, concentration, accords) => {
          const e = estimateHeat({ kind, concentration, accords });
          const withOud = estimateHeat({
            kind,
            concentration,
            accords: [
              ...accords.slice(0, 7).map((a) => (HEAVY_ACCORDS.has(a.name) ? a : { ...a, weight: 0 })),
              { name: 'oud', weight: 1 },
            ],
          });
          expect(level[withOud.lasting]).toBeGreaterThanOrEqual(level[e.lasting]);
          expect(e.reasons.length).toBeGreaterThanOrEqual(1);
          expect(e.reasons.length).toBeLessThanOrEqual(2);
        },
      ),
    );
  });
});
