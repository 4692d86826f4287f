import { loadBundledCatalog } from '../catalog/bundled.ts';
import { buildSnapshot, type CatalogSnapshot } from '../catalog/store.ts';

let snapshot: CatalogSnapshot | undefined;

/** The shipped catalog as the service holds it in memory, built once per test file without a database. */
export function bundledSnapshot(): CatalogSnapshot {
  if (snapshot) return snapshot;
  const { houses, perfumes } = loadBundledCatalog();
  snapshot = buildSnapshot(
    1,
    perfumes.map((p) => ({
      id: p.id,
      name: p.name,
      nameAr: p.name_ar ?? null,
      house: p.house,
      houseAr: p.house_ar ?? null,
      concentration: p.concentration,
      year: p.year ?? null,
      gender: p.gender,
      families: p.families,
      accords: [],
      notes: p.notes,
      seasons: [],
      times: [],
      occasions: [],
      aliases: p.aliases ?? [],
      imageUrl: null,
    })),
    houses.map((h) => ({
      name: h.name,
      nameAr: h.name_ar ?? null,
      aliases: h.aliases ?? [],
      abbreviations: h.abbreviations ?? [],
      region: null,
      country: null,
    })),
  );
  return snapshot;
}
