/**
 * The scoring engine alone: score and rank 10,000 products for one quiz.
 *   npm run bench -- engine
 * Products: the shipped catalog's real profiles, repeated to 10,000 as
 * distinct products (each its own line). Quizzes: 40 generated from the
 * vocabulary with a fixed seed; then the same with loved perfumes (catalog
 * perfumes drawn with a fixed seed): one alone, one with the quiz's answers,
 * and five (the most a quiz may name). Each quiz is ranked cold (no answer
 * cache): the median over all quizzes of 5 timed runs each.
 */
import { loadBundledCatalog } from '../catalog/bundled.ts';
import { catalogProfile } from '../matching/profile.ts';
import { buildProductMatrix, buildTaste, type ReferencePerfume, rank } from '../scoring/engine.ts';
import { notesOf } from '../scoring/products.ts';
import { normalizeQuiz, type Quiz } from '../scoring/quiz.ts';
import { slugsOf } from '../vocabulary/index.ts';
import { median, quantile } from './stats.ts';
import { rng } from './synthetic.ts';

export function benchQuizzes(n: number, seed = 5): Quiz[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)] as T;
  const out: Quiz[] = [];
  while (out.length < n) {
    const ratings: Record<string, string> = {};
    for (let i = 0; i < 1 + Math.floor(r() * 5); i++) ratings[pick(slugsOf('accord'))] = pick(slugsOf('rating'));
    const q = normalizeQuiz({
      families: Array.from({ length: 1 + Math.floor(r() * 3) }, () => pick(slugsOf('family'))),
      accord_ratings: ratings,
      season: pick(slugsOf('season')),
      occasion: pick(slugsOf('occasion')),
    });
    if (q.ok) out.push(q.quiz);
  }
  return out;
}

export function engineProducts(count: number) {
  const { profiled: perfumes } = loadBundledCatalog();
  return Array.from({ length: count }, (_, i) => {
    const p = perfumes[i % perfumes.length] as (typeof perfumes)[number];
    return {
      profile: catalogProfile({
        ...p,
        accords: Object.entries(p.accords).map(([name, w]) => ({ name, weight: w / 100 })),
      }),
      line: `line-${i}`,
      house: `${p.house}-${Math.floor(i / perfumes.length)}`,
      notes: notesOf(p.notes),
    };
  });
}

/** `n` sets of `k` loved perfumes of the shipped catalog, drawn with a fixed seed. */
export function benchLoved(n: number, k: number, seed = 11): ReferencePerfume[][] {
  const { profiled: perfumes } = loadBundledCatalog();
  const r = rng(seed);
  return Array.from({ length: n }, () =>
    Array.from({ length: k }, () => {
      const p = perfumes[Math.floor(r() * perfumes.length)] as (typeof perfumes)[number];
      return {
        id: p.id,
        name: p.name,
        house: p.house,
        families: p.families,
        accords: Object.entries(p.accords).map(([name, w]) => ({ name, weight: w / 100 })),
        notes: notesOf(p.notes),
      };
    }),
  );
}

export async function runEngineBench(log: (s: string) => void = console.log) {
  const N = 10_000;
  const products = engineProducts(N);
  let t = performance.now();
  const matrix = buildProductMatrix(products);
  const compileMs = performance.now() - t;
  const quizzes = benchQuizzes(40);
  const lovedOnly = normalizeQuiz({ loved_perfumes: ['x'] });
  if (!lovedOnly.ok) throw new Error('a quiz of a loved perfume alone is refused');
  const cases: { label: string; quiz: (i: number) => Quiz; loved: ReferencePerfume[][] }[] = [
    { label: 'quiz answers', quiz: (i) => quizzes[i] as Quiz, loved: quizzes.map(() => []) },
    { label: 'one loved perfume alone', quiz: () => lovedOnly.quiz, loved: benchLoved(40, 1) },
    { label: 'one loved perfume and quiz answers', quiz: (i) => quizzes[i] as Quiz, loved: benchLoved(40, 1, 12) },
    { label: 'five loved perfumes', quiz: () => lovedOnly.quiz, loved: benchLoved(40, 5, 13) },
  ];
  log(`engine: ${N} products compiled in ${compileMs.toFixed(1)} ms (once per catalog version)`);
  log('| quiz | products | median ms per quiz (score + rank) | p95 ms | products scored per second |');
  log('|---|---|---|---|---|');
  const results = [];
  for (const c of cases) {
    const taste = (i: number) => buildTaste(c.quiz(i), { loved: c.loved[i] });
    for (let i = 0; i < 10; i++) rank(matrix, taste(i), 6); // warm-up
    const perQuiz: number[] = [];
    for (let q = 0; q < quizzes.length; q++) {
      const runs: number[] = [];
      for (let i = 0; i < 5; i++) {
        t = performance.now();
        rank(matrix, taste(q), 6);
        runs.push(performance.now() - t);
      }
      perQuiz.push(median(runs));
    }
    const med = median(perQuiz);
    const result = {
      quiz: c.label,
      products: N,
      compileMs,
      medianMs: med,
      p95Ms: quantile(perQuiz, 0.95),
      productsPerSecond: N / (med / 1000),
    };
    results.push(result);
    log(
      `| ${c.label} | ${N} | ${med.toFixed(3)} | ${result.p95Ms.toFixed(3)} | ${Math.round(result.productsPerSecond).toLocaleString('en')} |`,
    );
  }
  return { ...(results[0] as (typeof results)[number]), cases: results };
}
