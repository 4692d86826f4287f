/**
 * The notes and family words of a shop's product description, in English or
 * Arabic: structured pyramids ("Top notes: …", "Heart: …", "Base notes: …",
 * "النفحات العليا: …", "القلب: …", "القاعدة: …", "المكونات: …") and prose
 * ("a warm blend of oud, rose and saffron", "مزيج من العود والورد والزعفران").
 * A word is a note only when the notes knowledge base knows it; a note word
 * used for a colour or a product line ("rose gold bottle", "amber glass",
 * "the Oud collection") is not one. Pure, and bounded: MAX_DESCRIPTION_CHARS
 * are read, and each word is looked up at most LOOKUPS_PER_WORD times.
 */
import { foldArabic, normalizeText } from '../lib/text.ts';
import { type FamilySlug, resolveTerm } from '../vocabulary/index.ts';
import {
  MAX_NOTE_WORDS,
  type NoteIndex,
  type NoteRecord,
  noteIndex,
  noteWord,
  spellAsNote,
  wordForms,
} from '../vocabulary/notes.ts';
import type { Tier } from './note-profile.ts';

/** A description is read up to here: notes are listed well before it. */
export const MAX_DESCRIPTION_CHARS = 4000;
/**
 * Lookups per word at most: two readings start at each word (the word, and
 * the word after it when a name starts inside), each following the beginnings
 * of names (at most MAX_NOTE_WORDS per form of the first word), trying phrases
 * of up to MAX_NOTE_WORDS words in at most 2 forms of its first and 2 of its
 * last word, and a name written in two; and one family lookup. A typo's spelling is
 * counted apart (vocabulary/notes.ts, typoWork).
 */
export const LOOKUPS_PER_WORD = 2 * (MAX_NOTE_WORDS * 4 + 2 * MAX_NOTE_WORDS + 1) + 1;

/** Lookups made since the process started: a test holds the work per description under its cap. */
export const descriptionWork = { lookups: 0 };

export interface DescriptionReading {
  notes: Record<Tier, string[]>;
  /** family words the text states ("oriental", "woody", شرقي, "عطور عود") */
  families: FamilySlug[];
}

const TOP = String.raw`(?:top|head|opening|upper)(?:\s+(?:notes?|accords?))?|(?:ال)?مقدمه(?:\s+العطر)?|(?:ال)?(?:نفحات|نوتات|روايح|طبقه|مكونات)\s+(?:ال)?(?:عليا|علويه|افتتاحيه|اوليه|اولي|مقدمه)|قمه\s+العطر|(?:ال)?افتتاحيه|(?:ال)?راس`;
const HEART = String.raw`(?:heart|middle|mid|core)(?:\s+(?:notes?|accords?))?|(?:ال)?قلب(?:\s+العطر)?|(?:ال)?(?:نفحات|نوتات|روايح|طبقه|مكونات)\s+(?:ال)?(?:وسطي|قلب|القلب)|(?:ال)?وسط`;
const BASE = String.raw`(?:base|bottom|dry\s*-?\s*down)(?:\s+(?:notes?|accords?))?|(?:ال)?قاعده(?:\s+العطر)?|(?:ال)?(?:نفحات|نوتات|روايح|طبقه|مكونات)\s+(?:ال)?(?:اساسيه|قاعديه|قاعده|القاعده|ختاميه|نهائيه)|اساس\s+العطر|(?:ال)?ختام`;
const FLAT = String.raw`(?:(?:key|main|fragrance|olfactory|scent|perfume)\s+)?(?:notes|ingredients|accords|composition)|(?:ال)?مكونات(?:\s+(?:ال)?عطريه)?|(?:ال)?(?:نفحات|نوتات)(?:\s+(?:ال)?عطريه)?`;
/** a label: one of the above, then ":" or a dash (a bare "Top notes" at a line's start too) */
const LABEL = String.raw`(?:(?<top>${TOP})|(?<heart>${HEART})|(?<base>${BASE})|(?<flat>${FLAT}))\s*(?:[:：]|\s[-–—]\s|-(?=\s))`;
/**
 * Prose that places what follows in a tier: "opens with …", "a heart of …",
 * "settles into a base of …", "يفتتح العطر بـ…", "قلب من …", "ويستقر على قاعدة من …".
 */
