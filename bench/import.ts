/**
 * Catalog import speed and memory on a generated 100,000-row CSV:
 *   npm run bench -- import
 * On in-memory PGlite, and on PostgreSQL when BENCH_DATABASE_URL is set (a
 * fresh database is created and dropped). Peak memory is the largest RSS
 * sampled every 50 ms during the import, minus the RSS before it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase, type Database } from '../db/client.ts';
import { createScratchDatabase } from '../db/scratch.ts';
import { CSV_COLUMNS, importCatalog, readRows } from '../services/catalog-import.ts';
import { syntheticPerfumes } from './synthetic.ts';

function csvCell(v: string): string {
  return /[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

export function writeCsv(path: string, rows: number) {
  const lines = [CSV_COLUMNS.join(',')];
  for (const p of syntheticPerfumes(rows, 99)) {
    const cells: Record<(typeof CSV_COLUMNS)[number], string> = {
      id: p.id,
      name: p.name,
      name_ar: p.name_ar ?? '',
      house: p.house,
      house_ar: '',
      concentration: p.concentration,
      year: String(p.year ?? ''),
      gender: p.gender,
      families: p.families.join('|'),
      accords: Object.entries(p.accords)
        .map(([a, w]) => `${a}:${w}`)
        .join('|'),
      top_notes: (p.notes.top ?? []).join('|'),
      heart_notes: (p.notes.heart ?? []).join('|'),
      base_notes: (p.notes.base ?? []).join('|'),
      seasons: p.seasons.join('|'),
      times: p.times.join('|'),
      occasions: p.occasions.join('|'),
      aliases: '',
      image_url: '',
    };
    lines.push(CSV_COLUMNS.map((c) => csvCell(cells[c])).join(','));
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

async function timedImport(database: Database, file: string) {
  await database.migrate();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  const t = performance.now();
  const summary = await importCatalog(database.db, readRows(file));
  const seconds = (performance.now() - t) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  return {
    rows: summary.read,
    added: summary.added,
    rejected: summary.rejected.length,
    seconds,
    rowsPerSecond: summary.read / seconds,
    peakRssDeltaMb: (peak - before) / 1024 / 1024,
  };
}

export async function runImportBench(log: (s: string) => void = console.log, rows = 100_000) {
  const dir = mkdtempSync(join(tmpdir(), 'sillage-import-'));
  const file = join(dir, 'catalog.csv');
  writeCsv(file, rows);
  const results: Record<string, unknown> = {};
  try {
    const lite = await createDatabase({ database: { kind: 'pglite', dataDir: null } });
    results.pglite = await timedImport(lite, file);
    await lite.close();
    const url = process.env.BENCH_DATABASE_URL;
    if (url) {
      const scratch = await createScratchDatabase(url, 'sillage_bench');
      try {
        results.postgres = await timedImport(scratch.database, file);
      } finally {
        await scratch.database.close();
        await scratch.drop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  log(`import: ${rows} generated rows (CSV)`);
  log('| database | rows/s | seconds | peak RSS growth (MB) | rejected |');
  log('|---|---|---|---|---|');
  for (const [db, r] of Object.entries(results) as [
    string,
    { rowsPerSecond: number; seconds: number; peakRssDeltaMb: number; rejected: number },
  ][]) {
    log(
      `| ${db} | ${Math.round(r.rowsPerSecond)} | ${r.seconds.toFixed(1)} | ${Math.round(r.peakRssDeltaMb)} | ${r.rejected} |`,
    );
  }
  return results;
}
