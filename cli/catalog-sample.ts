/**
 * The catalog's samples, drawn to be checked by hand (docs/catalog.md):
 *   npm run catalog:sample [-- SEED [SIZE]] [--identities]
 * Draws SIZE records (default 100) of the shipped catalog at random,
 * reproducibly: records ordered by SHA-256 of "SEED:id", the first SIZE
 * taken. Prints one line per record as JSON Lines: id, region, house, name,
 * concentration, gender and year ("Accuracy, measured"); with
 * --identities, only records whose identity cites its evidence, each line
 * with the evidence its identity rests on (the evidence audit of
 * "Identities from shops' listings, reviewed").
 */
import { createHash } from 'node:crypto';
import { loadBundledCatalog } from '../catalog/bundled.ts';
import { readEvidence } from '../catalog/evidence.ts';

const identities = process.argv.includes('--identities');
const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const seed = args[0] ?? '20261128';
const size = Number(args[1] ?? 100);
const { houses, perfumes } = loadBundledCatalog();
const region = new Map(houses.map((h) => [h.name, h.region]));
const key = (id: string) => createHash('sha256').update(`${seed}:${id}`).digest('hex');
const drawn = identities ? perfumes.filter((p) => readEvidence(p).identity) : perfumes;
const sample = [...drawn].sort((a, b) => (key(a.id) < key(b.id) ? -1 : 1)).slice(0, size);
for (const p of sample) {
  const line: Record<string, unknown> = {
    id: p.id,
    region: region.get(p.house),
    house: p.house,
    name: p.name,
    concentration: p.concentration,
    gender: p.gender,
    year: p.year ?? null,
  };
  if (identities) line.evidence = (p.evidence ?? []).filter((e) => e.supports.includes('identity'));
  process.stdout.write(`${JSON.stringify(line)}\n`);
}
