/**
 * The notes perfumers and shops name — bergamot, Taif rose, ambroxan, هيل,
 * مسك أبيض — each with its Arabic name, the spellings shops use, and the
 * accords it contributes, weighted. Data in vocabulary/data/notes/*.json
 * (docs/notes.md says where the facts come from and how the weights were
 * chosen); lookups here. Pure: reads its own data files, nothing else.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromRoot } from '../lib/root.ts';
import { normalizeText } from '../lib/text.ts';
import { type AccordSlug, slugsOf } from './index.ts';

export const NOTE_GROUPS = [
  'citrus',
  'fruits',
  'vegetables and nuts',
  'flowers',
  'white flowers',
  'greens herbs and fougeres',
  'spices',
  'sweets and gourmand',
  'beverages',
  'woods and mosses',
  'resins and balsams',
  'musk amber animalic',
  'natural and synthetic',
  /** the names shops print for groups of notes: "citruses", "woody notes", بهارات */
  'group',
] as const;
export type NoteGroup = (typeof NOTE_GROUPS)[number];

export interface NoteRecord {
  /** the canonical English name, lower case ("pink pepper", "taif rose") */
  slug: string;
  en: string;
  ar: string;
  aliases: string[];
  group: NoteGroup;
  /** the accords the note contributes, 0–1; the one it is best known for is 1 */
  accords: Partial<Record<AccordSlug, number>>;
}

export const NOTES_DIR = fromRoot('vocabulary', 'data', 'notes');
/** accords a note may name */
export const MAX_NOTE_ACCORDS = 5;
/** words of the longest name a note is known by ("cedarwood from the atlas mountains" is not one) */
export const MAX_NOTE_WORDS = 4;

/** Every note record of the shipped files, in file-name order. */
export function readNoteFiles(dir = NOTES_DIR): NoteRecord[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .flatMap((f) => {
      const parsed = JSON.parse(readFileSync(join(dir, f), 'utf8')) as unknown;
      if (!Array.isArray(parsed)) throw new Error(`${f}: expected a JSON array of notes`);
      return parsed as NoteRecord[];
    });
}

const ARTICLE = 'ال';
/** Arabic letters written onto a word: و (and), ب (with), ل (for), ف, ك */
const CLITICS = ['وال', 'بال', 'فال', 'كال', 'لل', 'و', 'ب', 'ل', 'ف', 'ك'];

/** One word as notes are keyed: folded, and in Arabic without the article (المسك → مسك). */
export function noteWord(w: string): string {
  return w.startsWith(ARTICLE) && w.length >= 4 ? w.slice(2) : w;
}

/**
 * The forms a description's word may stand for, most literal first: itself,
 * then without a clitic ("والعود" → عود, "بالورد" → ورد), then an English
 * plural's singular ("roses" → rose). At most four.
 */
export function wordForms(w: string): string[] {
  const out = [noteWord(w)];
  if (/[\u0600-\u06FF]/.test(w)) {
    for (const c of CLITICS) {
      if (w.startsWith(c) && w.length - c.length >= 2) {
        // لل is ل + ال: what is left has lost its article already
        out.push(c.endsWith(ARTICLE) || c === 'لل' ? w.slice(c.length) : noteWord(w.slice(c.length)));
        break;
      }
    }
  } else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) {
    out.push(w.endsWith('ies') ? `${w.slice(0, -3)}y` : w.slice(0, -1));
  }
  return [...new Set(out)];
}

/** The key a name is found by: its folded words, each as noteWord keys it. */
export function noteKey(name: string): string {
  return normalizeText(name).split(' ').filter(Boolean).map(noteWord).join(' ');
}

export interface NoteIndex {
  readonly notes: readonly NoteRecord[];
  readonly bySlug: ReadonlyMap<string, NoteRecord>;
  /** every name a note is known by, keyed (noteKey) */
  readonly byKey: ReadonlyMap<string, NoteRecord>;
  /** every word of those names */
  readonly words: ReadonlySet<string>;
  /** the beginnings of names of two words or more ("iso", "iso e"): a phrase is looked up only along one */
  readonly prefixes: ReadonlySet<string>;
  /** Latin words of TYPO_MIN_LENGTH letters or more, by each one-letter deletion of them */
  readonly deletions: ReadonlyMap<string, readonly string[]>;
}

/**
 * a Latin word this long or longer may be a one-letter typo of a note's word
 * ("vanila", "jasmin"); shorter ones are too often other words ("glass" is not "grass")
 */
export const TYPO_MIN_LENGTH = 6;
/** …and no longer than this is looked at for one */
export const TYPO_MAX_LENGTH = 24;

const deletionsOf = (w: string) => Array.from({ length: w.length }, (_, i) => w.slice(0, i) + w.slice(i + 1));

export function buildNoteIndex(notes: readonly NoteRecord[]): NoteIndex {
  const bySlug = new Map<string, NoteRecord>();
  const byKey = new Map<string, NoteRecord>();
  const words = new Set<string>();
  const prefixes = new Set<string>();
  const deletions = new Map<string, string[]>();
  for (const n of notes) {
    bySlug.set(n.slug, n);
    for (const name of [n.slug, n.en, n.ar, ...n.aliases]) {
      const key = noteKey(name);
      if (key && !byKey.has(key)) byKey.set(key, n);
      const ws = key.split(' ');
      for (const w of ws) words.add(w);
      for (let k = 1; k < ws.length; k++) prefixes.add(ws.slice(0, k).join(' '));
    }
  }
  for (const w of words) {
    if (w.length < TYPO_MIN_LENGTH || !/^[a-z]+$/.test(w)) continue;
    for (const d of deletionsOf(w)) {
      const list = deletions.get(d);
      if (list) list.push(w);
      else deletions.set(d, [w]);
    }
  }
  return { notes, bySlug, byKey, words, prefixes, deletions };
}

