/**
 * Harvests perfume identities from real shops' public catalogs
 * (docs/catalog.md "Harvesting identities"): offline, never on a request.
 *
 *   npm run catalog:harvest -- [--files DIR] [--out DIR] [--apply-known [--apply-to legacy|all]]
 *
 * Sources are listed in catalog/harvest/sources.json, each with its
 * repository, path and commit. Their files are read from
 * DIR/<owner>+<repo>/<path> (default .harvest/files; `git show <commit>:<path>`
 * of a clone of each repository puts them there). Writes to the out folder
 * (default .harvest/out):
 *   proposals.json       identities the catalog lacks, with their shops' listings as evidence
 *   known-evidence.json  shops' listings of records the catalog has, by record id
 *   inspired.json        "inspired by" claims of shops' listings naming two records of ours,
 *                        with the independent shops behind each (catalog/harvest/inspired.ts)
 * --apply-known adds the shops' listings to the records of the house files
 * (catalog/data/perfumes; with --apply-to legacy, only those of the older
 * grouped files), each at most once; it never changes another fact.
 * --prune first takes out of every record the shops' listings that are not
 * its bottle: a sample, a miniature, a set, another perfume sold as the
 * answer to it (catalog/evidence.ts shopListingProblem), a decant shop's
 * listing, or one the matcher reads, as surely as the harvest asks, as
 * another perfume of the catalog. It prints each one taken out, and why.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DATA_DIR, loadBundledCatalog, readPerfumeFile } from '../catalog/bundled.ts';
import { isLegacyFile, shopListingProblem } from '../catalog/evidence.ts';
import { type HarvestedListing, harvest, harvestInspired, MIN_CONFIDENCE } from '../catalog/harvest/harvest.ts';
import { extractListings, type HarvestSource, sourceRef } from '../catalog/harvest/sources.ts';
import type { Evidence, PerfumeRecord } from '../catalog/schema.ts';
import { buildSnapshot } from '../catalog/store.ts';
import type { CatalogPerfume } from '../catalog/types.ts';
import { explainMatch } from '../matching/matcher.ts';
import { houseFromRecord, perfumeRow } from '../services/catalog.ts';

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '.harvest/files' },
    out: { type: 'string', default: '.harvest/out' },
    'apply-known': { type: 'boolean', default: false },
    'apply-to': { type: 'string', default: 'all' },
    prune: { type: 'boolean', default: false },
  },
});
const filesDir = values.files as string;
const outDir = values.out as string;

const sources = JSON.parse(readFileSync(join(DATA_DIR, '..', 'harvest', 'sources.json'), 'utf8')) as HarvestSource[];
const listings: HarvestedListing[] = [];
const bySource = new Map<string, HarvestedListing[]>();
for (const source of sources) {
  if (source.kind !== 'shop' || source.excluded) continue;
  const file = join(filesDir, source.repo.replace('/', '+'), source.path);
  if (!existsSync(file)) {
    process.stderr.write(`${source.id}: ${file} is missing; skipped\n`);
    continue;
  }
  try {
    const found = extractListings(readFileSync(file, 'utf8'), source.extract, { rows: true });
    const read = found.map((l) => ({
      source,
      title: l.title,
      houseField: l.house,
      ...(l.description ? { description: l.description } : {}),
    }));
    bySource.set(source.id, read);
    listings.push(...read.filter((l) => l.title !== ''));
  } catch (err) {
    process.stderr.write(`${source.id}: ${(err as Error).message}; skipped\n`);
  }
}

// a shop's catalog in the other script, row by row: each listing knows its twin
for (const source of sources) {
  const mine = bySource.get(source.id);
  const theirs = source.twin_of ? bySource.get(source.twin_of) : undefined;
  if (!mine || !theirs) continue;
  if (mine.length !== theirs.length) {
    process.stderr.write(`${source.id}: ${mine.length} listings, its twin ${theirs.length}; not paired\n`);
    continue;
  }
  mine.forEach((l, i) => {
    const twin = theirs[i] as HarvestedListing;
    if (l.title === '' || twin.title === '') return;
    l.twin = twin;
    twin.twin = l;
  });
}

const bundled = loadBundledCatalog();
const houseAr = new Map(bundled.houses.map((h) => [h.name, h.name_ar]));
const snapshot = buildSnapshot(
  1,
  bundled.perfumes.map((r) => perfumeRow(r, houseAr.get(r.house) ?? null) as CatalogPerfume),
  bundled.houses.map(houseFromRecord),
);
if (values.prune) {
  const decants = new Set(sources.filter((s) => s.sells === 'decants').map(sourceRef));
  const dir = join(DATA_DIR, 'perfumes');
  let pruned = 0;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const records = readPerfumeFile(join(dir, file));
    let changed = false;
    for (const r of records) {
      const kept = (r.evidence ?? []).filter((e) => {
        if (e.kind !== 'shop') return true;
        const why = decants.has(e.source)
          ? "a decant shop's listing"
          : (shopListingProblem(e.gave) ?? otherPerfume(r.id, e.gave));
        if (why === null) return true;
        process.stdout.write(`${file} ${r.id}: ${why}: ${e.owner}: ${e.gave}\n`);
        return false;
      });
      if (kept.length === (r.evidence ?? []).length) continue;
      pruned += (r.evidence ?? []).length - kept.length;
      (r as PerfumeRecord & { evidence: Evidence[] }).evidence = kept;
      changed = true;
    }
    if (changed) writeFileSync(join(dir, file), `${JSON.stringify(records, null, 2)}\n`);
  }
  process.stdout.write(`pruned: ${pruned} shop listings that are not their record's bottle\n`);
}

/** The other perfume of the catalog a cited listing names, as surely as the harvest asks; null when none. */
function otherPerfume(id: string, gave: string): string | null {
  // "House — title", "title (الماركة: …)": the harvest's own ways of writing a listing
  const [house, title] = gave.includes(' — ') ? (gave.split(' — ', 2) as [string, string]) : ['', gave];
  const match = explainMatch(snapshot, { name: title.replace(/\s*\((?:Brand|الماركة):.*$/u, ''), house });
  if (!match.perfumeId || match.perfumeId === id || match.sibling || match.confidence < MIN_CONFIDENCE) return null;
  return `another perfume (${match.perfumeId})`;
}

const result = harvest(snapshot, listings);
const inspired = harvestInspired(snapshot, listings);

mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'proposals.json'), `${JSON.stringify(result.proposals, null, 2)}\n`);
writeFileSync(join(outDir, 'inspired.json'), `${JSON.stringify(inspired.proposals, null, 2)}\n`);
writeFileSync(
  join(outDir, 'known-evidence.json'),
  `${JSON.stringify(Object.fromEntries([...result.known].sort((a, b) => a[0].localeCompare(b[0]))), null, 2)}\n`,
);