const TOP_CUE = String.raw`opens?\s+(?:with|on)|opening\s+(?:of|with)|top\s+(?:notes?\s+)?of|(?:the\s+)?first\s+spray(?:\s+is)?|begins?\s+with|starts?\s+with|و?(?:يفتتح|تفتتح|يبدا)`;
const HEART_CUE = String.raw`(?:a|its|the)\s+(?:\w+\s+)?heart\s+(?:of|is)|heart\s+of|at\s+(?:its|the)\s+heart|unfolding\s+into|unfolds\s+into|gives\s+way\s+to|reveals|core\s+of|قلب(?:ه)?\s+(?:من|عن)|ثم\s+يظهر`;
const BASE_CUE = String.raw`(?:a|its|the)\s+(?:\w+\s+){0,2}base(?:\s+(?:of|is))?|base\s+of|on\s+a\s+bed\s+of|over\s+a\s+bed\s+of|dry\s*-?\s*down\s+(?:of|is|to|into)|(?:drying|dries)\s+down\s+(?:to|into)|settl(?:es|ing)\s+into|finished\s+with|resting\s+on|laid\s+over|قاعده\s+(?:من|عن)|بقاعده|و?(?:ينتهي|يستقر\s+علي|تستقر\s+علي)`;
const CUE = String.raw`(?<topcue>${TOP_CUE})|(?<heartcue>${HEART_CUE})|(?<basecue>${BASE_CUE})`;
const MARKER = new RegExp(String.raw`(?<![\p{L}])(?:${LABEL}|${CUE})`, 'giu');
/** where a labelled list ends: a sentence's end or a blank line */
const SENTENCE_END = /[.!?؟](?=\s|$)|\n\s*\n/g;
/** where a list item ends: notes never span these */
const SEPARATORS = /[,،;؛/&+•·●▪|()[\]{}\n\r]|\s(?:and|with|plus|et|y)\s|\s-\s/giu;

/** words after a note word that make it a colour or a product line, not a note */
const NOT_A_NOTE_AFTER = new Set(
  [
    'gold',
    'golden',
    'bottle',
    'bottles',
    'glass',
    'color',
    'colour',
    'colored',
    'coloured',
    'packaging',
    'box',
    'cap',
    'collection',
    'edition',
    'series',
    'line',
    'tone',
    'toned',
    'hue',
    'shade',
    'tint',
    'design',
    'ذهبي',
    'زجاجه',
    'علبه',
    'مجموعه',
    'اصدار',
    'لون',
    'اللون',
  ].map((w) => normalizeText(w)),
);

function labelsOf(text: string): { at: number; end: number; tier: Tier; listed: boolean }[] {
  const out: { at: number; end: number; tier: Tier; listed: boolean }[] = [];
  for (const m of text.matchAll(MARKER)) {
    const g = m.groups ?? {};
    const tier: Tier =
      g.top || g.topcue ? 'top' : g.heart || g.heartcue ? 'heart' : g.base || g.basecue ? 'base' : 'flat';
    // a label opens a list of notes; a cue ("opens with") goes on in prose
    const listed = !(g.topcue || g.heartcue || g.basecue);
    out.push({ at: m.index ?? 0, end: (m.index ?? 0) + m[0].length, tier, listed });
  }
  return out;
}

/** Words of one description's lists looked at for a typo: no list of notes holds more. */
export const MAX_TYPO_WORDS = 60;

/** spellAsNote within the description's typo budget: a word the notes know costs nothing from it. */
function spellTypo(w: string, index: NoteIndex, typos: { left: number }): string {
  if (index.words.has(w)) return w;
  if (typos.left <= 0) return w;
  typos.left--;
  return spellAsNote(w, index);
}

/** The longest note named at words[i], as [note, words it takes], or null. */
function noteAt(words: readonly string[], i: number, index: NoteIndex): [NoteRecord, number] | null {
  const firstForms = wordForms(words[i] as string);
  // a phrase of several words is looked for only as far as some name of several words begins like it
  let longest = 1;
  for (const f of firstForms) {
    let prefix = f;
    for (let n = 1; n < MAX_NOTE_WORDS && i + n < words.length && index.prefixes.has(prefix); n++) {
      descriptionWork.lookups++;
      longest = Math.max(longest, n + 1);
      prefix = `${prefix} ${noteWord(words[i + n] as string)}`;
    }
  }
  for (let n = longest; n >= 1; n--) {
    const middle = words.slice(i + 1, i + n).map(noteWord);
    const lastForms = n > 1 ? wordForms(words[i + n - 1] as string) : [''];
    for (const f of firstForms) {
      for (const l of lastForms) {
        descriptionWork.lookups++;
        const note = index.byKey.get(n > 1 ? [f, ...middle.slice(0, -1), l].join(' ') : f);
        if (note) return [note, n];
      }
    }
  }
  // a name written in two ("sandal wood", "amber gris")
  const next = words[i + 1];
  if (next) {
    descriptionWork.lookups++;
    const note = index.byKey.get(noteWord(words[i] as string) + next);
    if (note) return [note, 2];
  }
  return null;
}

