import { describe, expect, it } from 'vitest';
import {
  buildProductMatrix,
  buildTaste,
  fitOf,
  matchAccords,
  type ReferencePerfume,
  rank,
  scoreProducts,
  TIER_NEVER_SHOWN,
  tasteSummary,
} from '../scoring/engine.ts';
import type { Quiz } from '../scoring/quiz.ts';

/**
 * What a shopper reads beside the ranking: why a product matched
 * (`match_accords`) and their taste summary, each held exactly.
 */
const quiz = (q: Partial<Quiz>): Quiz => ({ families: [], ratings: [], season: null, occasion: null, ...q });

describe('matchAccords: the accords that drove a product’s score', () => {
  const product = buildProductMatrix([
    {
      profile: {
        families: ['floral'],
        accords: [
          { name: 'citrus', weight: 1 },
          { name: 'rose', weight: 0.9 },
          { name: 'oud', weight: 0.8 },
          { name: 'woody', weight: 0.5 },
          { name: 'leather', weight: 0.5 },
          { name: 'vanilla', weight: 0.3 },
        ],
        seasons: [],
        times: [],
        occasions: [],
      },
      line: 'a',
      house: 'h',
    },
  ]);
  const taste = buildTaste(
    quiz({
      ratings: [
        ['rose', 'love'],
        ['oud', 'like'],
        ['citrus', 'avoid'],
        ['vanilla', 'dislike'],
        ['woody', 'like'],
        ['leather', 'like'],
      ],
    }),
  );

  it('names only the accords the shopper likes, strongest contribution first, equal ones by name, at most three', () => {
    // citrus (avoided) and vanilla (disliked) are the product's too, but never a reason it matched
    expect(matchAccords(product, taste, 0)).toEqual(['rose', 'oud', 'leather']);
    expect(matchAccords(product, taste, 0, 2)).toEqual(['rose', 'oud']);
    expect(matchAccords(product, taste, 0, 10)).toEqual(['rose', 'oud', 'leather', 'woody']);
  });

  it('names nothing for a product with nothing the shopper likes', () => {
    const other = buildTaste(quiz({ ratings: [['citrus', 'avoid']] }));
    expect(matchAccords(product, other, 0)).toEqual([]);
  });
});

describe('tasteSummary', () => {
  it('rated accords only: top accords liked most first, avoided before disliked (each by name), neutral in neither', () => {
    const q = quiz({
      ratings: [
        ['rose', 'love'],
        ['oud', 'like'],
        ['citrus', 'avoid'],
        ['vanilla', 'dislike'],
        ['amber', 'avoid'],
        ['musky', 'neutral'],
      ],
    });
    // no family chosen: none reported as chosen; what the loves imply is marked inferred
    expect(tasteSummary(q, buildTaste(q))).toEqual({
      dominant_families: [],
      top_accords: ['rose', 'oud'],
      avoid_accords: ['amber', 'citrus', 'vanilla'],
      inferred: { families: ['oud'], accords: [] },
    });
  });

  it('reports the shopper: the families chosen and the accords loved; what the family and season imply only as inferred', () => {
    const q = quiz({ families: ['oud'], ratings: [['rose', 'love']], season: 'summer' });
    expect(tasteSummary(q, buildTaste(q))).toEqual({
      dominant_families: ['oud'],
      top_accords: ['rose'],
      avoid_accords: [],
      // the families whose accord the answers lean to most, beyond the one chosen, up to three in all
      inferred: { families: ['woody', 'citrus'], accords: ['oud', 'woody', 'citrus', 'fresh', 'saffron'] },
    });
  });

  it('never claims an accord the shopper did not say: an oud and amber shopper who loved oud has no vanilla, spice or balsam in top_accords', () => {
    const q = quiz({ families: ['oud', 'amber'], ratings: [['oud', 'love']], season: 'winter', occasion: 'evening' });
    const summary = tasteSummary(q, buildTaste(q));
    expect(summary.top_accords).toEqual(['oud']);
    expect(summary.dominant_families).toEqual(['oud', 'amber']);
    for (const a of ['vanilla', 'warm spicy', 'balsamic']) expect(summary.top_accords).not.toContain(a);
    expect(summary.inferred?.accords.length).toBeGreaterThan(0);
  });

  it('more than three families chosen: the first three; at most five top accords, equal ones by name', () => {
    const q = quiz({ families: ['oud', 'floral', 'citrus', 'woody'] });
    expect(tasteSummary(q, buildTaste(q))).toEqual({
      dominant_families: ['oud', 'floral', 'citrus'],
      top_accords: [],
      avoid_accords: [],
      inferred: { families: [], accords: ['citrus', 'floral', 'oud', 'woody', 'orange blossom'] },
    });
  });

  it('at most five top accords: loved before liked, each by name', () => {
    const q = quiz({
      ratings: [
        ['woody', 'like'],
        ['rose', 'love'],
        ['amber', 'like'],
        ['oud', 'love'],
        ['citrus', 'like'],
        ['vanilla', 'like'],
      ],
    });
    expect(tasteSummary(q, buildTaste(q)).top_accords).toEqual(['oud', 'rose', 'amber', 'citrus', 'vanilla']);
  });
});

