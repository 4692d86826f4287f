import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AlikeResolution } from './alike.ts';
import type { HouseRecord, PerfumeRecord } from './schema.ts';

export const DATA_DIR = join(dirname(fileURLToPath(import.meta.url)), 'data');

export function readPerfumeFile(path: string): PerfumeRecord[] {
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
  if (!Array.isArray(parsed)) throw new Error(`${path}: expected a JSON array of perfumes`);
  return parsed as PerfumeRecord[];
}

/** A record an earlier release shipped and this one withdraws, with why. */
export interface WithdrawnRecord {
  id: string;
  reason: string;
}

/**
 * The records withdrawn from the shipped catalog (data/withdrawn.json): a
 * database an earlier release loaded still holds them until the load removes
 * them (services/catalog.ts).
 */
export function loadWithdrawn(): WithdrawnRecord[] {
  return JSON.parse(readFileSync(join(DATA_DIR, 'withdrawn.json'), 'utf8')) as WithdrawnRecord[];
}

/**
 * The hand resolutions of records whose pyramids are near-identical
 * (data/alike.json, catalog/alike.ts): the pairs known and accepted, with why.
 */
export function loadAlikeResolutions(): AlikeResolution[] {
  return JSON.parse(readFileSync(join(DATA_DIR, 'alike.json'), 'utf8')) as AlikeResolution[];
}

/** The catalog shipped in the repository: houses and every perfume file, in file-name order. */
export function loadBundledCatalog(): { houses: HouseRecord[]; perfumes: PerfumeRecord[] } {
  const houses = JSON.parse(readFileSync(join(DATA_DIR, 'houses.json'), 'utf8')) as HouseRecord[];
  const dir = join(DATA_DIR, 'perfumes');
  const perfumes = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .flatMap((f) => readPerfumeFile(join(dir, f)));
  return { houses, perfumes };
}
