import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildProductMatrix,
  buildTaste,
  type ExploreReason,
  FIT_FLOOR,
  PROMINENT_RANK,
  PROMINENT_WEIGHT,
  type ProductMatrix,
  type Ranked,
  rank,
  scoreProducts,
  type Taste,
  TIER_NEVER_SHOWN,
  topK,
  WEAK_FLOOR,
} from '../scoring/engine.ts';
import { normalizeQuiz, type Quiz, type QuizInput } from '../scoring/quiz.ts';
import { familyAccords, slugsOf } from '../vocabulary/index.ts';

/**
 * The ranking a shopper sees, for all catalogs and quizzes: never more than
 * the limit, one product per line and two per house while there are enough,
 * also_explore apart from the recommendations, a product's score its own.
 * Products may hold more accords than the engine keeps (eight) and accords it
 * does not know.
 */
const ACCORDS = slugsOf('accord');
const FAMILIES = slugsOf('family');
const RATINGS = slugsOf('rating');

const quizOf = (input: QuizInput): Quiz => {
  const r = normalizeQuiz(input);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.quiz;
};

const accordsArb = fc
  .uniqueArray(fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...ACCORDS) }, fc.constantFrom('smoke-x', 'unknown')), {
    minLength: 0,
    maxLength: 12,
  })
  .chain((names) =>
    fc
      .tuple(...names.map(() => fc.integer({ min: -20, max: 120 })))
      .map((ws) => names.map((name, i) => ({ name, weight: (ws[i] as number) / 100 }))),
  );
const profileArb = fc.record({
  families: fc.uniqueArray(fc.constantFrom(...FAMILIES), { maxLength: 3 }),
  accords: accordsArb,
  seasons: fc.uniqueArray(fc.constantFrom(...slugsOf('season')), { maxLength: 4 }),
  times: fc.uniqueArray(fc.constantFrom(...slugsOf('time')), { maxLength: 2 }),
  occasions: fc.uniqueArray(fc.constantFrom(...slugsOf('occasion')), { maxLength: 4 }),
});
type Product = { profile: Parameters<typeof buildProductMatrix>[0][number]['profile']; line: string; house: string };

/** The products that fit a quiz (60 or more, no avoided accord prominent): the ones a recommendation is drawn from. */
function fittingOf(products: Product[], quiz: Quiz): number[] {
  const { scores, tier } = scoreProducts(buildProductMatrix(products), buildTaste(quiz));
  return [...scores.keys()].filter((i) => tier[i] !== TIER_NEVER_SHOWN && (scores[i] as number) >= FIT_FLOOR);
}

/** A profile's prominent accords, the plain way: of the first eight known, the three strongest and any at 0.5 or more. */
function prominentOf(profile: Product['profile']): string[] {
  const known = new Set<string>(ACCORDS);
  const kept = profile.accords
    .filter((a) => known.has(a.name))
    .slice(0, 8)
    .map((a, slot) => ({ name: a.name, w: Math.max(0, Math.min(1, a.weight)), slot }));
  const byWeight = [...kept].sort((a, b) => b.w - a.w || a.slot - b.slot);
  return byWeight.filter((a, r) => r < PROMINENT_RANK || a.w >= PROMINENT_WEIGHT).map((a) => a.name);
}
/** products with lines and houses drawn from a few, so that twins and crowded houses are common */
const catalogArb = (maxLength: number, lines = 6, houses = 4) =>
  fc.array(
    fc.record({
      profile: profileArb,
      line: fc.nat(lines - 1).map((i) => `line-${i}`),
      house: fc.nat(houses - 1).map((i) => `house-${i}`),
    }),
    { minLength: 1, maxLength },
  );
const quizArb = fc
  .record(
    {
      families: fc.uniqueArray(fc.constantFrom(...FAMILIES), { maxLength: 4 }),
      accord_ratings: fc.dictionary(fc.constantFrom(...ACCORDS), fc.constantFrom(...RATINGS), { maxKeys: 8 }),
      season: fc.constantFrom(...slugsOf('season')),
      occasion: fc.constantFrom(...slugsOf('occasion')),
    },
    { requiredKeys: ['families'] },
  )
  .filter((q) => q.families.length > 0 || Object.keys(q.accord_ratings ?? {}).length > 0)
  .map(quizOf);

