import { loadBundledCatalog } from '../catalog/bundled.ts';
import { buildSnapshot, type CatalogSnapshot } from '../catalog/store.ts';
import type { CatalogPerfume } from '../catalog/types.ts';
import { houseFromRecord, perfumeRow } from '../services/catalog.ts';

let snapshot: CatalogSnapshot | undefined;

/** The shipped catalog as the service holds it in memory, built once per test file without a database. */
export function bundledSnapshot(): CatalogSnapshot {
  if (snapshot) return snapshot;
  const { houses, perfumes } = loadBundledCatalog();
  const houseAr = new Map(houses.map((h) => [h.name, h.name_ar ?? null]));
  snapshot = buildSnapshot(
    1,
    // the rows an import would store, as loadCatalog reads them back
    perfumes.map((r) => perfumeRow(r, houseAr.get(r.house) ?? null) as CatalogPerfume),
    houses.map(houseFromRecord),
  );
  return snapshot;
}
