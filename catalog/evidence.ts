/**
 * What a record's sources allow it to say (docs/catalog.md "Evidence"). Pure:
 * a record and its evidence in, the facts it states that its sources do not
 * back out. `npm run catalog:check` and the catalog tests apply it to every
 * shipped record.
 *
 * - Identity (house, line, concentration): the house's own text, or listings
 *   of at least two independent shops (two owners; one shop's pages count once).
 * - A launch year: the house, a reference or a launch report; never a shop title.
 * - Gender as sold, an Arabic name, a barcode: any source that gives it (the
 *   name or barcode in what it gave).
 * - "Inspired by": the house, or two independent sources of any kind.
 * - Each note of a graded profile: in what a counted source gave.
 * - The profile's grade: `confirmed` needs the house's notes and a second
 *   source's from another owner; `referenced` one counted non-shop source
 *   (house, reference, launch report, review); `unreviewed` is the grade of
 *   the older grouped files only, until they are reviewed house by house.
 */
import { normalizeText } from '../lib/text.ts';
import { parseListing } from '../matching/parse.ts';
import { resolveNote } from '../vocabulary/notes.ts';
import type { Evidence, EvidenceFact, EvidenceKind, PerfumeRecord } from './schema.ts';

/** The kinds of source that count for a launch year. */
export const YEAR_KINDS: ReadonlySet<EvidenceKind> = new Set(['house', 'reference', 'launch']);
/** The kinds of source a `referenced` profile may rest on: anything but a shop's listing. */
export const COUNTED_KINDS: ReadonlySet<EvidenceKind> = new Set(['house', 'reference', 'launch', 'review']);
/** Independent shops an identity needs when the house's own text is not among its sources. */
export const SHOPS_FOR_IDENTITY = 2;
/** Independent sources an "inspired by" needs when the house does not say so. */
export const SOURCES_FOR_INSPIRED = 2;