describe('scores a shopper reads', () => {
  const product = (accords: [string, number][], times: string[] = []) => ({
    profile: {
      families: [],
      accords: accords.map(([name, weight]) => ({ name, weight })),
      seasons: [],
      times,
      occasions: [],
    },
    line: accords.map(([a]) => a).join('+') + times.join(''),
    house: 'h',
  });
  const m = buildProductMatrix([
    product([['rose', 1]]),
    product([['citrus', 1]]),
    product([['rose', 1]], ['night']),
    product([['oud', 1]]),
  ]);

  it('a disliked accord costs 1.5 × its share; an avoided one dominating takes the score to 0, never below', () => {
    // rose disliked (−0.5): 50 + 50 × 0.075 − 60 × 0.75 = 8.75; citrus avoided: 50 + 3.75 − 60 × 1 < 0
    const { scores, clash } = scoreProducts(
      m,
      buildTaste(
        quiz({
          ratings: [
            ['rose', 'dislike'],
            ['citrus', 'avoid'],
          ],
        }),
      ),
    );
    expect([...scores]).toEqual([9, 0, 9, 54]);
    expect([...clash]).toEqual([0, 1, 0, 0]);
  });

  it('a product’s times of day cost nothing when the quiz names no occasion', () => {
    const { scores } = scoreProducts(m, buildTaste(quiz({ ratings: [['rose', 'love']] })));
    expect([...scores]).toEqual([86, 54, 86, 54]);
  });
});

describe('a neutral rating', () => {
  it('keeps what the chosen families imply for that accord', () => {
    const chosen = quiz({ families: ['oud'] });
    const neutral = quiz({ families: ['oud'], ratings: [['oud', 'neutral']] });
    expect([...buildTaste(neutral).values]).toEqual([...buildTaste(chosen).values]);
    // but the summary does not claim a leaning the shopper said they do not have
    expect(tasteSummary(chosen, buildTaste(chosen)).inferred?.accords).toContain('oud');
    expect(tasteSummary(neutral, buildTaste(neutral)).inferred?.accords).not.toContain('oud');
    expect(tasteSummary(neutral, buildTaste(neutral)).top_accords).not.toContain('oud');
  });
});

