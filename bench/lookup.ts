/**
 * Lookup relevance and speed against Fuse.js on the same catalog and queries.
 *   npm run bench -- lookup
 * Recall@k: the expected perfume (any of the acceptable ids) among the first k.
 * Time: median over 5 timed passes of each query's time, then the median and
 * p95 across queries. Both libraries get the same folded text (lib/text.ts),
 * so Fuse.js is not penalised for Arabic spelling variants it cannot fold.
 */
import { readFileSync } from 'node:fs';
import Fuse from 'fuse.js';
import { loadBundledCatalog } from '../catalog/bundled.ts';
import type { PerfumeRecord } from '../catalog/schema.ts';
import { buildSearchIndex, search } from '../catalog/search.ts';
import { normalizeText } from '../lib/text.ts';
import { fmt, median, quantile } from './stats.ts';
import { syntheticHouses, syntheticPerfumes } from './synthetic.ts';

export interface LookupQuery {
  query: string;
  expected: string[];
  kind: string;
}

export function loadQueries(): LookupQuery[] {
  const url = new URL('../tests/fixtures/lookup-queries.json', import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as LookupQuery[];
}

function timeQueries(queries: LookupQuery[], run: (q: string) => string[], passes = 5) {
  for (const q of queries.slice(0, 20)) run(q.query); // warm-up
  const perQuery: number[] = [];
  let hit1 = 0;
  let hit5 = 0;
  for (const q of queries) {
    const times: number[] = [];
    let ids: string[] = [];
    for (let i = 0; i < passes; i++) {
      const t = performance.now();
      ids = run(q.query);
      times.push(performance.now() - t);
    }
    perQuery.push(median(times));
    if (q.expected.includes(ids[0] ?? '')) hit1++;
    if (ids.slice(0, 5).some((id) => q.expected.includes(id))) hit5++;
  }
  return {
    recall1: hit1 / queries.length,
    recall5: hit5 / queries.length,
    medianMs: median(perQuery),
    p95Ms: quantile(perQuery, 0.95),
  };
}

function fuseFor(perfumes: PerfumeRecord[], houses: ReturnType<typeof loadBundledCatalog>['houses']) {
  const houseInfo = new Map(houses.map((h) => [h.name, h]));
  const docs = perfumes.map((p) => {
    const h = houseInfo.get(p.house);
    return {
      id: p.id,
      name: normalizeText(p.name),
      nameAr: normalizeText(p.name_ar ?? ''),
      aliases: (p.aliases ?? []).map(normalizeText),
      house: normalizeText([p.house, h?.name_ar ?? '', ...(h?.aliases ?? []), ...(h?.abbreviations ?? [])].join(' ')),
    };
  });
  const fuse = new Fuse(docs, {
    keys: [
      { name: 'name', weight: 2 },
      { name: 'nameAr', weight: 2 },
      { name: 'aliases', weight: 1.5 },
      { name: 'house', weight: 1 },
    ],
    threshold: 0.4,
    ignoreLocation: true,
    includeScore: true,
  });
  return (q: string) => fuse.search(normalizeText(q), { limit: 10 }).map((r) => r.item.id);
}

function oursFor(perfumes: PerfumeRecord[], houses: ReturnType<typeof loadBundledCatalog>['houses']) {
  const t = performance.now();
  const index = buildSearchIndex(
    perfumes.map((p) => ({ ...p, nameAr: p.name_ar })),
    houses.map((h) => ({ ...h, nameAr: h.name_ar })),
  );
  const buildMs = performance.now() - t;
  return { buildMs, run: (q: string) => search(index, q, { limit: 10 }).map((h) => h.id) };
}

export async function runLookupBench(log: (s: string) => void = console.log) {
  const { houses, perfumes } = loadBundledCatalog();
  const queries = loadQueries();
  const results: Record<string, unknown> = { queries: queries.length, catalog: perfumes.length };
  log(`lookup: ${queries.length} queries on the shipped catalog (${perfumes.length} perfumes)`);

  const ours = oursFor(perfumes, houses);
  const oursR = timeQueries(queries, ours.run);
  const fuseR = timeQueries(queries, fuseFor(perfumes, houses));
  results.shipped = {
    ours: { ...oursR, buildMs: ours.buildMs },
    fuse: fuseR,
    speedup: fuseR.medianMs / oursR.medianMs,
  };
  log('| catalog | engine | recall@1 | recall@5 | median ms/query | p95 ms/query |');
  log('|---|---|---|---|---|---|');
  log(
    `| shipped (${perfumes.length}) | ours | ${fmt(oursR.recall1)} | ${fmt(oursR.recall5)} | ${fmt(oursR.medianMs, 4)} | ${fmt(oursR.p95Ms, 4)} |`,
  );
  log(
    `| shipped (${perfumes.length}) | Fuse.js | ${fmt(fuseR.recall1)} | ${fmt(fuseR.recall5)} | ${fmt(fuseR.medianMs, 4)} | ${fmt(fuseR.p95Ms, 4)} |`,
  );

  for (const size of [20_000, 100_000]) {
    const synth = syntheticPerfumes(size - perfumes.length, 7);
    const all = [...perfumes, ...synth];
    const allHouses = [...houses, ...syntheticHouses(Math.max(10, Math.round(size / 40)))];
    const o = oursFor(all, allHouses);
    const oR = timeQueries(queries, o.run);
    // Fuse.js scans the whole catalog per query: a fixed sample of the queries keeps the run short
    const step = size > 20_000 ? 20 : 5;
    const fuseQueries = queries.filter((_, i) => i % step === 0);
    const fR = timeQueries(fuseQueries, fuseFor(all, allHouses), 1);
    results[`n${size}`] = { ours: { ...oR, buildMs: o.buildMs }, fuse: { ...fR, sampled: fuseQueries.length } };
    log(
      `| ${size} | ours (index built in ${Math.round(o.buildMs)} ms) | ${fmt(oR.recall1)} | ${fmt(oR.recall5)} | ${fmt(oR.medianMs, 4)} | ${fmt(oR.p95Ms, 4)} |`,
    );
    log(
      `| ${size} | Fuse.js (${fuseQueries.length} queries) | ${fmt(fR.recall1)} | ${fmt(fR.recall5)} | ${fmt(fR.medianMs, 4)} | ${fmt(fR.p95Ms, 4)} |`,
    );
  }
  return results;
}
