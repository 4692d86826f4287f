/**
 * A merchant's own answer for a product the service recognises but cannot recommend (docs/learning.md
 * "A merchant's own answer"): its main notes and accords picked from the vocabulary, or the catalog
 * perfume it is sold as the answer to. It serves that merchant at once; for every other shop it is a
 * proposal, in force for a fact (a note, an accord, an original) once a second merchant gives the same
 * for the same perfume, or the operator approves it, and never once the operator rejects it. Pure.
 */

import type { ProductProfile } from '../catalog/types.ts';
import { resolveTerm } from '../vocabulary/index.ts';
import { resolveNote } from '../vocabulary/notes.ts';
import { noteContributions, profileOfAccords, topAccords } from './note-profile.ts';

/** A merchant's answer for one product, as stored: canonical slugs and a catalog perfume id. */
export interface ProductAnswer {
  notes: string[];
  accords: string[];
  /** the catalog perfume the product is sold as the answer to */
  inspired_by: string | null;
}

/** Notes, and accords, one answer names at most: the main ones, not a pyramid. */
export const MAX_ANSWER_NOTES = 12;
export const MAX_ANSWER_ACCORDS = 8;

/** Why an answer is refused: too many notes or accords, an unknown note or accord, no such perfume, one without a profile. */
export type AnswerProblem = 'notes' | 'accords' | 'note' | 'accord' | 'perfume' | 'profile';

/** What is wrong with an answer sent (in English, and as a reason the console words in its language), or its canonical form. */
export type AnswerCheck =
  | { ok: true; answer: ProductAnswer | null }
  | { ok: false; message: string; problem: AnswerProblem; item?: string };

/**
 * An answer as sent, checked and made canonical: each note and accord by its slug (any spelling,
 * either script, as the vocabulary knows it), in the order given, without repeats; the original must
 * be a catalog perfume with a scent profile of its own (the product takes it). Null when it says
 * nothing (a cleared answer). Work: one lookup per item, MAX_ANSWER_NOTES + MAX_ANSWER_ACCORDS at most.
 */
export function checkAnswer(
  sent: { notes?: readonly string[]; accords?: readonly string[]; inspired_by?: string | null },
  perfumeOf: (id: string) => { grade: string | null } | undefined,
): AnswerCheck {
  const notes = sent.notes ?? [];
  const accords = sent.accords ?? [];
  if (notes.length > MAX_ANSWER_NOTES)
    return { ok: false, message: `At most ${MAX_ANSWER_NOTES} notes`, problem: 'notes' };
  if (accords.length > MAX_ANSWER_ACCORDS)
    return { ok: false, message: `At most ${MAX_ANSWER_ACCORDS} accords`, problem: 'accords' };
  const answer: ProductAnswer = { notes: [], accords: [], inspired_by: null };
  for (const n of notes) {
    const slug = resolveNote(n)?.slug;
    if (!slug)
      return {
        ok: false,
        message: `"${n.slice(0, 60)}" is not a note the vocabulary knows`,
        problem: 'note',
        item: n.slice(0, 60),
      };
    if (!answer.notes.includes(slug)) answer.notes.push(slug);
  }
  for (const a of accords) {
    const slug = resolveTerm('accord', a);
    if (!slug)
      return {
        ok: false,
        message: `"${a.slice(0, 60)}" is not an accord the vocabulary knows`,
        problem: 'accord',
        item: a.slice(0, 60),
      };
    if (!answer.accords.includes(slug)) answer.accords.push(slug);
  }
  if (sent.inspired_by) {
    const original = perfumeOf(sent.inspired_by);
    if (!original)
      return {
        ok: false,
        message: `No perfume "${sent.inspired_by.slice(0, 120)}" in the catalog`,
        problem: 'perfume',
        item: sent.inspired_by.slice(0, 120),
      };
    if (!original.grade)
      return {
        ok: false,
        message: 'That perfume has no scent profile of its own to lend: pick its notes instead',
        problem: 'profile',
      };
    answer.inspired_by = sent.inspired_by;
  }
  const empty = answer.notes.length === 0 && answer.accords.length === 0 && answer.inspired_by === null;
  return { ok: true, answer: empty ? null : answer };
}

/** Named accords weigh like a shop's listed accords (matching/profile.ts): the first most, none under 0.3. */
const accordWeight = (i: number) => Math.max(0.3, 0.85 ** i);
/** Notes count at this share of a named accord, as a shop's listed notes do (BASIS_TRUST). */
const NOTES_TRUST = 0.8;

/**
 * The profile notes and accords make: each named accord (the first weighs most, 1) and the accords
 * the notes are known for (the strongest NOTES_TRUST), summed; families, seasons, times and occasions follow from the accords. The
 * notes are in no tier (an answer names the main notes, not where they sit). Null when they give
 * no accord.
 */