describe('what a shopper reads does not depend on the order things were given in', () => {
  const permutations = <T>(xs: T[]): T[][] =>
    xs.length <= 1
      ? [xs]
      : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));

  it('the accords a product matched on, equal contributions by name', () => {
    const taste = buildTaste(
      quiz({
        ratings: [
          ['rose', 'like'],
          ['oud', 'like'],
          ['woody', 'like'],
          ['amber', 'love'],
        ],
      }),
    );
    const accords: [string, number][] = [
      ['rose', 0.5],
      ['oud', 0.5],
      ['woody', 0.5],
      ['amber', 0.25],
    ];
    for (const order of permutations(accords)) {
      const p = buildProductMatrix([
        {
          profile: {
            families: [],
            accords: order.map(([name, weight]) => ({ name, weight })),
            seasons: [],
            times: [],
            occasions: [],
          },
          line: 'a',
          house: 'h',
        },
      ]);
      // all four contribute 0.25 (liked 0.5 × 0.5, loved 1 × 0.25): by name
      expect(matchAccords(p, taste, 0, 4)).toEqual(['amber', 'oud', 'rose', 'woody']);
    }
  });

  it('the accords to avoid: avoided before disliked, each by name', () => {
    // names chosen so that by name alone the order would differ
    const ratings: [string, string][] = [
      ['amber', 'dislike'],
      ['vanilla', 'avoid'],
      ['citrus', 'dislike'],
      ['oud', 'avoid'],
    ];
    for (const order of permutations(ratings)) {
      const q = quiz({ ratings: order as Quiz['ratings'] });
      expect(tasteSummary(q, buildTaste(q)).avoid_accords).toEqual(['oud', 'vanilla', 'amber', 'citrus']);
    }
  });

  it('families the answers lean to equally: by name', () => {
    const ratings: [string, string][] = [
      ['woody', 'love'],
      ['citrus', 'love'],
      ['amber', 'love'],
      ['oud', 'love'],
    ];
    for (const order of permutations(ratings)) {
      const q = quiz({ ratings: order as Quiz['ratings'] });
      expect(tasteSummary(q, buildTaste(q)).inferred?.families).toEqual(['amber', 'citrus', 'oud']);
      expect(tasteSummary(q, buildTaste(q)).top_accords).toEqual(['amber', 'citrus', 'oud', 'woody']);
    }
  });

  it('a product’s accords are read from its own eight slots only', () => {
    const taste = buildTaste(quiz({ ratings: [['oud', 'love']] }));
    const eight = ['rose', 'citrus', 'woody', 'amber', 'vanilla', 'musky', 'leather', 'floral'];
    const p = buildProductMatrix([
      {
        profile: {
          families: [],
          accords: eight.map((name) => ({ name, weight: 0.5 })),
          seasons: [],
          times: [],
          occasions: [],
        },
        line: 'a',
        house: 'h',
      },
      {
        profile: { families: [], accords: [{ name: 'oud', weight: 1 }], seasons: [], times: [], occasions: [] },
        line: 'b',
        house: 'h',
      },
    ]);
    expect(matchAccords(p, taste, 0, 10)).toEqual([]);
    expect(matchAccords(p, taste, 1, 10)).toEqual(['oud']);
  });
});

