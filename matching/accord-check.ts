/**
 * The catalog checked by the notes knowledge (vocabulary/notes.ts): each
 * perfume's profile is derived from its own notes and set against the accords
 * its record lists. An accord named for a material (oud, rose, citrus,
 * vanilla, leather…) that none of the record's notes lends is the cheapest
 * sign of a wrong record. Pure.
 */

import type { PerfumeRecord } from '../catalog/schema.ts';
import type { AccordWeight, NotePyramid } from '../catalog/types.ts';
import type { NoteIndex } from '../vocabulary/notes.ts';
import { accordSums, noteContributions, resolveNotes, topAccords } from './note-profile.ts';

/**
 * Accords named after a material: a record that lists one strongly must hold
 * a note that smells of it. Accords of a character (fresh, sweet, warm spicy,
 * woody, floral, amber, powdery, musky…) come from many notes and are not
 * checked.
 */
export const MATERIAL_ACCORDS: ReadonlySet<string> = new Set([
  'citrus',
  'lavender',
  'mint',
  'tea',
  'rose',
  'iris',
  'violet',
  'tuberose',
  'orange blossom',
  'cherry',
  'coconut',
  'vanilla',
  'caramel',
  'honey',
  'chocolate',
  'coffee',
  'almond',
  'saffron',
  'cinnamon',
  'cardamom',
  'anis',
  'oud',
  'sandalwood',
  'cedar',
  'vetiver',
  'patchouli',
  'conifer',
  'incense',
  'leather',
  'tobacco',
  'camphor',
  'beeswax',
]);

/**
 * The tolerance: a material accord is checked when the record gives it at
 * least this share of its strongest accord and ranks it among its first
 * CHECKED_RANK; it is explained when the notes lend it at least
 * MIN_EXPLAINED of a base note's full weight.
 */
export const CHECKED_SHARE = 0.5;
export const CHECKED_RANK = 5;
export const MIN_EXPLAINED = 0.1;

export interface CheckedPerfume {
  id: string;
  accords: readonly AccordWeight[];
  notes: NotePyramid;
}

/** A shipped record as the check reads it (weights 1–100 as 0–1). */
export function checkedPerfumeOf(r: PerfumeRecord): CheckedPerfume {
  return {
    id: r.id,
    accords: Object.entries(r.accords ?? {}).map(([name, w]) => ({ name, weight: w / 100 })),
    notes: r.notes ?? {},
  };
}

/** The material accords a record lists strongly that its notes do not explain. */
export function unexplainedAccords(p: CheckedPerfume, index?: NoteIndex): string[] {
  // what the notes lend, as they are: salience says how a profile speaks, not what a note smells of
  const sum = accordSums(resolveNotes(p.notes, index).known, {});
  const max = Math.max(0, ...p.accords.map((a) => a.weight));
  return [...p.accords]
    .sort((a, b) => b.weight - a.weight)
    .slice(0, CHECKED_RANK)
    .filter((a) => MATERIAL_ACCORDS.has(a.name) && a.weight >= max * CHECKED_SHARE)
    .filter((a) => (sum.get(a.name) ?? 0) < MIN_EXPLAINED)
    .map((a) => a.name);
}

export interface Agreement {
  perfumes: number;
  /** mean number of accords shared by the record's top 5 and the notes' top 5 */
  meanShared: number;
  /** share of records whose strongest accord is among the notes' top 3 */
  topInTop3: number;
  /** the records that disagree most (fewest shared), with both top 5s */
  worst: { id: string; shared: number; listed: string[]; derived: string[] }[];
}

/** How well profiles derived from notes alone agree with the catalog's accords. */
export function agreementWithNotes(perfumes: readonly CheckedPerfume[], index?: NoteIndex): Agreement {
  let shared = 0;
  let top = 0;
  const rows: Agreement['worst'] = [];
  for (const p of perfumes) {
    const listed = [...p.accords]
      .sort((a, b) => b.weight - a.weight || (a.name < b.name ? -1 : 1))
      .slice(0, 5)
      .map((a) => a.name);
    const derived = topAccords(noteContributions(p.notes, index).sum).map((a) => a.name);
    const n = listed.filter((a) => derived.slice(0, 5).includes(a)).length;
    shared += n;
    if (listed[0] && derived.slice(0, 3).includes(listed[0])) top++;
    rows.push({ id: p.id, shared: n, listed, derived: derived.slice(0, 5) });
  }
  const count = perfumes.length || 1;
  return {
    perfumes: perfumes.length,
    meanShared: shared / count,
    topInTop3: top / count,
    worst: rows.sort((a, b) => a.shared - b.shared || (a.id < b.id ? -1 : 1)).slice(0, 20),
  };
}
