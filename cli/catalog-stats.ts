/**
 * The shipped catalog's size by region, grade and what its identities rest
 * on, as markdown tables (docs/catalog.md "Size and grades"):
 *   npm run catalog:stats
 */
import { loadBundledCatalog } from '../catalog/bundled.ts';
import { readEvidence } from '../catalog/evidence.ts';

const { houses, perfumes, legacy } = loadBundledCatalog();
const region = new Map(houses.map((h) => [h.name, h.region]));
const regions = ['middle-east', 'global'] as const;
const grades = ['confirmed', 'referenced', 'unreviewed', 'none'] as const;

const gradeOf = (p: (typeof perfumes)[number]) => p.grade ?? 'none';
const restsOn = (p: (typeof perfumes)[number]) => {
  const read = readEvidence(p);
  if (read.houseText) return "the house's text";
  if (read.identity) return 'two shops or more';
  return legacy.has(p.id) ? 'not yet cited (older grouped files)' : 'unbacked';
};

const out: string[] = [];
out.push(`| region | houses | perfumes | ${grades.join(' | ')} |`);
out.push(`|---|---|---|${grades.map(() => '---|').join('')}`);
for (const r of [...regions, 'all'] as const) {
  const rows = perfumes.filter((p) => r === 'all' || region.get(p.house) === r);
  const cells = grades.map((g) => rows.filter((p) => gradeOf(p) === g).length);
  out.push(`| ${r} | ${new Set(rows.map((p) => p.house)).size} | ${rows.length} | ${cells.join(' | ')} |`);
}
out.push('');
out.push('| identity rests on | perfumes |');
out.push('|---|---|');
const basis = new Map<string, number>();
for (const p of perfumes) basis.set(restsOn(p), (basis.get(restsOn(p)) ?? 0) + 1);
for (const [k, n] of [...basis].sort((a, b) => b[1] - a[1])) out.push(`| ${k} | ${n} |`);
out.push('');
out.push('| house | perfumes | with a profile |');
out.push('|---|---|---|');
const byHouse = new Map<string, { n: number; profiled: number }>();
for (const p of perfumes) {
  const h = byHouse.get(p.house) ?? { n: 0, profiled: 0 };
  h.n++;
  if (p.grade !== undefined) h.profiled++;
  byHouse.set(p.house, h);
}
for (const [h, c] of [...byHouse].sort((a, b) => b[1].n - a[1].n || a[0].localeCompare(b[0])).slice(0, 25)) {
  out.push(`| ${h} | ${c.n} | ${c.profiled} |`);
}
process.stdout.write(`${out.join('\n')}\n`);