/** The ranking order: by tier (the loved perfume itself, the rest, the never shown), then score, then position. */
function ordered(scores: Uint8Array, tier: Uint8Array): number[] {
  return [...scores.keys()].sort(
    (a, b) => (tier[a] as number) - (tier[b] as number) || (scores[b] as number) - (scores[a] as number) || a - b,
  );
}

/**
 * The ranking written the plain way: every product sorted; the picks drawn
 * from the best `limit × 6 + 20` of those that fit (60 or more, no avoided
 * accord prominent); one per line, two per house, then the next fitting;
 * also_explore: up to three more fitting ones of that pool, of families the
 * shopper did not choose, of lines not shown yet; then, when fewer than
 * `limit` fit, up to three of the best twelve weaker ones (50–59, no avoided
 * accord prominent) of lines not shown yet — "closest" when none fits.
 */
function plainRank(m: ProductMatrix, t: Taste, limit: number) {
  const { scores, tier, shares } = scoreProducts(m, t);
  const all = ordered(scores, tier);
  const pool = all
    .filter((i) => tier[i] !== TIER_NEVER_SHOWN && (scores[i] as number) >= FIT_FLOOR)
    .slice(0, limit * 6 + 20);
  const picked: number[] = [];
  for (const i of pool) {
    if (picked.length === limit) break;
    const house = picked.filter((j) => m.houseKey[j] === m.houseKey[i]).length;
    if (picked.some((j) => m.lineKey[j] === m.lineKey[i]) || house >= 2) continue;
    picked.push(i);
  }
  for (const i of pool) if (picked.length < limit && !picked.includes(i)) picked.push(i);
  const recommendations = pool.filter((i) => picked.includes(i));
  const explore: { i: number; reason: ExploreReason }[] = [];
  const linesShown = () => [...recommendations, ...explore.map((e) => e.i)].map((j) => m.lineKey[j]);
  for (const i of pool) {
    const fam = m.familyMask[i] as number;
    if (explore.length === 3 || recommendations.includes(i)) continue;
    if (!fam || fam & t.familyMask || linesShown().includes(m.lineKey[i] as number)) continue;
    explore.push({ i, reason: 'other_family' });
  }
  if (recommendations.length < limit) {
    const weaker = all
      .filter(
        (i) =>
          tier[i] !== TIER_NEVER_SHOWN &&
          (scores[i] as number) >= WEAK_FLOOR &&
          (scores[i] as number) < FIT_FLOOR &&
          shares[i] === 1,
      )
      .slice(0, 12);
    let added = 0;
    for (const i of weaker) {
      if (added === 3 || linesShown().includes(m.lineKey[i] as number)) continue;
      explore.push({ i, reason: recommendations.length ? 'weaker_fit' : 'closest' });
      added++;
    }
  }
  const ranked = (i: number): Ranked => ({ index: i, score: scores[i] as number });
  return {
    recommendations: recommendations.map(ranked),
    alsoExplore: explore.map((e) => ({ ...ranked(e.i), reason: e.reason })),
  };
}

const limitArb = fc.integer({ min: 1, max: 8 });