/** One publisher, however its name or domain is written ("www.Shop.com/" is "shop.com"). */
export function ownerKey(owner: string): string {
  return normalizeText(
    owner
      .trim()
      .toLowerCase()
      .replace(/^https?:\/\//, '')
      .replace(/^www\./, '')
      .replace(/\/+$/, ''),
  );
}

/**
 * "بديل عطر …", "inspired by …", "alternative to …": the listing sells another perfume as the answer
 * to the one it names, and the concentration it states may be the original's.
 */
const SOLD_AS_ANSWER =
  /بديل|مستوحى|مستوحي|\binspired\b|\binspiracion\b|\binspiración\b|\balternative to\b|\bdupe\b|\bclone\b/iu;

/**
 * Why a shop's listing is not the perfume's bottle, or null when it is: a sample or decant, a
 * miniature (15 ml or less, "mini", "travel spray") and a gift set hold the perfume but are not it
 * as sold; a listing selling another perfume as the answer to this one names the original, not a
 * bottle of it. A tester and a refill are the perfume itself. Only a bottle backs an identity.
 */
export function shopListingProblem(gave: string): string | null {
  if (SOLD_AS_ANSWER.test(gave)) return 'sold as the answer to another perfume';
  const { form } = parseListing(gave);
  if (form === 'sample') return 'a sample or decant';
  if (form === 'mini') return 'a miniature';
  if (form === 'gift_set') return 'a gift set';
  return null;
}

/** A source backing `fact`; a shop's listing backs an identity only when it is the perfume's bottle. */
function backs(e: Evidence, fact: EvidenceFact): boolean {
  if (!e.supports.includes(fact)) return false;
  return fact !== 'identity' || e.kind !== 'shop' || shopListingProblem(e.gave) === null;
}

function backing(evidence: readonly Evidence[], fact: EvidenceFact): Evidence[] {
  return evidence.filter((e) => backs(e, fact));
}

function owners(evidence: readonly Evidence[]): Set<string> {
  return new Set(evidence.map((e) => ownerKey(e.owner)));
}

/** The facts of a record, by what backs each; `true` when its sources allow it. */
export interface EvidenceReading {
  identity: boolean;
  /** the independent shops whose listings name it */
  shops: number;
  /** the house's own text is among its identity sources */
  houseText: boolean;
  /** the highest profile grade the sources allow, or null for none */
  allowedGrade: 'confirmed' | 'referenced' | null;
  year: boolean;
  gender: boolean;
  nameAr: boolean;
  inspiredBy: boolean;
  /** the record's barcodes no source gives */
  unbackedBarcodes: string[];
  /** the record's notes that no counted source's text gives */
  unbackedNotes: string[];
}

export function readEvidence(r: PerfumeRecord): EvidenceReading {
  const evidence = r.evidence ?? [];
  const identity = backing(evidence, 'identity');
  const houseText = identity.some((e) => e.kind === 'house');
  const shops = owners(identity.filter((e) => e.kind === 'shop')).size;

  const notes = backing(evidence, 'notes');
  const houseNotes = notes.filter((e) => e.kind === 'house');
  const houseOwners = owners(houseNotes);
  const confirmed = houseNotes.length > 0 && notes.some((e) => !houseOwners.has(ownerKey(e.owner)));
  const referenced = notes.some((e) => COUNTED_KINDS.has(e.kind));

  const gave = (fact: EvidenceFact) =>
    backing(evidence, fact)
      .map((e) => normalizeText(e.gave))
      .join('\n');
  const arabic = r.name_ar ? normalizeText(r.name_ar) : '';
  const barcodeText = backing(evidence, 'barcode')
    .map((e) => e.gave)
    .join('\n');
  const inspired = backing(evidence, 'inspired_by');
  const countedNotes = notes
    .filter((e) => COUNTED_KINDS.has(e.kind))
    .map((e) => normalizeText(e.gave))
    .join('\n');
  const countedSlugs = noteSlugsIn(countedNotes);

  return {
    identity: houseText || shops >= SHOPS_FOR_IDENTITY,
    shops,
    houseText,
    allowedGrade: confirmed ? 'confirmed' : referenced ? 'referenced' : null,
    year: backing(evidence, 'year').some((e) => YEAR_KINDS.has(e.kind)),
    gender: backing(evidence, 'gender').length > 0,
    nameAr: arabic !== '' && gave('name_ar').includes(arabic),
    inspiredBy: inspired.some((e) => e.kind === 'house') || owners(inspired).size >= SOURCES_FOR_INSPIRED,
    unbackedBarcodes: (r.barcodes ?? []).filter((b) => !barcodeText.includes(b)),
    unbackedNotes: notesOf(r).filter((n) => !givesNote(countedNotes, countedSlugs, n)),
  };
}

/** Longest run of words a note's name is read from in a source's text. */
const NOTE_WORDS = 4;

/** The notes knowledge base's slugs of every run of up to NOTE_WORDS words of a text. */
function noteSlugsIn(text: string): Set<string> {
  const slugs = new Set<string>();
  for (const line of text.split(/[\n,;:.()/]+/)) {
    const words = line.split(' ').filter(Boolean);
    for (let i = 0; i < words.length; i++) {
      for (let k = 1; k <= NOTE_WORDS && i + k <= words.length; k++) {
        const slug = resolveNote(words.slice(i, i + k).join(' '))?.slug;
        if (slug) slugs.add(slug);
      }
    }
  }
  return slugs;
}

/** A note is given by a text that names it, as written or by another name of the same note ("mandarin orange", "mandarin"). */
function givesNote(text: string, slugs: ReadonlySet<string>, note: string): boolean {
  if (text.includes(normalizeText(note))) return true;
  const slug = resolveNote(note)?.slug;
  return slug !== undefined && slugs.has(slug);
}

function notesOf(r: PerfumeRecord): string[] {
  return [...(r.notes?.top ?? []), ...(r.notes?.heart ?? []), ...(r.notes?.base ?? [])];
}

const GRADE_RANK = { confirmed: 2, referenced: 1 } as const;

/**
 * What a record states that its sources do not back. `legacy` is a record of
 * the older grouped files (designers-*, niche-*, me-*): it may carry the
 * grade `unreviewed`, and what it lacks is reported as backlog, not as a
 * problem, until its house is reviewed.
 */
export function evidenceProblems(r: PerfumeRecord, legacy: boolean): { problems: string[]; backlog: string[] } {
  const problems: string[] = [];
  const backlog: string[] = [];
  const read = readEvidence(r);
  const owe = (message: string) => (legacy ? backlog : problems).push(message);

  if (!read.identity) {
    owe(
      `identity: cite the house's text, or listings of ${SHOPS_FOR_IDENTITY} independent shops (${read.shops} shop${read.shops === 1 ? '' : 's'} cited)`,
    );
  }
  if (r.year !== undefined && !read.year) owe('year: cite the house, a reference or a launch report for it');
  if (!read.gender) owe('gender: cite a source that gives it');
  if (r.name_ar !== undefined && !read.nameAr) owe('name_ar: cite a source that gives this Arabic name');
  for (const b of read.unbackedBarcodes) problems.push(`barcodes: ${b} is given by no source`);
  if (r.inspired_by !== undefined && !read.inspiredBy) {
    problems.push(`inspired_by: cite the house, or ${SOURCES_FOR_INSPIRED} independent sources that say so`);
  }
  if (r.grade === 'unreviewed') {
    if (!legacy) problems.push('grade: "unreviewed" belongs to the older grouped files only');
  } else if (r.grade !== undefined) {
    const allowed = read.allowedGrade;
    if (allowed === null || GRADE_RANK[allowed] < GRADE_RANK[r.grade]) {
      problems.push(
        `grade: "${r.grade}" needs ${r.grade === 'confirmed' ? "the house's notes and a second source's" : 'a counted non-shop source for the notes'}; its sources allow ${allowed ?? 'no profile'}`,
      );
    }
    // every note of a graded profile is in a counted source's words, as it gave them
    for (const n of read.unbackedNotes) problems.push(`notes: "${n}" is given by no counted source's text`);
  }
  return { problems, backlog };
}

/** A file of the older grouped files, whose records are not yet reviewed house by house. */
export function isLegacyFile(fileName: string): boolean {
  return /^(designers|niche|me)-[a-z0-9-]+\.json$/.test(fileName);
}
