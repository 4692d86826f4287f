/**
 * The Gulf shopper's answers against a shop's compiled products (scoring/products.ts), cold:
 *   npm run bench -- gulf
 * 10,000 products of the shipped catalog's real profiles, of every kind a Gulf shelf sells
 * (of each ten: six sprays of stated concentrations, two oils, one bakhoor, one gift set), with
 * prices. Each of 40 generated quizzes is scored as it is, then with the Gulf answers (a gift,
 * lasts in heat, layering and a budget), then with a loved perfume (its alternatives block):
 * no answer cache, 5 runs a quiz, five rounds (BENCH_ROUNDS). Reported: the median and p99 over
 * the quizzes (medians of the rounds), and each case's median as a ratio to the plain quiz's in
 * the same round: what the new answers cost, free of the machine's noise between runs.
 */
import type { ProductKind } from '../matching/kind.ts';
import { CompiledProducts, type ScoringProduct } from '../scoring/products.ts';
import { type Quiz, quizKey } from '../scoring/quiz.ts';
import { benchLoved, benchQuizzes, engineProducts } from './engine.ts';
import { fmt, median, quantile } from './stats.ts';

const KINDS: ProductKind[] = [
  'spray',
  'spray',
  'oil',
  'spray',
  'bakhoor',
  'spray',
  'oil',
  'spray',
  'gift_set',
  'spray',
];
const CONCENTRATIONS = ['edp', 'edt', 'parfum', 'edc', 'extrait'];

export async function runGulfBench(log: (s: string) => void = console.log) {
  const N = 10_000;
  const rounds = Number(process.env.BENCH_ROUNDS) || 5;
  const products: ScoringProduct[] = engineProducts(N).map((p, i) => ({
    merchantProductId: `p${i}`,
    perfumeId: null,
    name: p.line,
    house: p.house,
    price: 50 + ((i * 37) % 950),
    currency: 'SAR',
    productUrl: null,
    imageUrl: null,
    quality: 'partial',
    kind: KINDS[i % KINDS.length] as ProductKind,
    concentration: CONCENTRATIONS[i % CONCENTRATIONS.length] as string,
    profile: { ...p.profile, source: 'merchant', notes: { top: [], heart: [], base: [] } } as ScoringProduct['profile'],
    line: p.line,
    lineHouse: p.house,
  }));
  const shop = new CompiledProducts(1, products, { rememberAnswers: false });
  const quizzes = benchQuizzes(40);
  const loved = benchLoved(40, 1, 12);
  const gulf = (q: Quiz): Quiz => ({
    ...q,
    gift: true,
    lastsInHeat: true,
    layering: true,
    budget: { min: 0, max: 600 },
  });
  const cases: { label: string; quiz: (i: number) => Quiz; refs: (i: number) => { loved: (typeof loved)[number] } }[] =
    [
      { label: 'quiz answers', quiz: (i) => quizzes[i] as Quiz, refs: () => ({ loved: [] }) },
      { label: '+ gift, heat, layering, budget', quiz: (i) => gulf(quizzes[i] as Quiz), refs: () => ({ loved: [] }) },
      {
        label: '+ those and a loved perfume (alternatives)',
        quiz: (i) => ({ ...gulf(quizzes[i] as Quiz), loved: [loved[i]?.[0]?.id as string] }),
        refs: (i) => ({ loved: loved[i] as (typeof loved)[number] }),
      },
    ];
  // each quiz object once, keyed as the service keys it
  for (const c of cases) for (let i = 0; i < quizzes.length; i++) quizKey(c.quiz(i));
  const perRound: { medians: number[]; p99s: number[] }[] = cases.map(() => ({ medians: [], p99s: [] }));
  const ratios: number[][] = cases.map(() => []);
  for (let round = 0; round < rounds; round++) {
    const roundMedians: number[] = [];
    cases.forEach((c, k) => {
      const qs = quizzes.map((_, i) => c.quiz(i));
      for (let i = 0; i < 5; i++) shop.score(qs[i] as Quiz, 6, { ...c.refs(i), disliked: [] }); // warm-up
      const perQuiz: number[] = [];
      qs.forEach((q, i) => {
        const runs: number[] = [];
        for (let r = 0; r < 5; r++) {
          const t = performance.now();
          shop.score(q, 6, { ...c.refs(i), disliked: [] });
          runs.push(performance.now() - t);
        }
        perQuiz.push(median(runs));
      });
      const med = median(perQuiz);
      roundMedians.push(med);
      perRound[k]?.medians.push(med);
      perRound[k]?.p99s.push(quantile(perQuiz, 0.99));
    });
    for (const [k, ratio] of ratios.entries()) ratio.push((roundMedians[k] as number) / (roundMedians[0] as number));
  }
  log(`gulf answers: ${N} products of every kind, ${quizzes.length} quizzes, ${rounds} rounds, cold (no answer cache)`);
  log('| quiz | median ms | p99 ms | ratio to the plain quiz (median of rounds) |');
  log('|---|---|---|---|');
  const results = cases.map((c, k) => {
    const r = {
      quiz: c.label,
      medianMs: median(perRound[k]?.medians ?? []),
      p99Ms: median(perRound[k]?.p99s ?? []),
      ratio: median(ratios[k] ?? []),
    };
    log(`| ${r.quiz} | ${fmt(r.medianMs)} | ${fmt(r.p99Ms)} | ${fmt(r.ratio, 2)} |`);
    return r;
  });
  return { products: N, rounds, cases: results };
}