describe('fit bands and prominent accords, at their edges', () => {
  it('a score is a strong fit from 75, a good one from 60, weaker below', () => {
    expect([100, 75, 74, 60, 59, 0].map(fitOf)).toEqual(['strong', 'strong', 'good', 'good', 'weak', 'weak']);
  });

  const one = (accords: [string, number][], gender?: string) =>
    buildProductMatrix([
      {
        profile: {
          families: ['woody'],
          accords: accords.map(([name, weight]) => ({ name, weight })),
          seasons: [],
          times: [],
          occasions: [],
        },
        line: 'l',
        house: 'h',
        gender,
      },
    ]);
  const tierOf = (m: ReturnType<typeof one>, q: Quiz) => scoreProducts(m, buildTaste(q)).tier[0];
  const sharesOf = (m: ReturnType<typeof one>, q: Quiz) => scoreProducts(m, buildTaste(q)).shares[0];

  it('prominent: the three strongest, however light, and any at 0.5 or more; equal weights in the order listed', () => {
    const light = one([
      ['woody', 0.4],
      ['amber', 0.3],
      ['rose', 0.2],
      ['oud', 0.1],
    ]);
    expect(tierOf(light, quiz({ ratings: [['rose', 'avoid']] }))).toBe(TIER_NEVER_SHOWN);
    expect(tierOf(light, quiz({ ratings: [['oud', 'avoid']] }))).not.toBe(TIER_NEVER_SHOWN);
    // a loved or liked accord is shared only where it is prominent
    expect(sharesOf(light, quiz({ ratings: [['rose', 'love']] }))).toBe(1);
    expect(sharesOf(light, quiz({ ratings: [['rose', 'like']] }))).toBe(1);
    expect(sharesOf(light, quiz({ ratings: [['oud', 'love']] }))).toBe(0);
    const heavy = one([
      ['woody', 1],
      ['amber', 0.9],
      ['rose', 0.8],
      ['oud', 0.5],
      ['musky', 0.49],
    ]);
    expect(tierOf(heavy, quiz({ ratings: [['oud', 'avoid']] }))).toBe(TIER_NEVER_SHOWN);
    expect(tierOf(heavy, quiz({ ratings: [['musky', 'avoid']] }))).not.toBe(TIER_NEVER_SHOWN);
    const equal = one([
      ['woody', 0.3],
      ['amber', 0.3],
      ['rose', 0.3],
      ['oud', 0.3],
    ]);
    expect(tierOf(equal, quiz({ ratings: [['rose', 'avoid']] }))).toBe(TIER_NEVER_SHOWN);
    expect(tierOf(equal, quiz({ ratings: [['oud', 'avoid']] }))).not.toBe(TIER_NEVER_SHOWN);
  });

  it('what a weaker or closest product must share: nothing when nothing was asked; a main family accord, the family, or a likeness to a loved perfume', () => {
    const made = (families: string[], accords: [string, number][]) =>
      buildProductMatrix([
        {
          profile: {
            families,
            accords: accords.map(([name, weight]) => ({ name, weight })),
            seasons: [],
            times: [],
            occasions: [],
          },
          line: 'l',
          house: 'h',
        },
      ]);
    const shares = (m: ReturnType<typeof made>, q: Quiz, loved: ReferencePerfume[] = []) =>
      scoreProducts(m, buildTaste(q, { loved })).shares[0];
    const rose = made(
      ['floral'],
      [
        ['rose', 1],
        ['patchouli', 0.5],
      ],
    );
    // only an accord avoided, or only a season: nothing asked for, so nothing to share
    expect(shares(rose, quiz({ ratings: [['oud', 'avoid']] }))).toBe(1);
    expect(shares(rose, quiz({ season: 'summer' }))).toBe(1);
    // a chosen family's main accord at exactly half its character counts, unless rated down
    expect(shares(rose, quiz({ families: ['woody'] }))).toBe(1);
    expect(shares(rose, quiz({ families: ['woody'], ratings: [['patchouli', 'dislike']] }))).toBe(0);
    // in the chosen family, whatever its accords
    expect(shares(made(['woody'], [['rose', 1]]), quiz({ families: ['woody'] }))).toBe(1);
    expect(shares(made(['floral'], [['rose', 1]]), quiz({ families: ['woody'] }))).toBe(0);
    // a loved perfume named: like it, or nothing in common
    const perfume = (accords: [string, number][]): ReferencePerfume => ({
      id: 'p',
      name: 'P',
      house: 'H',
      families: [],
      accords: accords.map(([name, weight]) => ({ name, weight })),
      notes: [],
    });
    expect(
      shares(rose, quiz({}), [
        perfume([
          ['rose', 1],
          ['patchouli', 0.5],
        ]),
      ]),
    ).toBe(1);
    expect(
      shares(rose, quiz({}), [
        perfume([
          ['aquatic', 1],
          ['marine', 0.8],
        ]),
      ]),
    ).toBe(0);
  });

  it('for whom: a product for the other wearer is never shown; unisex and unknown always may be', () => {
    const q = (gender?: 'men' | 'women') => quiz({ families: ['woody'], ...(gender ? { gender } : {}) });
    for (const [made, forMen, forWomen] of [
      ['men', true, false],
      ['women', false, true],
      ['unisex', true, true],
      [undefined, true, true],
    ] as const) {
      const m = one([['woody', 1]], made);
      expect(tierOf(m, q('men')) !== TIER_NEVER_SHOWN, `${made} for men`).toBe(forMen);
      expect(tierOf(m, q('women')) !== TIER_NEVER_SHOWN, `${made} for women`).toBe(forWomen);
      expect(tierOf(m, q())).not.toBe(TIER_NEVER_SHOWN);
    }
  });

  it('the weaker list never holds a product never to be shown, nor one that fits, nor one sharing nothing asked for', () => {
    const products = [
      // fits (60 or more)
      { accords: [['woody', 1]] as [string, number][], line: 'fits' },
      // weaker: indifferent-ish, nothing avoided, a touch of the chosen family
      {
        accords: [
          ['musky', 1],
          ['woody', 0.2],
        ] as [string, number][],
        line: 'weaker',
      },
      // as weak, but nothing in it was asked for: never shown, not even as weaker
      { accords: [['musky', 1]] as [string, number][], line: 'unasked' },
      // weaker by score, but rose (avoided) is prominent in it: one of its three strongest, however light
      {
        accords: [
          ['musky', 1],
          ['rose', 0.02],
        ] as [string, number][],
        line: 'avoided',
      },
    ].map((p) => ({
      profile: {
        families: ['musky'],
        accords: p.accords.map(([name, weight]) => ({ name, weight })),
        seasons: [],
        times: [],
        occasions: [],
      },
      line: p.line,
      house: p.line,
    }));
    const m = buildProductMatrix(products);
    const t = buildTaste(quiz({ families: ['woody'], ratings: [['rose', 'avoid']] }));
    const { scores } = scoreProducts(m, t);
    expect(scores[0]).toBeGreaterThanOrEqual(60);
    expect(scores[1]).toBeGreaterThanOrEqual(50);
    expect(scores[1]).toBeLessThan(60);
    expect(scores[2]).toBeGreaterThanOrEqual(50);
    expect(scores[3]).toBeGreaterThanOrEqual(50);
    const r = rank(m, t, 6);
    expect(r.recommendations.map((x) => x.index)).toEqual([0]);
    expect(r.alsoExplore).toEqual([{ index: 1, score: scores[1], reason: 'weaker_fit' }]);
  });

  it('inferred is left out when the answers imply nothing', () => {
    const q = quiz({ ratings: [['citrus', 'avoid']] });
    expect(tasteSummary(q, buildTaste(q))).toEqual({
      dominant_families: [],
      top_accords: [],
      avoid_accords: ['citrus'],
    });
  });
});

