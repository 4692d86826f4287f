/**
 * Records of different lines whose note pyramids are near-identical. A record
 * that borrows another perfume's notes (an "inspired by" perfume written with
 * its original's pyramid, a flanker written with its line's) recommends the
 * wrong scent and reads as a twin of the other; the check finds every such
 * pair, and each is resolved by hand (catalog/data/alike.json): the houses
 * publish these notes for both, or one record is corrected or withdrawn.
 * Pure; offline (catalog:check and the catalog tests), never on a request.
 */

import { normalizeText } from '../lib/text.ts';
import { resolveNote } from '../vocabulary/notes.ts';
import type { PerfumeRecord } from './schema.ts';

/** Two pyramids are near-identical when they share at least this share of all their notes (Jaccard)… */
export const ALIKE_SIMILARITY = 0.7;
/**
 * …or when one is mostly the other's: this share of the smaller pyramid's
 * notes are in the larger (a record cut from another perfume's longer list)…
 */
export const ALIKE_CONTAINED = 0.85;
/** …as long as they still share this share of all their notes (a short list inside a long one is not a copy)… */
export const ALIKE_CONTAINED_SIMILARITY = 0.5;
/** …and at least this many notes (four shared notes are a family, not a copy). */
export const ALIKE_MIN_SHARED = 5;

export interface AlikePair {
  /** the two ids, in catalog order */
  a: string;
  b: string;
  /** shared notes ÷ notes of either (Jaccard) */
  similarity: number;
  /** shared notes ÷ notes of the smaller pyramid */
  contained: number;
  shared: number;
}

/** A hand resolution: every pair among `ids` is known and accepted, with why. */
export interface AlikeResolution {
  ids: string[];
  why: string;
}

type Notes = Pick<PerfumeRecord, 'id' | 'house' | 'name' | 'notes'>;

/** A record's notes as a set: each note by its knowledge-base slug where it has one, else as written. */
export function noteSet(p: Notes, resolve: (name: string) => string | null = defaultResolve): Set<string> {
  const set = new Set<string>();
  for (const tier of ['top', 'heart', 'base'] as const) {
    for (const name of p.notes?.[tier] ?? []) set.add(resolve(name) ?? normalizeText(name));
  }
  return set;
}

function defaultResolve(name: string): string | null {
  return resolveNote(name)?.slug ?? null;
}

/** The rule, given two pyramids' Jaccard similarity and the smaller one's share held by the other. */
export function isAlike(similarity: number, contained: number): boolean {
  return similarity >= ALIKE_SIMILARITY || (contained >= ALIKE_CONTAINED && similarity >= ALIKE_CONTAINED_SIMILARITY);
}

/** One line: the same house and name (its concentrations may share a pyramid). */
function lineOf(p: Notes): string {
  return `${normalizeText(p.house)}|${normalizeText(p.name)}`;
}

/**
 * Every pair of records of different lines whose pyramids are near-identical,
 * most alike first. Candidates come from an index of notes, so the work is
 * the pairs that share a note, not every pair.
 */
export function alikePairs(records: readonly Notes[], resolve?: (name: string) => string | null): AlikePair[] {
  const sets = records.map((r) => noteSet(r, resolve));
  // note → the records before this one that hold it
  const postings = new Map<string, number[]>();
  const pairs: AlikePair[] = [];
  for (const [j, set] of sets.entries()) {
    const shared = new Map<number, number>();
    for (const note of set) {
      const earlier = postings.get(note);
      if (!earlier) {
        postings.set(note, [j]);
        continue;
      }
      for (const i of earlier) shared.set(i, (shared.get(i) ?? 0) + 1);
      earlier.push(j);
    }
    const b = records[j] as Notes;
    for (const [i, n] of shared) {
      const a = records[i] as Notes;
      if (n < ALIKE_MIN_SHARED || lineOf(a) === lineOf(b)) continue;
      const other = sets[i] as Set<string>;
      const similarity = n / (set.size + other.size - n);
      const contained = n / Math.min(set.size, other.size);
      if (isAlike(similarity, contained)) pairs.push({ a: a.id, b: b.id, similarity, contained, shared: n });
    }
  }
  return pairs.sort((x, y) => y.similarity - x.similarity || compare(pairKey(x.a, x.b), pairKey(y.a, y.b)));
}

const compare = (x: string, y: string) => (x < y ? -1 : 1);

/** A pair's name, whichever way round it is given. */
export function pairKey(a: string, b: string): string {
  return [a, b].sort().join(' ');
}

/**
 * The near-identical pairs no resolution covers, and the resolutions that no
 * longer hold (an id not in the catalog, or a pair of its ids no longer
 * alike): a stale resolution would silently cover a future copy.
 */
export function checkAlike(
  records: readonly Notes[],
  resolutions: readonly AlikeResolution[],
  resolve?: (name: string) => string | null,
): { unresolved: AlikePair[]; stale: string[] } {
  const pairs = alikePairs(records, resolve);
  const ids = new Set(records.map((r) => r.id));
  const alike = new Set(pairs.map((p) => pairKey(p.a, p.b)));
  const covered = new Set<string>();
  const stale: string[] = [];
  for (const [n, r] of resolutions.entries()) {
    const missing = r.ids.filter((id) => !ids.has(id));
    const name = `resolution ${n + 1} (${r.ids.join(', ')})`;
    if (missing.length) stale.push(`${name}: ${missing.join(', ')} not in the catalog`);
    if (!r.why.trim()) stale.push(`${name}: no reason given`);
    let used = false;
    for (const a of r.ids) {
      for (const b of r.ids) {
        // a group names the records resolved together; only its alike pairs need to be alike
        if (!alike.has(pairKey(a, b))) continue;
        covered.add(pairKey(a, b));
        used = true;
      }
    }
    if (!missing.length && !used) stale.push(`${name}: no pair of these is alike`);
  }
  return { unresolved: pairs.filter((p) => !covered.has(pairKey(p.a, p.b))), stale };
}
