import { buildSearchIndex, type SearchIndex } from './search.ts';
import type { CatalogHouse, CatalogPerfume } from './types.ts';

/** One immutable snapshot of the catalog: swapped whole when the catalog changes. */
export interface CatalogSnapshot {
  version: number;
  perfumes: readonly CatalogPerfume[];
  houses: readonly CatalogHouse[];
  byId: ReadonlyMap<string, CatalogPerfume>;
  houseByName: ReadonlyMap<string, CatalogHouse>;
  index: SearchIndex;
}

export function buildSnapshot(
  version: number,
  perfumes: readonly CatalogPerfume[],
  houses: readonly CatalogHouse[],
): CatalogSnapshot {
  const index = buildSearchIndex(perfumes, houses);
  return {
    version,
    perfumes,
    houses,
    byId: new Map(perfumes.map((p) => [p.id, p])),
    houseByName: new Map(houses.map((h) => [h.name, h])),
    index,
  };
}