/**
 * The notes a stretch of text names, in order, each once. In a list under a
 * label ("Notes: vanila, lavendar") a word may be a typo of a note's word; in
 * prose only exact names count ("express delivery" is no espresso).
 */
function notesIn(
  text: string,
  index: NoteIndex,
  into: string[],
  seen: Set<string>,
  listed: boolean,
  typos: { left: number },
): void {
  for (const item of text.split(SEPARATORS)) {
    if (!item) continue;
    const written = normalizeText(item).split(' ').filter(Boolean);
    const words = listed ? written.map((w) => spellTypo(w, index, typos)) : written;
    for (let i = 0; i < words.length; ) {
      const hit = noteAt(words, i, index);
      if (!hit) {
        i++;
        continue;
      }
      // a longer name starting inside this one is the better reading ("خشب العود الكمبودي": Cambodian oud)
      const inner = hit[1] > 1 ? noteAt(words, i + 1, index) : null;
      if (inner && inner[1] + 1 > hit[1]) {
        i++;
        continue;
      }
      const [note, n] = hit;
      const after = written[i + n];
      if (!(after && NOT_A_NOTE_AFTER.has(after)) && !seen.has(note.slug)) {
        seen.add(note.slug);
        into.push(note.slug);
      }
      i += n;
    }
  }
}

/** family names that are everyday words in a description: جلد is the wearer's skin ("يدوم على الجلد") */
const NOT_A_FAMILY = new Set(['جلد']);

/** Family words ("oriental", "woody", شرقي): each word alone, or "عطور عود" as the family it names. */
function familiesIn(text: string): FamilySlug[] {
  const out = new Set<FamilySlug>();
  const words = normalizeText(text).split(' ');
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    if (NOT_A_FAMILY.has(noteWord(w))) continue;
    // "عطور عود", "oud perfumes": a shop's category names its family
    const f = resolveTerm('family', noteWord(w));
    descriptionWork.lookups++;
    if (f && (w.length > 3 || /[\u0600-\u06FF]/.test(w))) out.add(f);
  }
  return [...out].sort();
}

/** Reads a description: its notes by tier (a list with no tier label is `flat`), and its family words. */
export function readDescription(raw: string, index: NoteIndex = noteIndex()): DescriptionReading {
  const text = foldArabic(raw.slice(0, MAX_DESCRIPTION_CHARS))
    .replace(/<br\s*\/?>|<\/(?:p|li|div)>/gi, '\n')
    .replace(/<[^>]{0,200}>/g, ' ')
    .toLowerCase();
  const notes: Record<Tier, string[]> = { top: [], heart: [], base: [], flat: [] };
  // a note may be listed in two tiers (a rose heart and a rose base); in each once
  const seen: Record<Tier, Set<string>> = { top: new Set(), heart: new Set(), base: new Set(), flat: new Set() };
  const labels = labelsOf(text);
  const typos = { left: MAX_TYPO_WORDS };
  // where sentences end, found once: each label's list runs to the first end after it
  const ends = [...text.matchAll(SENTENCE_END)].map((m) => m.index ?? 0);
  let e = 0;
  // text before the first label, and after a labelled list's end, is prose: its notes have no tier
  let pos = 0;
  for (let k = 0; k <= labels.length; k++) {
    const label = labels[k];
    const until = label ? label.at : text.length;
    if (until > pos) notesIn(text.slice(pos, until), index, notes.flat, seen.flat, false, typos);
    if (!label) break;
    const next = labels[k + 1]?.at ?? text.length;
    while (e < ends.length && (ends[e] as number) < label.end) e++;
    const end = Math.min(next, ends[e] ?? text.length);
    notesIn(text.slice(label.end, end), index, notes[label.tier], seen[label.tier], label.listed, typos);
    pos = end;
  }
  // prose that names a note the pyramid places ("… opens with bergamot. Top notes: bergamot") adds nothing
  const tiered = new Set([...notes.top, ...notes.heart, ...notes.base]);
  notes.flat = notes.flat.filter((n) => !tiered.has(n));
  return { notes, families: familiesIn(text) };
}
