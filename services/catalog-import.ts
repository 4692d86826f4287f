import { createReadStream, readFileSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parse } from 'csv-parse';
import { type PerfumeRecord, PROFILE_FIELDS } from '../catalog/schema.ts';
import type { CatalogHouse } from '../catalog/types.ts';
import { checkPerfume } from '../catalog/validate.ts';
import type { Db } from '../db/client.ts';
import { normalizeText } from '../lib/text.ts';
import { bumpCatalogVersion, insertMissingHouses, loadCatalog, perfumeRow, upsertPerfumes } from './catalog.ts';

/**
 * Imports perfumes from a file an operator licensed: JSON (an array of
 * records in the catalog file format), JSON Lines, or CSV (docs/catalog.md).
 * Rows are validated one by one; a bad row is reported and skipped, never
 * aborting the others. Good rows are upserted by id in batches.
 */

export interface RawRow {
  /** 1-based row number in the file (the header of a CSV is row 0) */
  row: number;
  record: unknown;
}

export interface Rejection {
  row: number;
  id?: string;
  reason: string;
}

export interface ImportSummary {
  read: number;
  added: number;
  updated: number;
  rejected: Rejection[];
  housesCreated: string[];
  catalogVersion: number;
}

export const CSV_COLUMNS = [
  'id',
  'name',
  'name_ar',
  'house',
  'house_ar',
  'concentration',
  'year',
  'gender',
  'families',
  'accords',
  'top_notes',
  'heart_notes',
  'base_notes',
  'seasons',
  'times',
  'occasions',
  'aliases',
  'image_url',
] as const;

const list = (v: unknown): string[] | undefined => {
  if (typeof v !== 'string') return undefined;
  const parts = v
    .split('|')
    .map((s) => s.trim())
    .filter(Boolean);
  return parts;
};
const opt = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/** A CSV row (all strings) in the catalog record shape; bad values are left for validation to name. */
export function csvRecord(row: Record<string, string>): unknown {
  const accords: Record<string, number | string> = {};
  for (const pair of list(row.accords) ?? []) {
    const i = pair.lastIndexOf(':');
    const name = (i === -1 ? pair : pair.slice(0, i)).trim();
    const weight = i === -1 ? '' : pair.slice(i + 1).trim();
    accords[name] = /^\d+$/.test(weight) ? Number(weight) : weight;
  }
  const year = opt(row.year);
  const record: Record<string, unknown> = {
    id: opt(row.id),
    name: opt(row.name),
    name_ar: opt(row.name_ar),
    house: opt(row.house),
    house_ar: opt(row.house_ar),
    concentration: opt(row.concentration),
    year: year === undefined ? undefined : /^\d+$/.test(year) ? Number(year) : year,
    gender: opt(row.gender),
    families: list(row.families),
    accords,
    notes: { top: list(row.top_notes) ?? [], heart: list(row.heart_notes) ?? [], base: list(row.base_notes) ?? [] },
    seasons: list(row.seasons),
    times: list(row.times),
    occasions: list(row.occasions),
    aliases: list(row.aliases),
    image_url: opt(row.image_url),
    grade: opt(row.grade),
    inspired_by: opt(row.inspired_by),
    barcodes: list(row.barcodes),
  };
  const notes = record.notes as Record<string, string[]>;
  const noProfile =
    !record.grade &&
    Object.keys(accords).length === 0 &&
    ['families', 'seasons', 'times', 'occasions'].every((k) => !(record[k] as string[] | undefined)?.length) &&
    Object.values(notes).every((n) => n.length === 0);
  // a row whose profile columns are all empty is an identity without a profile
  if (noProfile) for (const k of PROFILE_FIELDS) delete record[k];
  for (const k of Object.keys(record)) {
    if (
      record[k] === undefined ||
      (Array.isArray(record[k]) && (record[k] as unknown[]).length === 0 && k !== 'families')
    ) {
      delete record[k];
    }
  }
  return record;
}

/**
 * An imported record with a profile and no grade is `referenced`: the
 * operator imports a licensed dataset and vouches for it (docs/catalog.md).
 */
export function withImportGrade(record: unknown): unknown {
  if (!record || typeof record !== 'object' || Array.isArray(record)) return record;
  const r = record as Record<string, unknown>;
  return r.grade === undefined && r.families !== undefined ? { ...r, grade: 'referenced' } : r;
}

export type ImportFormat = 'json' | 'jsonl' | 'csv';

export function formatOf(path: string): ImportFormat {
  const lower = path.toLowerCase();
  if (lower.endsWith('.csv')) return 'csv';
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return 'jsonl';
  if (lower.endsWith('.json')) return 'json';
  throw new Error(`${path}: unknown format; use .json, .jsonl/.ndjson or .csv`);
}

