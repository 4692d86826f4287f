import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromRoot } from '../lib/root.ts';
import type { AlikeResolution } from './alike.ts';
import { isLegacyFile } from './evidence.ts';
import { type HouseRecord, hasProfile, type PerfumeRecord, type ProfiledRecord } from './schema.ts';

export const DATA_DIR = fromRoot('catalog', 'data');

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

export interface BundledCatalog {
  houses: HouseRecord[];
  perfumes: PerfumeRecord[];
  /** the records with a scent profile */
  profiled: ProfiledRecord[];
  /** ids of the records of the older grouped files, not yet reviewed house by house */
  legacy: Set<string>;
}

/** The catalog shipped in the repository: houses and every perfume file, in file-name order. */
export function loadBundledCatalog(): BundledCatalog {
  const houses = JSON.parse(readFileSync(join(DATA_DIR, 'houses.json'), 'utf8')) as HouseRecord[];
  const dir = join(DATA_DIR, 'perfumes');
  const legacy = new Set<string>();
  const perfumes = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .flatMap((f) => {
      const records = readPerfumeFile(join(dir, f));
      if (isLegacyFile(f)) for (const r of records) legacy.add(r.id);
      return records;
    });
  return { houses, perfumes, profiled: perfumes.filter(hasProfile), legacy };
}