export function profileOfItems(
  notes: readonly string[],
  accords: readonly string[],
  source: ProductProfile['source'],
  tiered: { top: string[]; heart: string[]; base: string[] } = { top: [], heart: [], base: [] },
): ProductProfile | null {
  const total = new Map<string, number>();
  // the notes' accords scaled as a shop's listed notes are (the strongest 1), then trusted less than an accord named
  const fromNotes = noteContributions({ flat: notes }).sum;
  const strongest = Math.max(0, ...fromNotes.values());
  for (const [a, w] of fromNotes) total.set(a, (NOTES_TRUST * w) / strongest);
  for (const [i, a] of accords.entries()) total.set(a, (total.get(a) ?? 0) + accordWeight(i));
  const ranked = topAccords(total);
  if (ranked.length === 0) return null;
  const p = profileOfAccords(ranked);
  return {
    source,
    ...(source === 'merchant' ? { basis: ['answer' as const] } : {}),
    families: p.families,
    accords: p.accords,
    notes: tiered,
    seasons: p.seasons,
    times: p.times,
    occasions: p.occasions,
  };
}

/** The profile a merchant's own answer gives its product (source merchant, basis answer), or null. */
export function answerProfile(answer: ProductAnswer): ProductProfile | null {
  return profileOfItems(answer.notes, answer.accords, 'merchant');
}

/**
 * One fact an answer states about the perfume its product is: `note:<slug>`, `accord:<slug>`,
 * `inspired:<perfume id>`; or a pin does: `spelling:<spelling>` (matching/listing.ts spellingOf).
 */
export type AnswerItem = string;

export const itemsOf = (a: ProductAnswer): AnswerItem[] => [
  ...a.notes.map((n) => `note:${n}`),
  ...a.accords.map((x) => `accord:${x}`),
  ...(a.inspired_by ? [`inspired:${a.inspired_by}`] : []),
];

/** Merchants that must give a fact before it reaches every shop without the operator. */
export const MIN_ANSWER_SHOPS = 2;
/** Notes and accords in force a profile needs: fewer is too thin to recommend by. */
export const MIN_ANSWER_ITEMS = 2;

/** The operator's word on a perfume's proposal: the facts approved and those rejected. */
export interface ProposalReview {
  approved: readonly string[];
  rejected: readonly string[];
}

/** What the answers for one perfume propose, and what of it is in force for every shop. */
export interface Proposal {
  /** each fact, with how many merchants give it */
  votes: Record<AnswerItem, number>;
  /** merchants that answered */
  shops: number;
  /** the facts in force: not rejected, and given by MIN_ANSWER_SHOPS merchants or approved */
  inForce: AnswerItem[];
  /** the notes and accords in force, when there are MIN_ANSWER_ITEMS of them */
  profile: { notes: string[]; accords: string[] } | null;
  /** the original in force: the one in force, or of several the one approved; null when none or disputed */
  inspiredBy: string | null;
}

/**
 * What of a perfume's proposal is in force for every shop: each fact not rejected, and given by
 * MIN_ANSWER_SHOPS merchants or approved; its profile (when MIN_ANSWER_ITEMS notes and accords are)
 * and its original (the one in force, or of several the one approved). Sorted facts in, same out.
 */
export function inForceOf(
  votes: Readonly<Record<AnswerItem, number>>,
  review: ProposalReview,
): Pick<Proposal, 'inForce' | 'profile' | 'inspiredBy'> {
  const approved = new Set(review.approved);
  const rejected = new Set(review.rejected);
  const inForce = Object.keys(votes)
    .sort()
    .filter((i) => !rejected.has(i) && (approved.has(i) || (votes[i] as number) >= MIN_ANSWER_SHOPS));
  const of = (kind: string) => inForce.filter((i) => i.startsWith(`${kind}:`)).map((i) => i.slice(kind.length + 1));
  const notes = of('note');
  const accords = of('accord');
  const originals = of('inspired');
  const chosen = originals.length > 1 ? originals.filter((o) => approved.has(`inspired:${o}`)) : originals;
  return {
    inForce,
    profile: notes.length + accords.length >= MIN_ANSWER_ITEMS ? { notes, accords } : null,
    inspiredBy: chosen.length === 1 ? (chosen[0] as string) : null,
  };
}

/**
 * The proposal the merchants' answers (and pins' spellings) for one perfume make: one voice per
 * merchant (a merchant's products of one perfume count once, each fact once), under the operator's
 * review. Deterministic:
 * facts in their sorted order, whatever order the answers came in.
 */
export function proposalOf(
  answers: readonly { merchantId: string; answer?: ProductAnswer; items?: readonly AnswerItem[] }[],
  review: ProposalReview = { approved: [], rejected: [] },
): Proposal {
  const byMerchant = new Map<string, Set<AnswerItem>>();
  for (const a of answers) {
    const set = byMerchant.get(a.merchantId) ?? new Set();
    for (const item of [...(a.answer ? itemsOf(a.answer) : []), ...(a.items ?? [])]) set.add(item);
    byMerchant.set(a.merchantId, set);
  }
  const votes: Record<AnswerItem, number> = {};
  for (const set of byMerchant.values()) for (const item of set) votes[item] = (votes[item] ?? 0) + 1;
  const sorted: Record<AnswerItem, number> = {};
  for (const item of Object.keys(votes).sort()) sorted[item] = votes[item] as number;
  return { votes: sorted, shops: byMerchant.size, ...inForceOf(sorted, review) };
}