if (values['apply-known']) {
  const dir = join(DATA_DIR, 'perfumes');
  let added = 0;
  const only = values['apply-to'] === 'legacy' ? isLegacyFile : () => true;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json') && only(f))) {
    const records = readPerfumeFile(join(dir, file));
    let changed = false;
    for (const r of records) {
      const found = result.known.get(r.id);
      if (!found) continue;
      const have = new Set((r.evidence ?? []).map((e) => `${e.source}\u0000${e.gave}`));
      const fresh = found.filter((e) => !have.has(`${e.source}\u0000${e.gave}`));
      if (fresh.length === 0) continue;
      (r as PerfumeRecord & { evidence: Evidence[] }).evidence = [...(r.evidence ?? []), ...fresh].slice(0, 40);
      added += fresh.length;
      changed = true;
    }
    if (changed) writeFileSync(join(dir, file), `${JSON.stringify(records, null, 2)}\n`);
  }
  process.stdout.write(`applied: ${added} shop listings added as evidence to the catalog's records\n`);
}

const s = result.stats;
const twice = result.proposals.filter((p) => p.shops >= 2);
process.stdout.write(
  `${s.listings} listings from ${s.sources} sources of ${s.owners} shops: ${s.notPerfume} not a perfume's bottle, ${s.matchedKnown} of ${result.known.size} known records, ${s.matchedProposals} of ${result.proposals.length} proposed identities (${twice.length} named by 2 shops or more, ${new Set(twice.map((p) => p.house)).size} houses), ${s.unplaced} unplaced\n`,
);
const i = inspired.stats;
process.stdout.write(
  `"inspired by": ${i.claims} listings claim one: ${i.placed} name two records of ours (${inspired.proposals.length} relations, ${inspired.proposals.filter((p) => p.shops >= 2).length} claimed by 2 shops or more), ${i.alternativeUnknown} sell a perfume we lack, ${i.originalUnknown} name an original we lack or leave its concentration open\n`,
);
