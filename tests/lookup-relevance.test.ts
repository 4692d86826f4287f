import { describe, expect, it } from 'vitest';
import { loadQueries } from '../bench/lookup.ts';
import { loadBundledCatalog } from '../catalog/bundled.ts';
import { buildSearchIndex, search } from '../catalog/search.ts';

/**
 * Floors recorded in docs/benchmarks.md (measured: recall@1 0.994, recall@5
 * 1.000 on 505 queries). A change that loses relevance fails here.
 */
const RECALL_AT_1_FLOOR = 0.97;
const RECALL_AT_5_FLOOR = 0.99;
/** each kind of query on its own, so one kind cannot hide behind the others */
const PER_KIND_RECALL_AT_5_FLOOR = 0.95;

describe('lookup relevance on the shipped catalog', () => {
  const { houses, perfumes } = loadBundledCatalog();
  // built inside the test, not on loading: the mutation run then knows which test uses it
  const buildIndex = () =>
    buildSearchIndex(
      perfumes.map((p) => ({ ...p, nameAr: p.name_ar })),
      houses.map((h) => ({ ...h, nameAr: h.name_ar })),
    );
  const queries = loadQueries();

  it('has at least 200 labelled queries of every kind, all naming perfumes that exist', () => {
    expect(queries.length).toBeGreaterThanOrEqual(200);
    const kinds = new Set(queries.map((q) => q.kind));
    for (const k of ['typo', 'arabic', 'abbreviation', 'partial']) expect(kinds).toContain(k);
    const ids = new Set(perfumes.map((p) => p.id));
    for (const q of queries) for (const id of q.expected) expect(ids.has(id), `${q.query} → ${id}`).toBe(true);
  });

  it(`finds the expected perfume first in ≥ ${RECALL_AT_1_FLOOR * 100}% and in the top 5 in ≥ ${RECALL_AT_5_FLOOR * 100}%`, () => {
    const index = buildIndex();
    let at1 = 0;
    let at5 = 0;
    const byKind = new Map<string, { n: number; at5: number }>();
    for (const q of queries) {
      const ids = search(index, q.query, { limit: 5 }).map((h) => h.id);
      if (q.expected.includes(ids[0] ?? '')) at1++;
      const hit5 = ids.some((id) => q.expected.includes(id));
      if (hit5) at5++;
      const k = byKind.get(q.kind) ?? { n: 0, at5: 0 };
      k.n++;
      if (hit5) k.at5++;
      byKind.set(q.kind, k);
    }
    expect(at1 / queries.length).toBeGreaterThanOrEqual(RECALL_AT_1_FLOOR);
    expect(at5 / queries.length).toBeGreaterThanOrEqual(RECALL_AT_5_FLOOR);
    for (const [kind, k] of byKind) {
      if (k.n >= 10) expect(k.at5 / k.n, kind).toBeGreaterThanOrEqual(PER_KIND_RECALL_AT_5_FLOOR);
    }
  });
});