/** Work done looking for typos since the process started: a test holds it under its cap. */
export const typoWork = { lookups: 0 };

/**
 * A word of a note list as the knowledge base spells it: the
 * word itself when some note's name holds it (or it is not a Latin word of 6–24
 * letters), else the one word of a note's name it is a single letter away
 * from ("vanila" → vanilla, "lavendar" → lavender, "frankinsence" →
 * frankincense), if there is exactly one; a typo keeps the first letter. At
 * most 1 + 2 × its length lookups.
 */
export function spellAsNote(w: string, index: NoteIndex = noteIndex()): string {
  if (index.words.has(w) || w.length < TYPO_MIN_LENGTH || w.length > TYPO_MAX_LENGTH || !/^[a-z]+$/.test(w)) return w;
  const found = new Set<string>();
  typoWork.lookups++;
  // a letter left out: w is a deletion of a note word
  for (const c of index.deletions.get(w) ?? []) if (c[0] === w[0]) found.add(c);
  for (const d of deletionsOf(w)) {
    typoWork.lookups += 2;
    // a letter too many
    if (index.words.has(d) && d[0] === w[0]) found.add(d);
    // a letter changed: both lose the same letter
    for (const c of index.deletions.get(d) ?? []) {
      if (c.length === w.length && c[0] === w[0] && [...c].filter((ch, i) => ch !== w[i]).length === 1) found.add(c);
    }
  }
  return found.size === 1 ? ([...found][0] as string) : w;
}

let shipped: NoteIndex | null = null;
/** The shipped notes, read once. */
export function noteIndex(): NoteIndex {
  shipped ??= buildNoteIndex(readNoteFiles());
  return shipped;
}

/** The note a name (any spelling, either script) stands for, or null. */
export function resolveNote(name: string, index: NoteIndex = noteIndex()): NoteRecord | null {
  if (name.length > 120) return null;
  const written = normalizeText(name).split(' ').filter(Boolean);
  if (written.length === 0 || written.length > MAX_NOTE_WORDS) return null;
  const words = written.map((w) => spellAsNote(w, index));
  const exact = index.byKey.get(words.map(noteWord).join(' '));
  if (exact) return exact;
  // "والعود", "roses": the first word's clitic, the last word's plural
  const [first, ...rest] = words as [string, ...string[]];
  for (const f of wordForms(first)) {
    const hit = index.byKey.get([f, ...rest.map(noteWord)].join(' '));
    if (hit) return hit;
  }
  const last = words[words.length - 1] as string;
  for (const f of wordForms(last).slice(1)) {
    const hit = index.byKey.get([...words.slice(0, -1).map(noteWord), f].join(' '));
    if (hit) return hit;
  }
  return null;
}

/** What is wrong with a set of note records, one line per problem (empty when none). */
export function checkNotes(notes: readonly NoteRecord[]): string[] {
  const problems: string[] = [];
  const accords = new Set<string>(slugsOf('accord'));
  const groups = new Set<string>(NOTE_GROUPS);
  const slugs = new Set<string>();
  const keys = new Map<string, string>();
  for (const n of notes) {
    const at = n?.slug ?? JSON.stringify(n).slice(0, 60);
    if (typeof n.slug !== 'string' || !/^[a-z0-9]+( [a-z0-9]+)*$/.test(n.slug)) {
      problems.push(`${at}: slug must be lower-case words`);
      continue;
    }
    if (slugs.has(n.slug)) problems.push(`${at}: slug used twice`);
    slugs.add(n.slug);
    if (typeof n.en !== 'string' || !n.en.trim()) problems.push(`${at}: en is required`);
    if (typeof n.ar !== 'string' || !/[\u0600-\u06FF]/.test(n.ar)) problems.push(`${at}: ar must be Arabic`);
    if (!Array.isArray(n.aliases) || !n.aliases.every((a) => typeof a === 'string' && a.trim()))
      problems.push(`${at}: aliases must be a list of names`);
    if (!groups.has(n.group)) problems.push(`${at}: unknown group "${n.group}"`);
    const entries = Object.entries(n.accords ?? {});
    if (entries.length === 0 || entries.length > MAX_NOTE_ACCORDS)
      problems.push(`${at}: names 1–${MAX_NOTE_ACCORDS} accords`);
    for (const [a, w] of entries) {
      if (!accords.has(a)) problems.push(`${at}: unknown accord "${a}"`);
      if (typeof w !== 'number' || !(w > 0 && w <= 1)) problems.push(`${at}: weight of ${a} must be in (0, 1]`);
    }
    if (entries.length && Math.max(...entries.map(([, w]) => w)) !== 1)
      problems.push(`${at}: the accord it is best known for weighs 1`);
    for (const name of [n.slug, n.en, n.ar, ...(Array.isArray(n.aliases) ? n.aliases : [])]) {
      const key = noteKey(String(name));
      if (!key) continue;
      if (key.split(' ').length > MAX_NOTE_WORDS)
        problems.push(`${at}: "${name}" is longer than ${MAX_NOTE_WORDS} words`);
      const other = keys.get(key);
      if (other && other !== n.slug) problems.push(`${at}: "${name}" also names ${other}`);
      keys.set(key, n.slug);
    }
  }
  return problems;
}
