/**
 * Checks perfume data files against the schema and the vocabulary, and each
 * record's accords against its own notes (matching/accord-check.ts):
 *   npm run catalog:check [file.json ...]   (default: the whole shipped catalog)
 */

import { loadBundledCatalog, readPerfumeFile } from '../catalog/bundled.ts';
import { checkCatalog } from '../catalog/validate.ts';
import { checkedPerfumeOf, unexplainedAccords } from '../matching/accord-check.ts';

const files = process.argv.slice(2);
const bundled = loadBundledCatalog();
const records = files.length ? files.flatMap((f) => readPerfumeFile(f)) : bundled.perfumes;
// a single file is checked for duplicates against the rest of the catalog too
const others = files.length ? bundled.perfumes.filter((p) => !records.some((r) => r.id === p.id)) : [];
const problems = checkCatalog([...records, ...others], bundled.houses).filter((p) => p.index < records.length);
for (const p of problems) process.stdout.write(`${p.id ?? `#${p.index}`}: ${p.message}\n`);
let unexplained = 0;
for (const r of records) {
  const missing = unexplainedAccords(checkedPerfumeOf(r));
  if (missing.length === 0) continue;
  unexplained++;
  process.stdout.write(`${r.id}: lists ${missing.join(', ')} strongly, but none of its notes smells of it\n`);
}
const houses = new Set(records.map((r) => r.house));
process.stdout.write(
  `${records.length} perfumes from ${houses.size} houses, ${problems.length} problems, ${unexplained} with accords their notes do not explain\n`,
);
process.exitCode = problems.length || unexplained ? 1 : 0;
