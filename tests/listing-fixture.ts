/**
 * The labelled real listings (tests/fixtures/listings/*.jsonl) and how the
 * matcher is scored on them. Shared by tests/listing-fixture.test.ts (the
 * floors) and bench/match.ts (the figures and the curve).
 *
 * Each line: {ref, house (the seller's field, as given), title, label}, label one of
 *   {kind: 'catalog', perfume_id, form}                      the listing is that perfume
 *   {kind: 'absent', house, name, concentration, form, sibling?, ambiguous?}
 *                                                            a real perfume we do not have
 *   {kind: 'not_perfume', what}                              not a perfume at all
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MatchResult } from '../matching/matcher.ts';

export const FIXTURE_DIR = new URL('./fixtures/listings/', import.meta.url);

export type Label =
  | { kind: 'catalog'; perfume_id: string; form?: string }
  | {
      kind: 'absent';
      /** null where no house can be told (an unbranded dupe) */
      house: string | null;
      name: string | null;
      concentration: string | null;
      form?: string;
      sibling?: string;
      ambiguous?: boolean;
    }
  | { kind: 'not_perfume'; what: string };

export interface LabelledListing {
  ref: string;
  house: string;
  title: string;
  label: Label;
  /** the part the matcher's rules are never tuned on */
  part: 'tune' | 'holdout';
}

/** A fixed quarter of the listings, by a hash of their reference, is held out. */
export function partOf(ref: string): 'tune' | 'holdout' {
  let h = 2166136261;
  for (let i = 0; i < ref.length; i++) h = Math.imul(h ^ ref.charCodeAt(i), 16777619);
  return (h >>> 0) % 4 === 0 ? 'holdout' : 'tune';
}

export function loadLabelledListings(): LabelledListing[] {
  const files = readdirSync(FIXTURE_DIR)
    .filter((f) => f.endsWith('.jsonl'))
    .sort();
  return files.flatMap((f) =>
    readFileSync(join(FIXTURE_DIR.pathname, f), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => {
        const row = JSON.parse(l) as Omit<LabelledListing, 'part'>;
        return { ...row, part: partOf(row.ref) };
      }),
  );
}

export type Outcome =
  /** a catalog perfume's listing matched to it */
  | 'right'
  /** a catalog perfume's listing left unmatched */
  | 'missed'
  /** matched to a perfume the listing is not (or a non-perfume matched) */
  | 'wrong'
  /** a listing of a version we lack, matched to its concentration sibling and labelled as one */
  | 'sibling'
  /** a listing that names a line but not which version, matched to a version of that line */
  | 'version-unsure'
  /** a perfume we lack, or a non-perfume, left unmatched */
  | 'refused';

export interface Matched {
  perfumeId: string | null;
  /** the match is to a concentration sibling, said so (quality "sibling") */
  sibling: boolean;
}

/**
 * How one answer of the matcher scores against its label. `lineOf` gives a
 * catalog perfume's house and name, to tell a version of the named line.
 */
export function outcomeOf(
  label: Label,
  m: Matched,
  lineOf: (id: string) => { house: string; name: string } | undefined,
): Outcome {
  if (label.kind === 'catalog') {
    if (!m.perfumeId) return 'missed';
    if (m.perfumeId !== label.perfume_id) return 'wrong';
    // the listing states a concentration the line does not have (a seller's slip): said to be a sibling
    return m.sibling ? 'sibling' : 'right';
  }
  if (!m.perfumeId) return 'refused';
  if (label.kind === 'not_perfume') return 'wrong';
  if (label.sibling) {
    // any version of the sibling's line, said to be a sibling, is honest: which one is nearest is ours to say
    const a = lineOf(label.sibling);
    const b = lineOf(m.perfumeId);
    if (a && b && a.house === b.house && a.name === b.name) return m.sibling ? 'sibling' : 'wrong';
  }
  if (label.ambiguous && label.name && label.house) {
    const line = lineOf(m.perfumeId);
    const fold = (s: string) =>
      s
        .toLowerCase()
        .normalize('NFKD')
        .replace(/[^a-z0-9]/g, '');
    if (line && fold(line.house) === fold(label.house) && fold(line.name) === fold(label.name)) return 'version-unsure';
  }
  return 'wrong';
}

export interface Figures {
  listings: number;
  inCatalog: number;
  right: number;
  missed: number;
  wrong: number;
  matches: number;
  sibling: number;
  versionUnsure: number;
  notPerfume: number;
  notPerfumeMatched: number;
  /** right ÷ listings of catalog perfumes */
  recall: number;
  /** wrong ÷ all matches */
  wrongShare: number;
}

export function figuresOf(rows: readonly { label: Label; outcome: Outcome }[]): Figures {
  const count = (o: Outcome) => rows.filter((r) => r.outcome === o).length;
  const inCatalog = rows.filter((r) => r.label.kind === 'catalog').length;
  const right = count('right');
  const wrong = count('wrong');
  const sibling = count('sibling');
  const versionUnsure = count('version-unsure');
  const matches = right + wrong + sibling + versionUnsure;
  const notPerfume = rows.filter((r) => r.label.kind === 'not_perfume');
  return {
    listings: rows.length,
    inCatalog,
    right,
    missed: count('missed'),
    wrong,
    matches,
    sibling,
    versionUnsure,
    notPerfume: notPerfume.length,
    notPerfumeMatched: notPerfume.filter((r) => r.outcome === 'wrong').length,
    recall: inCatalog ? right / inCatalog : 0,
    wrongShare: matches ? wrong / matches : 0,
  };
}

export type { MatchResult };
