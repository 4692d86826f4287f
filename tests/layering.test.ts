import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProductKind } from '../matching/kind.ts';
import {
  buildProductMatrix,
  keepBest,
  type Scored,
  type Taste,
  TIER_BY_SCORE,
  TIER_NEVER_SHOWN,
} from '../scoring/engine.ts';
import { LAYER_CANDIDATES, layeringPairs, MAX_PAIRS } from '../scoring/layering.ts';
import { ACCORDS } from '../vocabulary/index.ts';

// Layering pairs (docs/gulf-shelf.md "Layering"): a base (oil, bakhoor, oud wood) under a spray,
// both fitting, sharing an accord the taste leads with; the best pairs first, each product once.
interface P {
  kind: ProductKind;
  accords: [string, number][];
  score: number;
  never?: boolean;
}
const at = (slug: string) => ACCORDS.findIndex((a) => a.slug === slug);

function pairsOf(products: P[], taste: { values?: Record<string, number>; lean?: Record<string, number> }) {
  const m = buildProductMatrix(
    products.map((p, i) => ({
      profile: {
        families: [],
        accords: p.accords.map(([name, weight]) => ({ name, weight })),
        seasons: [],
        times: [],
        occasions: [],
      },
      line: `l${i}`,
      house: `h${i}`,
      kind: p.kind,
    })),
  );
  const values = new Float32Array(ACCORDS.length);
  const lovedLean = new Float32Array(ACCORDS.length);
  for (const [a, v] of Object.entries(taste.values ?? {})) values[at(a)] = v;
  for (const [a, v] of Object.entries(taste.lean ?? {})) lovedLean[at(a)] = v;
  const scored = {
    scores: Uint8Array.from(products.map((p) => p.score)),
    tier: Uint8Array.from(products.map((p) => (p.never ? TIER_NEVER_SHOWN : TIER_BY_SCORE))),
  } as Scored;
  return layeringPairs(m, { values, lovedLean } as unknown as Taste, scored);
}
const oudAmber: [string, number][] = [
  ['oud', 1],
  ['amber', 0.6],
];
const loveOud = { values: { oud: 1, amber: 0.5 } };

