import { Value } from '@sinclair/typebox/value';
import { validGtin } from '../lib/gtin.ts';
import { normalizeText } from '../lib/text.ts';
import { resolveTerm, type VocabularyKind } from '../vocabulary/index.ts';
import { evidenceProblems } from './evidence.ts';
import {
  type HouseRecord,
  HouseRecordSchema,
  hasProfile,
  type PerfumeRecord,
  PerfumeRecordSchema,
  PROFILE_FIELDS,
} from './schema.ts';

export interface Problem {
  /** index of the record in its file, or -1 for file-wide problems */
  index: number;
  id?: string;
  message: string;
}

/** Checks one perfume record on its own: shape, vocabulary, accord count and order. */
export function checkPerfume(record: unknown, houses: ReadonlyMap<string, HouseRecord> | null): string[] {
  const problems: string[] = [];
  if (!Value.Check(PerfumeRecordSchema, record)) {
    for (const e of Value.Errors(PerfumeRecordSchema, record)) {
      problems.push(`${e.path || '/'} ${e.message}`);
      if (problems.length >= 3) break;
    }
    return problems;
  }
  const p = record as PerfumeRecord;
  const known = (kind: VocabularyKind, value: string, field: string) => {
    const slug = resolveTerm(kind, value);
    if (slug === null) problems.push(`${field}: unknown ${kind} "${value}"`);
    else if (slug !== value) problems.push(`${field}: write "${slug}", not "${value}"`);
  };
  known('concentration', p.concentration, 'concentration');
  known('gender', p.gender, 'gender');
  for (const b of p.barcodes ?? []) if (!validGtin(b)) problems.push(`barcodes: ${b} fails its check digit`);
  if (p.inspired_by === p.id) problems.push('inspired_by: a perfume is not inspired by itself');
  const present = PROFILE_FIELDS.filter((f) => p[f] !== undefined);
  if (present.length > 0 && present.length < PROFILE_FIELDS.length) {
    const missing = PROFILE_FIELDS.filter((f) => p[f] === undefined);
    problems.push(`profile: ${missing.join(', ')} missing; a profile's fields come together or not at all`);
  }
  if (hasProfile(p) && present.length === PROFILE_FIELDS.length) {
    for (const f of p.families) known('family', f, 'families');
    for (const s of p.seasons) known('season', s, 'seasons');
    for (const t of p.times) known('time', t, 'times');
    for (const o of p.occasions) known('occasion', o, 'occasions');
    const accords = Object.entries(p.accords);
    if (accords.length < 4 || accords.length > 8) problems.push(`accords: ${accords.length} accords, want 4 to 8`);
    for (const [name] of accords) known('accord', name, 'accords');
    for (let i = 1; i < accords.length; i++) {
      if ((accords[i]?.[1] ?? 0) > (accords[i - 1]?.[1] ?? 0)) {
        problems.push('accords: list them strongest first');
        break;
      }
    }
    if (accords[0]?.[1] !== 100) problems.push('accords: the strongest accord weighs 100');
    const notes = [...(p.notes.top ?? []), ...(p.notes.heart ?? []), ...(p.notes.base ?? [])];
    if (notes.length === 0) problems.push('notes: at least one note');
    if (notes.some((n) => n !== n.toLowerCase())) problems.push('notes: lower case');
    if (new Set([...p.families]).size !== p.families.length) problems.push('families: duplicates');
  }
  if (houses) {
    const house = houses.get(p.house);
    if (!house) problems.push(`house: "${p.house}" is not in houses.json`);
  }
  return problems;
}

/**
 * Checks a whole catalog: every record, ids and name/house/concentration
 * unique across it, "inspired by" pointing at a record of the catalog, and,
 * when `evidence` is given, every record's facts against its sources
 * (catalog/evidence.ts): records of the older grouped files (`legacy` ids)
 * report what they lack into `evidence.backlog` instead.
 */
export function checkCatalog(
  records: readonly unknown[],
  houseList: readonly HouseRecord[],
  evidence?: { legacy: ReadonlySet<string>; backlog: Problem[] },
): Problem[] {
  const problems: Problem[] = [];
  const houses = new Map<string, HouseRecord>();
  for (const [i, h] of houseList.entries()) {
    if (!Value.Check(HouseRecordSchema, h)) problems.push({ index: i, message: `houses.json entry ${i} is invalid` });
    else if (houses.has(h.name)) problems.push({ index: i, message: `houses.json: duplicate house ${h.name}` });
    else houses.set(h.name, h);
  }
  const ids = new Set<string>();
  const identities = new Set<string>();
  for (const [index, record] of records.entries()) {
    const id = (record as { id?: string })?.id;
    for (const message of checkPerfume(record, houses)) problems.push({ index, id, message });
    if (typeof id === 'string') {
      if (ids.has(id)) problems.push({ index, id, message: 'duplicate id' });
      ids.add(id);
    }
    const p = record as PerfumeRecord;
    if (evidence && typeof id === 'string' && Value.Check(PerfumeRecordSchema, record)) {
      const found = evidenceProblems(p, evidence.legacy.has(id));
      for (const message of found.problems) problems.push({ index, id, message });
      for (const message of found.backlog) evidence.backlog.push({ index, id, message });
    }
    if (p && typeof p.name === 'string') {
      const identity = `${normalizeText(p.house)}|${normalizeText(p.name)}|${p.concentration}`;
      if (identities.has(identity)) problems.push({ index, id, message: 'duplicate name/house/concentration' });
      identities.add(identity);
    }
  }
  const byId = new Map<string, PerfumeRecord>();
  for (const r of records) {
    const p = r as PerfumeRecord;
    if (p && typeof p.id === 'string') byId.set(p.id, p);
  }
  for (const [index, record] of records.entries()) {
    const p = record as PerfumeRecord;
    if (!p || typeof p.inspired_by !== 'string' || p.inspired_by === p.id) continue;
    const original = byId.get(p.inspired_by);
    if (!original) problems.push({ index, id: p.id, message: `inspired_by: no record ${p.inspired_by}` });
    else if (original.inspired_by !== undefined) {
      problems.push({ index, id: p.id, message: `inspired_by: ${p.inspired_by} is itself inspired by another` });
    }
  }
  return problems;
}