describe('the ranking, for all catalogs and quizzes', () => {
  it('is the plain ranking: fitting products only, best first, one per line and two per house from the best limit × 6 + 20, then the next fitting', () => {
    fc.assert(
      fc.property(catalogArb(70), quizArb, limitArb, (products, quiz, limit) => {
        const m = buildProductMatrix(products);
        const t = buildTaste(quiz);
        const { recommendations, alsoExplore } = rank(m, t, limit);
        expect({ recommendations, alsoExplore }).toEqual(plainRank(m, t, limit));
      }),
      { numRuns: 300 },
    );
  });

  it('never answers more than the limit, and as many as fit', () => {
    fc.assert(
      fc.property(catalogArb(40), quizArb, fc.integer({ min: 1, max: 50 }), (products, quiz, limit) => {
        const m = buildProductMatrix(products);
        const t = buildTaste(quiz);
        const { scores, tier } = scoreProducts(m, t);
        const fitting = [...scores.keys()].filter(
          (i) => tier[i] !== TIER_NEVER_SHOWN && (scores[i] as number) >= FIT_FLOOR,
        );
        const r = rank(m, t, limit);
        expect(r.recommendations).toHaveLength(Math.min(limit, fitting.length));
        expect(r.alsoExplore.length).toBeLessThanOrEqual(6);
      }),
    );
  });

  it('a recommendation always fits: 60 or more, and no avoided accord among its prominent ones', () => {
    fc.assert(
      fc.property(catalogArb(40), quizArb, limitArb, (products, quiz, limit) => {
        const m = buildProductMatrix(products);
        const t = buildTaste(quiz);
        const avoided = new Set(quiz.ratings.filter(([, r]) => r === 'avoid').map(([a]) => a));
        for (const x of rank(m, t, limit).recommendations) {
          expect(x.score).toBeGreaterThanOrEqual(FIT_FLOOR);
          for (const a of prominentOf((products[x.index] as Product).profile))
            expect(avoided.has(a as never)).toBe(false);
        }
      }),
    );
  });

  it('recommendations come in the order of the scores shown: a higher number is never below a lower one', () => {
    fc.assert(
      fc.property(catalogArb(40), quizArb, limitArb, (products, quiz, limit) => {
        const scores = rank(buildProductMatrix(products), buildTaste(quiz), limit).recommendations.map((x) => x.score);
        expect(scores).toEqual([...scores].sort((a, b) => b - a));
      }),
    );
  });

  it('a weaker or closest product shares something asked for: a prominent accord loved, liked or main in a chosen family, or a chosen family', () => {
    fc.assert(
      fc.property(catalogArb(40), quizArb, limitArb, (products, quiz, limit) => {
        const wanted = new Set(quiz.ratings.filter(([, r]) => r === 'love' || r === 'like').map(([a]) => a as string));
        const down = new Set(
          quiz.ratings.filter(([, r]) => r === 'avoid' || r === 'dislike').map(([a]) => a as string),
        );
        const families = new Set<string>(quiz.families);
        // a chosen family's main accords (weight 0.5 or more), unless rated down
        for (const f of quiz.families)
          for (const [a, w] of familyAccords(f)) if (w >= 0.5 && !down.has(a)) wanted.add(a);
        fc.pre(wanted.size > 0 || families.size > 0);
        const r = rank(buildProductMatrix(products), buildTaste(quiz), limit);
        for (const x of r.alsoExplore.filter((e) => e.reason === 'weaker_fit' || e.reason === 'closest')) {
          const p = products[x.index] as Product;
          const shared =
            prominentOf(p.profile).some((a) => wanted.has(a)) || p.profile.families.some((f) => families.has(f));
          expect(shared).toBe(true);
        }
      }),
    );
  });

  it('no two recommendations share a line while there are enough fitting lines', () => {
    // every line its own house, so the house rule never decides
    const oneHouseEach = catalogArb(26, 10).map((ps) => ps.map((p) => ({ ...p, house: p.line })));
    fc.assert(
      fc.property(oneHouseEach, quizArb, limitArb, (products, quiz, limit) => {
        const fit = fittingOf(products, quiz);
        const lines = new Set(fit.map((i) => (products[i] as Product).line));
        fc.pre(lines.size >= limit);
        const r = rank(buildProductMatrix(products), buildTaste(quiz), limit);
        const shown = r.recommendations.map((x) => (products[x.index] as Product).line);
        expect(new Set(shown).size).toBe(shown.length);
      }),
    );
  });

  it('no house more than twice while there are enough fitting houses', () => {
    const oneLineEach = catalogArb(26, 1, 5).map((ps) => ps.map((p, i) => ({ ...p, line: `line-${i}` })));
    fc.assert(
      fc.property(oneLineEach, quizArb, limitArb, (products, quiz, limit) => {
        const houses = fittingOf(products, quiz).map((i) => (products[i] as Product).house);
        const room = [...new Set(houses)].reduce((n, h) => n + Math.min(2, houses.filter((x) => x === h).length), 0);
        fc.pre(room >= limit);
        const r = rank(buildProductMatrix(products), buildTaste(quiz), limit);
        const shown = r.recommendations.map((x) => (products[x.index] as Product).house);
        for (const h of shown) expect(shown.filter((x) => x === h).length).toBeLessThanOrEqual(2);
      }),
    );
  });

  it('also_explore never repeats a recommendation or a line shown, never holds an avoided accord prominent, and says why each is there', () => {
    fc.assert(
      fc.property(catalogArb(40), quizArb, limitArb, (products, quiz, limit) => {
        const m = buildProductMatrix(products);
        const t = buildTaste(quiz);
        const { tier } = scoreProducts(m, t);
        const r = rank(m, t, limit);
        const shown = r.recommendations.map((x) => x.index);
        const lines = new Set(shown.map((i) => (products[i] as Product).line));
        for (const x of r.alsoExplore) {
          const p = products[x.index] as Product;
          expect(shown).not.toContain(x.index);
          expect(lines.has(p.line)).toBe(false);
          lines.add(p.line);
          expect(tier[x.index]).not.toBe(TIER_NEVER_SHOWN);
          if (x.reason === 'other_family') {
            expect(x.score).toBeGreaterThanOrEqual(FIT_FLOOR);
            expect(p.profile.families.length).toBeGreaterThan(0);
            for (const f of p.profile.families) expect(quiz.families).not.toContain(f);
          } else {
            // weaker: only when the list is short, and "closest" only when nothing fits
            expect(x.score).toBeGreaterThanOrEqual(WEAK_FLOOR);
            expect(x.score).toBeLessThan(FIT_FLOOR);
            expect(shown.length).toBeLessThan(limit);
            expect(x.reason).toBe(shown.length === 0 ? 'closest' : 'weaker_fit');
          }
        }
      }),
    );
  });

  it('adding a product never changes another product’s score, whatever its accords', () => {
    fc.assert(
      fc.property(catalogArb(20), profileArb, quizArb, (products, extra, quiz) => {
        const t = buildTaste(quiz);
        const before = scoreProducts(buildProductMatrix(products), t);
        const after = scoreProducts(buildProductMatrix([...products, { profile: extra, line: 'x', house: 'y' }]), t);
        expect([...after.scores.slice(0, products.length)]).toEqual([...before.scores]);
        expect([...after.clash.slice(0, products.length)]).toEqual([...before.clash]);
      }),
    );
  });

  it('a product scores as its first eight known accords, each weight held within 0 to 1', () => {
    const known = new Set<string>(ACCORDS);
    fc.assert(
      fc.property(catalogArb(12), quizArb, (products, quiz) => {
        const t = buildTaste(quiz);
        const plain = products.map((p) => ({
          ...p,
          profile: {
            ...p.profile,
            accords: p.profile.accords
              .filter((a) => known.has(a.name))
              .slice(0, 8)
              .map((a) => ({ name: a.name, weight: Math.min(1, Math.max(0, a.weight)) })),
          },
        }));
        const got = scoreProducts(buildProductMatrix(products), t);
        const want = scoreProducts(buildProductMatrix(plain), t);
        expect([...got.scores]).toEqual([...want.scores]);
        expect([...got.clash]).toEqual([...want.clash]);
        // the same, each product alone
        products.forEach((p, i) => {
          expect(scoreProducts(buildProductMatrix([p]), t).scores[0]).toBe(want.scores[i]);
        });
      }),
    );
  });

  it('topK is the first k of the ranking order, without the products skipped', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 1 })), { maxLength: 60 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 5 }),
        (rows, k, every) => {
          const scores = Uint8Array.from(rows.map(([s]) => s));
          const clash = Uint8Array.from(rows.map(([, c]) => c));
          const skip = (i: number) => i % every === every - 1;
          const expected = ordered(scores, clash)
            .filter((i) => every === 1 || !skip(i))
            .slice(0, k);
          const got = topK(scores, clash, k, every === 1 ? undefined : skip);
          expect(got.map((r) => r.index)).toEqual(expected);
          expect(got.map((r) => r.score)).toEqual(expected.map((i) => scores[i]));
        },
      ),
      { numRuns: 300 },
    );
  });
});