describe('layering pairs', () => {
  it('pairs an oil, bakhoor or oud wood with a spray, each worn as it is worn, the base first', () => {
    const pairs = pairsOf(
      [
        { kind: 'oil', accords: oudAmber, score: 80 },
        { kind: 'bakhoor', accords: oudAmber, score: 79 },
        { kind: 'oud_wood', accords: oudAmber, score: 78 },
        { kind: 'spray', accords: oudAmber, score: 80 },
        { kind: 'spray', accords: oudAmber, score: 79 },
        { kind: 'spray', accords: oudAmber, score: 78 },
      ],
      loveOud,
    );
    expect(pairs.map((p) => [p.base, p.top, p.score, p.steps])).toEqual([
      [0, 3, 80, ['oil_on_skin', 'spray_over']],
      [1, 4, 79, ['smoke_clothes', 'spray_over']],
      [2, 5, 78, ['smoke_clothes', 'spray_over']],
    ]);
  });

  it('never pairs two sprays, two bases, or a mist, gift set or sample', () => {
    for (const kind of ['mist', 'gift_set', 'sample', 'other', 'spray'] as const)
      expect(
        pairsOf(
          [
            { kind, accords: oudAmber, score: 90 },
            { kind: 'spray', accords: oudAmber, score: 90 },
          ],
          loveOud,
        ),
      ).toEqual([]);
    for (const kind of ['mist', 'gift_set', 'sample', 'oil'] as const)
      expect(
        pairsOf(
          [
            { kind: 'oil', accords: oudAmber, score: 90 },
            { kind, accords: oudAmber, score: 90 },
          ],
          loveOud,
        ),
      ).toEqual([]);
  });

  it('both must fit: a score of 60 pairs, 59 does not, and a product the quiz rules out never does', () => {
    const two = (base: number, top: number, never = false) =>
      pairsOf(
        [
          { kind: 'oil', accords: oudAmber, score: base, never },
          { kind: 'spray', accords: oudAmber, score: top },
        ],
        loveOud,
      ).length;
    expect(two(60, 60)).toBe(1);
    expect(two(59, 80)).toBe(0);
    expect(two(80, 59)).toBe(0);
    expect(two(80, 80, true)).toBe(0);
  });

  it('they must share an accord the taste leads with: loved or liked, or leaned to by a loved perfume', () => {
    const shop: P[] = [
      {
        kind: 'oil',
        accords: [
          ['rose', 1],
          ['musky', 0.5],
        ],
        score: 80,
      },
      {
        kind: 'spray',
        accords: [
          ['rose', 1],
          ['citrus', 0.5],
        ],
        score: 80,
      },
    ];
    expect(pairsOf(shop, { values: { rose: 0.8 } })[0]?.shared).toEqual(['rose']);
    // rose shared but the taste is against it, or says nothing of it
    expect(pairsOf(shop, { values: { rose: -0.5, musky: 1, citrus: 1 } })).toEqual([]);
    expect(pairsOf(shop, { values: { musky: 1, citrus: 1 } })).toEqual([]);
    // a loved perfume leans to rose: that leads too, unless the shopper rated it down
    expect(pairsOf(shop, { lean: { rose: 0.7 } })[0]?.shared).toEqual(['rose']);
    expect(pairsOf(shop, { values: { rose: -0.5 }, lean: { rose: 0.7 } })).toEqual([]);
  });

  it('names the shared accords strongest in both first, at most three', () => {
    const base: [string, number][] = [
      ['oud', 0.4],
      ['amber', 1],
      ['rose', 0.9],
      ['musky', 0.8],
      ['saffron', 0.2],
    ];
    const top: [string, number][] = [
      ['oud', 1],
      ['amber', 0.5],
      ['rose', 0.9],
      ['musky', 0.3],
      ['saffron', 1],
    ];
    const values = { oud: 1, amber: 1, rose: 1, musky: 1, saffron: 1 };
    const [pair] = pairsOf(
      [
        { kind: 'oil', accords: base, score: 70 },
        { kind: 'spray', accords: top, score: 70 },
      ],
      { values },
    );
    expect(pair?.shared).toEqual(['rose', 'amber', 'oud']);
  });

  it('reads each product’s eight accords, as the engine scores them', () => {
    const eight = ['citrus', 'fresh', 'aquatic', 'green', 'tea', 'mint', 'lavender'].map(
      (a) => [a, 1] as [string, number],
    );
    const [pair] = pairsOf(
      [
        { kind: 'oil', accords: [...eight, ['rose', 0.5]], score: 70 },
        { kind: 'spray', accords: [['rose', 1]], score: 70 },
      ],
      { values: { rose: 1 } },
    );
    expect(pair?.shared).toEqual(['rose']);
  });

  it('the pair’s score is the mean of its two, rounded; the best pairs first, more shared accords breaking ties', () => {
    const pairs = pairsOf(
      [
        { kind: 'oil', accords: [['oud', 1]], score: 71 },
        { kind: 'bakhoor', accords: oudAmber, score: 70 },
        { kind: 'spray', accords: oudAmber, score: 70 },
        { kind: 'spray', accords: oudAmber, score: 71 },
      ],
      loveOud,
    );
    // (71 + 71) / 2 and (70 + 71) / 2 both round to 71: the bakhoor shares two accords with the
    // 71 spray, so it comes first; the oil then goes with the other spray
    expect(pairs.map((p) => [p.base, p.top, p.score])).toEqual([
      [1, 3, 71],
      [0, 2, 71],
    ]);
    const tie = pairsOf(
      [
        { kind: 'oil', accords: [['oud', 1]], score: 70 },
        { kind: 'bakhoor', accords: oudAmber, score: 70 },
        { kind: 'spray', accords: oudAmber, score: 70 },
      ],
      loveOud,
    );
    // equal scores: the bakhoor shares two accords with the spray, the oil one
    expect(tie.map((p) => [p.base, p.top, p.shared])).toEqual([[1, 2, ['oud', 'amber']]]);
    const odd = pairsOf(
      [
        { kind: 'oil', accords: oudAmber, score: 70 },
        { kind: 'spray', accords: oudAmber, score: 73 },
      ],
      loveOud,
    );
    expect(odd[0]?.score).toBe(72);
  });

  it('equal pairs keep the shop’s order: the earlier base, then the earlier spray', () => {
    const pairs = pairsOf(
      [
        { kind: 'spray', accords: oudAmber, score: 70 },
        { kind: 'oil', accords: oudAmber, score: 70 },
        { kind: 'oil', accords: oudAmber, score: 70 },
        { kind: 'spray', accords: oudAmber, score: 70 },
      ],
      loveOud,
    );
    expect(pairs.map((p) => [p.base, p.top])).toEqual([
      [1, 0],
      [2, 3],
    ]);
  });

  it(`at most ${MAX_PAIRS} pairs, from the best ${LAYER_CANDIDATES} bases and sprays, each product in one`, () => {
    const shop: P[] = [];
    for (let i = 0; i < 10; i++) shop.push({ kind: 'oil', accords: oudAmber, score: 90 - i });
    for (let i = 0; i < 10; i++) shop.push({ kind: 'spray', accords: oudAmber, score: 90 - i });
    const pairs = pairsOf(shop, loveOud);
    expect(pairs).toHaveLength(MAX_PAIRS);
    const used = pairs.flatMap((p) => [p.base, p.top]);
    expect(new Set(used).size).toBe(used.length);
    expect(pairs.map((p) => [p.base, p.top])).toEqual([
      [0, 10],
      [1, 11],
      [2, 12],
    ]);
    // only the six best of each are paired: a seventh-best base never is
    const few: P[] = [
      ...Array.from({ length: 7 }, (_, i): P => ({ kind: 'oil', accords: [['rose', 1]], score: 90 - i })),
      { kind: 'oil', accords: oudAmber, score: 60 },
      { kind: 'spray', accords: oudAmber, score: 90 },
    ];
    expect(pairsOf(few, loveOud)).toEqual([]);
  });

  it('keeps the best six whatever order the shop lists them in: a better base listed last displaces the worst', () => {
    const rising: P[] = [
      ...Array.from({ length: 7 }, (_, i): P => ({ kind: 'oil', accords: oudAmber, score: 61 + 2 * i })),
      ...Array.from({ length: 3 }, (): P => ({ kind: 'spray', accords: oudAmber, score: 90 })),
    ];
    expect(pairsOf(rising, loveOud).map((p) => [p.base, p.score])).toEqual([
      [6, 82],
      [5, 81],
      [4, 80],
    ]);
    const lateBest: P[] = [
      ...Array.from({ length: 6 }, (_, i): P => ({ kind: 'oil', accords: [['rose', 1]], score: 70 + i })),
      { kind: 'oil', accords: oudAmber, score: 90 },
      { kind: 'spray', accords: oudAmber, score: 90 },
    ];
    expect(pairsOf(lateBest, loveOud).map((p) => [p.base, p.top])).toEqual([[6, 7]]);
  });

  it('among equal scores the earlier listed is kept, and never more than six are', () => {
    const rose: P = { kind: 'oil', accords: [['rose', 1]], score: 70 };
    const spray: P = { kind: 'spray', accords: oudAmber, score: 90 };
    // six listed before it at the same score: the seventh is not kept
    expect(
      pairsOf([rose, rose, rose, rose, rose, rose, { kind: 'oil', accords: oudAmber, score: 70 }, spray], loveOud),
    ).toEqual([]);
    // the first of equals stays when a better one comes: the last of them goes
    const first = pairsOf(
      [{ kind: 'oil', accords: oudAmber, score: 70 }, rose, rose, rose, rose, rose, { ...rose, score: 71 }, spray],
      loveOud,
    );
    expect(first.map((p) => p.base)).toEqual([0]);
    // a worse one evicted stays out, however many better ones follow
    const evicted = pairsOf(
      [
        { kind: 'oil', accords: oudAmber, score: 80 },
        ...Array.from({ length: 5 }, (_, i): P => ({ ...rose, score: 81 + i })),
        { ...rose, score: 90 },
        spray,
      ],
      loveOud,
    );
    expect(evicted).toEqual([]);
  });
});

describe('keeping the best few (engine.ts keepBest), as layering and the alternatives do', () => {
  it('keeps what a full sort would put first, earlier first among equals, for any items', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 8 }),
        (xs, k) => {
          const best: { i: number; v: number }[] = [];
          for (const [i, v] of xs.entries()) keepBest(best, { i, v }, k, (a, b) => a.v > b.v);
          const sorted = xs.map((v, i) => ({ i, v })).sort((a, b) => b.v - a.v || a.i - b.i);
          expect(best).toEqual(sorted.slice(0, k));
        },
      ),
    );
  });

  it('does at most k + 1 comparisons an item: the work is the products, whatever their order', () => {
    for (const order of ['rising', 'falling', 'equal'] as const) {
      let comparisons = 0;
      const best: number[] = [];
      const n = 10_000;
      for (let i = 0; i < n; i++) {
        const v = order === 'rising' ? i : order === 'falling' ? n - i : 1;
        keepBest(best, v, 3, (a, b) => {
          comparisons++;
          return a > b;
        });
      }
      expect(best).toHaveLength(3);
      expect(comparisons).toBeLessThanOrEqual(n * 4);
    }
  });
});
