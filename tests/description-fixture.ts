/**
 * The labelled product descriptions (tests/fixtures/descriptions/*.jsonl) and
 * how the description reader is scored on them. Shared by
 * tests/description.test.ts (the floors) and bench/notes.ts (the figures).
 *
 * Each line: {ref, lang, text, notes: {top, heart, base, flat}, families}: the
 * notes a person reads in the text, by their English names.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readDescription } from '../matching/description.ts';
import { resolveNote } from '../vocabulary/notes.ts';

export interface LabelledDescription {
  ref: string;
  lang: 'en' | 'ar' | 'mixed';
  text: string;
  notes: { top?: string[]; heart?: string[]; base?: string[]; flat?: string[] };
  families: string[];
}

const DIR = new URL('./fixtures/descriptions/', import.meta.url);

export function loadLabelledDescriptions(): LabelledDescription[] {
  return readdirSync(DIR)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .flatMap((f) =>
      readFileSync(join(DIR.pathname, f), 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as LabelledDescription),
    );
}

export interface DescriptionFigures {
  descriptions: number;
  /** notes a person reads, as the knowledge base names them (a label it lacks stays, and counts as missed) */
  labelled: number;
  found: number;
  right: number;
  recall: number;
  precision: number;
  /** of the notes found right, the share placed in the tier the text gives */
  tierRight: number;
  missed: { ref: string; note: string }[];
  extra: { ref: string; note: string }[];
}

/** Scores the reader on labelled descriptions. */
export function scoreDescriptions(rows: readonly LabelledDescription[]): DescriptionFigures {
  let labelled = 0;
  let found = 0;
  let right = 0;
  let tiered = 0;
  let tierRight = 0;
  const missed: DescriptionFigures['missed'] = [];
  const extra: DescriptionFigures['extra'] = [];
  for (const row of rows) {
    const want = new Map<string, string>();
    for (const tier of ['top', 'heart', 'base', 'flat'] as const) {
      for (const n of row.notes[tier] ?? []) want.set(resolveNote(n)?.slug ?? `?${n}`, tier);
    }
    const reading = readDescription(row.text).notes;
    const got = new Map<string, string>();
    for (const tier of ['top', 'heart', 'base', 'flat'] as const) for (const n of reading[tier]) got.set(n, tier);
    labelled += want.size;
    found += got.size;
    for (const [n, tier] of got) {
      if (!want.has(n)) {
        extra.push({ ref: row.ref, note: n });
        continue;
      }
      right++;
      if (want.get(n) !== 'flat') {
        tiered++;
        if (want.get(n) === tier) tierRight++;
      }
    }
    for (const n of want.keys()) if (!got.has(n)) missed.push({ ref: row.ref, note: n });
  }
  return {
    descriptions: rows.length,
    labelled,
    found,
    right,
    recall: labelled ? right / labelled : 1,
    precision: found ? right / found : 1,
    tierRight: tiered ? tierRight / tiered : 1,
    missed,
    extra,
  };
}
