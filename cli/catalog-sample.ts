/**
 * The catalog's accuracy sample (docs/catalog.md, "Accuracy, measured"):
 *   npm run catalog:sample [-- SEED [SIZE]]
 * Draws SIZE records (default 100) of the shipped catalog at random,
 * reproducibly: records ordered by SHA-256 of "SEED:id", the first SIZE
 * taken. Prints one line per record (id, region, house, name,
 * concentration, gender, year) as JSON Lines, to be checked by hand.
 */
import { createHash } from 'node:crypto';
import { loadBundledCatalog } from '../catalog/bundled.ts';

const seed = process.argv[2] ?? '20261128';
const size = Number(process.argv[3] ?? 100);
const { houses, perfumes } = loadBundledCatalog();
const region = new Map(houses.map((h) => [h.name, h.region]));
const key = (id: string) => createHash('sha256').update(`${seed}:${id}`).digest('hex');
const sample = [...perfumes].sort((a, b) => (key(a.id) < key(b.id) ? -1 : 1)).slice(0, size);
for (const p of sample) {
  process.stdout.write(
    `${JSON.stringify({ id: p.id, region: region.get(p.house), house: p.house, name: p.name, concentration: p.concentration, gender: p.gender, year: p.year ?? null })}\n`,
  );
}