/** Streams a file's rows; `progress` receives the share of the file read so far (0–1). */
export async function* readRows(path: string, progress?: (fraction: number) => void): AsyncGenerator<RawRow> {
  const format = formatOf(path);
  const size = statSync(path).size || 1;
  if (format === 'json') {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    if (!Array.isArray(parsed)) throw new Error(`${path}: expected a JSON array of perfumes`);
    for (let i = 0; i < parsed.length; i++) {
      yield { row: i + 1, record: parsed[i] };
      if (progress && i % 1000 === 0) progress(i / parsed.length);
    }
    progress?.(1);
    return;
  }
  const stream = createReadStream(path);
  if (progress) stream.on('data', () => progress(stream.bytesRead / size));
  if (format === 'jsonl') {
    let row = 0;
    for await (const line of createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY })) {
      row++;
      if (!line.trim()) continue;
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch {
        record = { __invalid: 'line is not valid JSON' };
      }
      yield { row, record };
    }
    return;
  }
  const parser = stream.pipe(
    parse({ columns: true, bom: true, skip_empty_lines: true, relax_column_count: true, trim: true }),
  );
  let row = 0;
  for await (const r of parser as AsyncIterable<Record<string, string>>) {
    row++;
    yield { row, record: csvRecord(r) };
  }
}

const BATCH = 1000;

export async function importCatalog(
  db: Db,
  rows: AsyncIterable<RawRow>,
  opts: { onBatch?: (summary: ImportSummary) => void } = {},
): Promise<ImportSummary> {
  const existing = await loadCatalog(db);
  const houseByKey = new Map(existing.houses.map((h) => [normalizeText(h.name), h.name]));
  const houseAr = new Map(existing.houses.map((h) => [h.name, h.nameAr]));
  const identities = new Map(
    existing.perfumes.map((p) => [`${normalizeText(p.house)}|${normalizeText(p.name)}|${p.concentration}`, p.id]),
  );
  const seenIds = new Map<string, number>();
  const newHouses = new Map<string, CatalogHouse>();
  const summary: ImportSummary = { read: 0, added: 0, updated: 0, rejected: [], housesCreated: [], catalogVersion: 0 };

  let batch: { record: PerfumeRecord; houseAr: string | null }[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const houses = [...newHouses.values()].filter((h) => !summary.housesCreated.includes(h.name));
    const rowsToWrite = batch.map((b) => perfumeRow(b.record, b.houseAr));
    batch = [];
    const result = await db.transaction(async (tx) => {
      await insertMissingHouses(tx, houses);
      return upsertPerfumes(tx, rowsToWrite);
    });
    summary.housesCreated.push(...houses.map((h) => h.name));
    summary.added += result.added;
    summary.updated += result.updated;
    opts.onBatch?.(summary);
  };

  for await (const { row, record } of rows) {
    summary.read++;
    const id = typeof (record as { id?: unknown })?.id === 'string' ? (record as { id: string }).id : undefined;
    const reject = (reason: string) => summary.rejected.push({ row, id, reason });
    if (record && typeof record === 'object' && '__invalid' in record) {
      reject(String((record as { __invalid: string }).__invalid));
      continue;
    }
    const graded = withImportGrade(record);
    const problems = checkPerfume(graded, null);
    if (problems.length) {
      reject(problems.join('; '));
      continue;
    }
    const r = graded as PerfumeRecord;
    const firstRow = seenIds.get(r.id);
    if (firstRow !== undefined) {
      reject(`duplicate id in this file (first at row ${firstRow})`);
      continue;
    }
    const houseKey = normalizeText(r.house);
    const house = houseByKey.get(houseKey) ?? r.house;
    const identity = `${houseKey}|${normalizeText(r.name)}|${r.concentration}`;
    const sameAs = identities.get(identity);
    if (sameAs !== undefined && sameAs !== r.id) {
      reject(`same name, house and concentration as perfume ${sameAs}`);
      continue;
    }
    seenIds.set(r.id, row);
    identities.set(identity, r.id);
    if (!houseByKey.has(houseKey)) {
      houseByKey.set(houseKey, house);
      newHouses.set(house, {
        name: house,
        nameAr: r.house_ar ?? null,
        aliases: [],
        abbreviations: [],
        region: null,
        country: null,
      });
    }
    batch.push({ record: { ...r, house }, houseAr: houseAr.get(house) ?? r.house_ar ?? null });
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  if (summary.added + summary.updated > 0) summary.catalogVersion = await bumpCatalogVersion(db);
  return summary;
}
