/**
 * Run by bench/start.ts with --expose-gc: prints the heap the catalog takes in
 * one process. `records`: the perfume and house rows as the service reads them
 * from the database; `snapshot`: what it then holds (catalog/store.ts: the
 * rows, the maps by id and house, the search index). Argument: `shipped` or a
 * number of synthetic perfumes (bench/synthetic.ts).
 */
import { loadBundledCatalog } from '../catalog/bundled.ts';
import type { PerfumeRecord } from '../catalog/schema.ts';
import { buildSnapshot } from '../catalog/store.ts';
import type { CatalogPerfume } from '../catalog/types.ts';
import { houseFromRecord, perfumeRow } from '../services/catalog.ts';
import { syntheticHouses, syntheticPerfumes } from './synthetic.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const arg = process.argv[2] ?? 'shipped';
const source = (() => {
  const shipped = loadBundledCatalog();
  if (arg === 'shipped') return shipped;
  const extra = Number(arg) - shipped.perfumes.length;
  const houses = syntheticHouses(Math.max(10, Math.round(extra / 25)));
  return {
    houses: [...shipped.houses, ...houses],
    perfumes: [...shipped.perfumes, ...syntheticPerfumes(extra, 42, houses.length)] as PerfumeRecord[],
  };
})();
// the files' text and parsed records are the loader's, dropped once stored: serialise so only rows are built below
const text = JSON.stringify(source);
const houseCount = source.houses.length;

const base = heap();
const parsed = JSON.parse(text) as typeof source;
const houseAr = new Map(parsed.houses.map((h) => [h.name, h.name_ar ?? null]));
const rows = {
  perfumes: parsed.perfumes.map((r) => perfumeRow(r, houseAr.get(r.house) ?? null) as CatalogPerfume),
  houses: parsed.houses.map(houseFromRecord),
};
parsed.perfumes.length = 0;
const records = heap();
const started = performance.now();
const snapshot = buildSnapshot(1, rows.perfumes, rows.houses);
const indexMs = performance.now() - started;
const held = heap();
process.stdout.write(
  JSON.stringify({
    perfumes: snapshot.perfumes.length,
    houses: houseCount,
    recordsMb: (records - base) / 2 ** 20,
    snapshotMb: (held - base) / 2 ** 20,
    indexMs,
  }),
);
