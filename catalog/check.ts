/**
 * Checks perfume data files against the schema and the vocabulary:
 *   npm run catalog:check [file.json ...]   (default: the whole shipped catalog)
 */
import { loadBundledCatalog, readPerfumeFile } from './bundled.ts';
import { checkCatalog } from './validate.ts';

const files = process.argv.slice(2);
const bundled = loadBundledCatalog();
const records = files.length ? files.flatMap((f) => readPerfumeFile(f)) : bundled.perfumes;
// a single file is checked for duplicates against the rest of the catalog too
const others = files.length ? bundled.perfumes.filter((p) => !records.some((r) => r.id === p.id)) : [];
const problems = checkCatalog([...records, ...others], bundled.houses).filter((p) => p.index < records.length);
for (const p of problems) process.stdout.write(`${p.id ?? `#${p.index}`}: ${p.message}\n`);
const houses = new Set(records.map((r) => r.house));
process.stdout.write(`${records.length} perfumes from ${houses.size} houses, ${problems.length} problems\n`);
process.exitCode = problems.length ? 1 : 0;