describe('the Gulf shopper’s filters: kinds, alcohol-free, budget (never shown what they rule out)', () => {
  const profile = {
    families: ['oud'],
    accords: [{ name: 'oud', weight: 1 }],
    seasons: [],
    times: [],
    occasions: [],
    notes: { top: [], heart: [], base: [] },
  } as unknown as Parameters<typeof buildProductMatrix>[0][number]['profile'];
  const items = [
    { kind: 'spray', price: 100 },
    { kind: 'spray', price: 250, alcoholFree: true },
    { kind: 'oil', price: 90 },
    { kind: 'bakhoor', price: 40 },
    { kind: 'oud_wood', price: 700 },
    { kind: 'mist', price: null },
    { kind: 'gift_set', price: 300 },
    { kind: 'sample', price: 20 },
    { kind: 'other', price: 10 },
    { price: 120 },
  ] as const;
  const m = buildProductMatrix(
    items.map(
      (p, i) => ({ profile, line: `l${i}`, house: `h${i}`, ...p }) as Parameters<typeof buildProductMatrix>[0][number],
    ),
  );
  const shown = (q: Partial<Quiz>) => {
    const { tier } = scoreProducts(m, buildTaste(quiz({ families: ['oud'], ...q })));
    return items.map((_, i) => i).filter((i) => tier[i] !== TIER_NEVER_SHOWN);
  };

  it('no answer: every kind, priced or not', () => {
    expect(shown({})).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('kinds: only those asked for (a product of no stated kind is a spray)', () => {
    expect(shown({ kinds: ['oil'] })).toEqual([2]);
    expect(shown({ kinds: ['spray'] })).toEqual([0, 1, 9]);
    expect(shown({ kinds: ['bakhoor', 'oud_wood', 'mist', 'gift_set', 'sample'] })).toEqual([3, 4, 5, 6, 7]);
  });

  it('alcohol-free: oils, bakhoor and oud wood, and a spray said so', () => {
    expect(shown({ alcoholFree: true })).toEqual([1, 2, 3, 4]);
  });

  it('budget: within both bounds, inclusive; no price, not shown', () => {
    expect(shown({ budget: { min: 0, max: 100 } })).toEqual([0, 2, 3, 7, 8]);
    expect(shown({ budget: { min: 100, max: 300 } })).toEqual([0, 1, 6, 9]);
    expect(shown({ budget: { min: 500, max: Number.POSITIVE_INFINITY } })).toEqual([4]);
    // from 0 with no top rules nothing out
    expect(shown({ budget: { min: 0, max: Number.POSITIVE_INFINITY } })).toContain(5);
  });

  it('together: each rule holds', () => {
    expect(shown({ kinds: ['spray', 'oil'], alcoholFree: true, budget: { min: 0, max: 200 } })).toEqual([2]);
  });
});
