/**
 * Checks perfume data files against the schema and the vocabulary, each
 * record's accords against its own notes (matching/accord-check.ts), and the
 * catalog for records of different perfumes with near-identical pyramids that
 * no hand resolution accepts (catalog/alike.ts, data/alike.json):
 * Every record's facts are checked against its cited sources (catalog/evidence.ts); the
 * older grouped files' records report what they lack as backlog, not as problems.
 *   npm run catalog:check [file.json ...]   (default: the whole shipped catalog)
 */

import { checkAlike } from '../catalog/alike.ts';
import { loadAlikeResolutions, loadBundledCatalog, readPerfumeFile } from '../catalog/bundled.ts';
import { checkCatalog, type Problem } from '../catalog/validate.ts';
import { checkedPerfumeOf, unexplainedAccords } from '../matching/accord-check.ts';

const files = process.argv.slice(2);
const bundled = loadBundledCatalog();
const records = files.length ? files.flatMap((f) => readPerfumeFile(f)) : bundled.perfumes;
// a single file is checked for duplicates against the rest of the catalog too
const others = files.length ? bundled.perfumes.filter((p) => !records.some((r) => r.id === p.id)) : [];
const backlog: Problem[] = [];
const problems = checkCatalog([...records, ...others], bundled.houses, { legacy: bundled.legacy, backlog }).filter(
  (p) => p.index < records.length,
);
for (const p of problems) process.stdout.write(`${p.id ?? `#${p.index}`}: ${p.message}\n`);
const owed = backlog.filter((p) => p.index < records.length);
if (process.env.CATALOG_BACKLOG === '1') {
  for (const p of owed) process.stdout.write(`backlog ${p.id}: ${p.message}\n`);
}
let unexplained = 0;
for (const r of records) {
  const missing = unexplainedAccords(checkedPerfumeOf(r));
  if (missing.length === 0) continue;
  unexplained++;
  process.stdout.write(`${r.id}: lists ${missing.join(', ')} strongly, but none of its notes smells of it\n`);
}
// the pairs that involve a checked record, against the whole catalog
const checked = new Set(records.map((r) => r.id));
const alike = checkAlike([...records, ...others], loadAlikeResolutions());
const unresolved = alike.unresolved.filter((p) => checked.has(p.a) || checked.has(p.b));
for (const p of unresolved) {
  process.stdout.write(
    `${p.a} and ${p.b}: near-identical pyramids (${p.shared} notes shared, ${Math.round(p.similarity * 100)}% of all, ${Math.round(p.contained * 100)}% of the smaller); correct one, or accept the pair in catalog/data/alike.json with why\n`,
  );
}
const stale = files.length ? [] : alike.stale;
for (const s of stale) process.stdout.write(`catalog/data/alike.json: ${s}\n`);
const houses = new Set(records.map((r) => r.house));
const profiled = records.filter((r) => r.grade !== undefined).length;
const owing = new Set(owed.map((p) => p.id)).size;
process.stdout.write(
  `${records.length} perfumes from ${houses.size} houses (${profiled} with a profile), ${problems.length} problems, ${unexplained} with accords their notes do not explain, ${unresolved.length} near-identical pairs unresolved; ${owing} records of the older grouped files owe evidence (CATALOG_BACKLOG=1 lists it)\n`,
);
process.exitCode = problems.length || unexplained || unresolved.length || stale.length ? 1 : 0;
