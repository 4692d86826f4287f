/**
 * Matches a shop's product listing (name and house, as shop feeds write them)
 * to a perfume of our catalog. Pure: the catalog comes in as data, a match
 * (or a reasoned refusal) comes out.
 *
 * Precision over recall: a wrong match recommends the wrong scent, so when
 * the listing is ambiguous, names a flanker we do not have, or is not a
 * perfume at all, the answer is "unmatched" with the reason.
 */

import { skeletons } from '../catalog/phonetic.ts';
import {
  editDistance,
  extractConcentration,
  MAX_FUZZY_WORD,
  resolveHouse,
  type SearchIndex,
  search,
  searchTokens,
  withWorkBudget,
  work,
} from '../catalog/search.ts';
import { normalizeText } from '../lib/text.ts';
import { DESCRIPTORS, GENDER_WORDS, LINKING_WORDS, NOISE, type ParsedListing, parseListing } from './parse.ts';
import { type MatchWhy, type ReasonPerfume, reasonText } from './reason.ts';

export { type ParsedListing, parseListing };

export interface MatchablePerfume {
  id: string;
  name: string;
  nameAr?: string | null;
  house: string;
  concentration?: string | null;
  gender?: string | null;
  aliases?: readonly string[];
}

export interface MatchResult {
  perfumeId: string | null;
  /** 0–1; a match is returned only at or above MATCH_THRESHOLD */
  confidence: number;
  reason: string;
  /**
   * the listing names a concentration of the line that the catalog lacks, and
   * the perfume is that line's nearest concentration: recommended as a
   * sibling, never passed off as the product (quality "sibling")
   */
  sibling?: boolean;
  /** the closest perfumes examined, best first (at most 3), for an operator to see why */
  candidates?: { perfumeId: string; score: number }[];
}

/** A match with why it was decided, as data (matching/reason.ts): what `reason` is written from. */
export type ExplainedMatch = MatchResult & { why: MatchWhy };

/** What the matcher decides; its English reason is written from `why` (reasonText). */
type Decision = Omit<MatchResult, 'reason'> & { why: MatchWhy };

const ref = (p: MatchablePerfume): ReasonPerfume => ({
  id: p.id,
  name: p.name,
  house: p.house,
  concentration: p.concentration ?? null,
});

export const MATCH_THRESHOLD = 0.8;
/** a rival of another line this close to the best makes the listing ambiguous */
const AMBIGUITY_MARGIN = 0.04;

const SOFT = new Set([...LINKING_WORDS, ...GENDER_WORDS.keys()]);

/**
 * Concentrations of one line close enough to stand in for each other, by
 * strength: a listing of a version we lack takes the nearest one as a
 * sibling. An elixir or an oil is a composition of its own, never a sibling.
 */
const SIBLING_STRENGTH: Readonly<Record<string, number>> = { edc: 1, edt: 2, edp: 3, parfum: 4, extrait: 5 };

/** numbers written as words in perfume names ("One Million" is "1 Million") */
const NUMBER_WORDS: Readonly<Record<string, string>> = {
  one: '1',
  two: '2',
  three: '3',
  four: '4',
  five: '5',
  six: '6',
  seven: '7',
  eight: '8',
  nine: '9',
  ten: '10',
};

/** linking words of names as Arabic listings write them ("قوتشي قلتي بور هوم" for Gucci Guilty Pour Homme) */
const LINKING_SOUNDS: Readonly<Record<string, readonly string[]>> = {
  بور: ['pour'],
  فور: ['for'],
  لو: ['le', 'la'],
  لي: ['le', 'l'],
  لا: ['la'],
  دي: ['de', 'di', 'des'],
  دو: ['du', 'de'],
  ال: ['al', 'el'],
};

/**
 * Word similarities computed during one match: the same pairs meet again in
 * every name variant and candidate (a listing's 24 words against 25 perfumes).
 */
let simMemo: Map<string, Map<string, number>> | null = null;
/** Word pairs one match may compare beyond exact equality (by spelling or by sound). */
export const PAIR_BUDGET = 2_000;
let pairsLeft = Number.POSITIVE_INFINITY;

function wordSim(a: string, b: string): number {
  if (a === b) return 1;
  if (!simMemo) return wordSimOnce(a, b);
  let row = simMemo.get(a);
  if (!row) {
    row = new Map();
    simMemo.set(a, row);
  }
  let s = row.get(b);
  if (s === undefined) {
    s = wordSimOnce(a, b);
    row.set(b, s);
  }
  return s;
}

/** Skeletons of the words met during one match: each word's computed once. */
let skeletonMemo: Map<string, string[]> | null = null;
function skeletonsOf(w: string): string[] {
  let s = skeletonMemo?.get(w);
  if (!s) {
    work.skeletons++;
    s = skeletons(w);
    skeletonMemo?.set(w, s);
  }
  return s;
}

const elidedOnto = (a: string, b: string) =>
  a.length === b.length + 1 && (a[0] === 'l' || a[0] === 'd') && a.endsWith(b);

function wordSimOnce(a: string, b: string): number {
  // past its budget a match compares words exactly only: the real listings of the labelled set
  // need at most 1,339 pairs, a made-up one of 24 long words against a large house 4,080
  if (pairsLeft <= 0) return 0;
  pairsLeft--;
  work.pairs++;
  // a word longer than any name word is matched exactly only (MAX_FUZZY_WORD), in any script
  if (a.length > MAX_FUZZY_WORD || b.length > MAX_FUZZY_WORD) return 0;
  if ((NUMBER_WORDS[a] ?? a) === (NUMBER_WORDS[b] ?? b)) return 1;
  if (LINKING_SOUNDS[a]?.includes(b) || LINKING_SOUNDS[b]?.includes(a)) return 1;
  const ga = GENDER_WORDS.get(a);
  if (ga && ga === GENDER_WORDS.get(b)) return 1;
  if (/^\d+$/.test(a) || /^\d+$/.test(b)) return 0;
  const arA = /[\u0600-\u06FF]/.test(a);
  const arB = /[\u0600-\u06FF]/.test(b);
  // a final ta marbuta is a word of its own in Arabic names: اميرة (princess) is not امير (prince)
  if (arA && arB && (a === `${b}ه` || b === `${a}ه`)) return 0;
  if (arA !== arB) {
    const sa = skeletonsOf(a);
    const sb = skeletonsOf(b);
    return sb.some((x) => x.length >= 3 && sa.includes(x)) ? 0.8 : 0;
  }
  // an article elided onto a word makes another name: "L'Homme" (lhomme) is not "Homme"
  if (elidedOnto(a, b) || elidedOnto(b, a)) return 0;
  const len = Math.min(a.length, b.length);
  if (len >= 4) {
    const max = len >= 8 ? 2 : 1;
    // a and b differ, so d is 1 or 2 within max
    const d = editDistance(a, b, max);
    if (d > max) return 0;
    return d === 1 ? 0.85 : 0.7;
  }
  return 0;
}

/**
 * Share of `from`'s meaningful words found in `to` (best similarity per word),
 * or null when `from` has no meaningful word. Soft words (for, pour, gender
 * words, de…) never count for or against, except that each one missing costs
 * 2%: "Light Blue" beats "Light Blue Pour Homme" for a listing of "Light Blue".
 */
function covered(
  from: readonly string[],
  to: readonly string[],
  soft: (w: string) => boolean,
  weightOf: (w: string) => number = () => 1,
  /** soft words whose absence costs 2% (linking and gender words; not a house's, not a seller's) */
  costly: (w: string) => boolean = (w) => SOFT.has(w),
  /** words of `from` that `to` leaves unexplained though it holds them: a name's repeats it does not repeat */
  unexplained = 0,
): number | null {
  let total = 0;
  let weight = unexplained;
  let softMissing = 0;
  for (const w of from) {
    let best = to.includes(w) ? 1 : 0;
    for (let i = 0; i < to.length && best < 1; i++) {
      const s = wordSim(w, to[i] as string);
      if (s > best) best = s;
    }
    if (soft(w)) {
      if (best === 0 && costly(w)) softMissing++;
      // a code with digits that the other side says too ("9PM" in "9PM") explains as much as any word
      if (best === 1 && /\d/.test(w)) {
        total += 1;
        weight += 1;
      }
      continue;
    }
    // a word the name explains counts in full; one it leaves out counts as much as it could mean
    const wt = best === 1 ? 1 : weightOf(w);
    total += best * wt;
    weight += wt;
  }
  return weight === 0 ? null : (total / weight) * 0.98 ** softMissing;
}

/**
 * How many times a name says a word beyond what the listing says of it: "Noir de Noir" says "noir"
 * twice, "Tom Ford Noir EDP" once, so one "noir" of the name is left unexplained. The listing's
 * words hold each word once (parse.ts); `repeated` are those its seller wrote more than once.
 */
function repeatsUnsaid(
  name: readonly string[],
  listing: readonly string[],
  repeated: ReadonlySet<string>,
  soft: (w: string) => boolean,
): number {
  let unsaid = 0;
  const seen = new Set<string>();
  for (const w of name) {
    if (soft(w) || seen.has(w)) continue;
    seen.add(w);
    const times = name.filter((x) => x === w).length;
    if (times > 1 && listing.includes(w) && !repeated.has(w)) unsaid += times - 1;
  }
  return unsaid;
}

/** How many words the seller repeats that the perfume's name repeats too. */
function repeatsSaid(repeated: ReadonlySet<string>, name: string): number {
  if (repeated.size === 0) return 0;
  const words = searchTokens(name);
  return [...repeated].filter((w) => words.indexOf(w) !== words.lastIndexOf(w)).length;
}

/** "N°5", "No. 5", "شانيل رقم 5": the sign before a number names nothing */
const NUMBER_SIGNS = new Set(['n', 'no', 'nr', 'number', 'نمبر', 'رقم']);
const isSoft = (w: string) => SOFT.has(w) || NOISE.has(w) || NUMBER_SIGNS.has(w);
/**
 * Listing words that say nothing against a perfume that lacks them: a
 * seller's description ("Sporty", "Luxury"), a number left from a size or a
 * count, a stock code ("Y1", "7D").
 */
const sayNothing = (w: string) => DESCRIPTORS.has(w) || /^(?=.*\d)(?=.*[a-z])[a-z0-9]{2,3}$/.test(w);
/** when a listing says nothing but its house and a gender ("Valentino Donna"), the gender words name the perfume */
const isSoftButGender = (w: string) => isSoft(w) && !GENDER_WORDS.has(w);

/**
 * A name that holds the words read as a concentration ("Dior Homme Cologne")
 * is the more specific reading, by more than the ambiguity margin: the other
 * reading would take "cologne" for a concentration the line lacks.
 */
const TAKE_BACK = 0.05;

/** the words of a concentration that a perfume's name may hold ("Yara Elixir", "Le Parfum", "Flower L'Elixir") */
const NAMED_CONCENTRATION: Readonly<Record<string, readonly string[]>> = {
  elixir: ['elixir', 'lelixir'],
  parfum: ['parfum'],
  extrait: ['extrait'],
};

/** the words a concentration is written with */
const CONCENTRATION_WORDS: Readonly<Record<string, readonly string[]>> = {
  edc: ['eau', 'de', 'cologne'],
  edt: ['eau', 'de', 'toilette'],
  edp: ['eau', 'de', 'parfum'],
  parfum: ['parfum'],
  extrait: ['extrait', 'de', 'parfum'],
  elixir: ['elixir'],
};

const saysCologneIntense = (parsed: ParsedListing) =>
  parsed.concentrationPhrases.some((ph) => ph.length === 1 && ph[0] === 'cologne') && parsed.words.includes('intense');

/** words of a concentration phrase that name nothing on their own */
const LINKING = new Set(['eau', 'de', 'du', 'di', 'او', 'دو', 'دي', 'ادو']);

/** how many of a listing's say-nothing words a perfume's name holds */
function descriptorsIn(words: readonly string[], p: MatchablePerfume): number {
  const name = new Set(searchTokens(p.name));
  return words.filter((w) => sayNothing(w) && name.has(w)).length;
}

/**
 * Words that make a different perfume of a line: a listing word among them
 * that a name leaves out always counts against it ("Sauvage Eau Forte" is not
 * "Sauvage").
 */
const FLANKER_WORDS = new Set(
  [
    'intense',
    'intensely',
    // the same word in the languages perfumes are named in ("Intenso", "Intensa", "Intensément")
    'intenso',
    'intensa',
    'intensement',
    'extreme',
    'absolu',
    'absolute',
    'elixir',
    'noir',
    'black',
    'night',
    'nuit',
    'sport',
    'fraiche',
    'eau',
    'leau',
    'parfum',
    'cologne',
    'blue',
    'bleu',
    'red',
    'rouge',
    'white',
    'blanc',
    'gold',
    'silver',
    'platinum',
    'rose',
    'oud',
    'leather',
    'cuir',
    'tobacco',
    'vanilla',
    'amber',
    'summer',
    'winter',
    'spring',
    'aqua',
    'acqua',
    'cool',
    'ice',
    'wild',
    'prive',
    'private',
    'exclusive',
    'reserve',
    'collector',
    'edition',
    'forte',
    'flame',
    'code',
    'profumo',
    'profondo',
    'legend',
    'royal',
    'essence',
    'le',
    'la',
    'vip',
    'nyc',
    'party',
    'dream',
    'love',
    'secret',
    'glam',
    'tonic',
    'blossom',
    'bloom',
    'delight',
    'extrait',
    'supreme',
    'pink',
  ].map((w) => normalizeText(w)),
);

/**
 * How much a listing word the name leaves out tells against it: a word of the
 * name part of the listing in full; a word of the seller's description after
 * it ("… EDT Sophisticated Men's Cologne") nothing, unless it is a word that
 * makes flankers ("… EDP Intense").
 */
function informativeIn(parsed: ParsedListing, description = 0): (w: string) => number {
  return (w) => (parsed.described.has(w) || (parsed.tail.has(w) && !FLANKER_WORDS.has(w)) ? description : 1);
}

/**
 * How well a listing and a perfume's name explain each other: the lesser of
 * the share of the name found in the listing and the share of the listing
 * found in the name. Either side left unexplained ("Khamrah" vs "Khamrah
 * Qahwa", "Sauvage Eau Forte" vs "Sauvage") pulls it down; a typo costs once.
 * The house's own words are optional in the listing ("Dior Sauvage") but
 * count in a name made of them ("Dior Homme", "Chloé").
 */
export function alignment(
  listing: readonly string[],
  name: readonly string[],
  houseWords: ReadonlySet<string> = new Set(),
  informative: (w: string) => number = () => 1,
  /** every name of the perfume: a listing in two scripts ("يارا موي Yara Moi") is explained by both */
  allNames: readonly string[] = name,
  /** the listing's words its seller wrote more than once: a name's repeats must be among them */
  repeated?: ReadonlySet<string>,
): number {
  const onlyHouse = listing.every((w) => isSoft(w) || houseWords.has(w));
  // a name made only of such words ("For Her", "Le Male", "Pour Homme", "Donna") is those words
  const onlySoftName = name.every((w) => isSoft(w) || houseWords.has(w));
  const soft = onlySoftName ? (w: string) => NOISE.has(w) : onlyHouse ? isSoftButGender : isSoft;
  const unsaid = repeated ? repeatsUnsaid(name, listing, repeated, soft) : 0;
  const nameSide = covered(name, listing, soft, undefined, undefined, unsaid);
  const listingSide =
    covered(
      listing,
      allNames,
      (w) => soft(w) || houseWords.has(w) || sayNothing(w),
      informative,
      // a soft word of the seller's description ("… EDP Women Gift For Her") is not the name's
      (w) => SOFT.has(w) && !houseWords.has(w) && informative(w) === 1,
    ) ??
    // nothing but house words (and the seller's): "Chloé" for Chloé
    covered(listing, allNames, (w) => soft(w) || sayNothing(w), informative) ??
    covered(listing, allNames, soft);
  if (nameSide === null || listingSide === null) return 0;
  return Math.min(nameSide, listingSide);
}

export interface MatcherCatalog {
  index: SearchIndex;
  perfumes: readonly MatchablePerfume[];
}

const nameVariants = (p: MatchablePerfume): string[][] =>
  [p.name, p.nameAr ?? '', ...(p.aliases ?? [])].filter(Boolean).map((n) => searchTokens(n));

/**
 * Drops the house's own words from a listing ("Dior Sauvage" → "Sauvage"),
 * unless nothing that could name a perfume is left: "JIMMY CHOO by Jimmy Choo
 * EDP Women New" names the house's own perfume.
 */
function withoutHouse(words: string[], houseWords: Set<string>, tail: ReadonlySet<string>): string[] {
  const out = words.filter((w) => !houseWords.has(w));
  // the seller's description may say whom it is for ("… EDP Women"): that names nothing
  const names = (w: string) => !isSoftButGender(w) && !DESCRIPTORS.has(w) && !(tail.has(w) && GENDER_WORDS.has(w));
  return out.some(names) ? out : words;
}

/**
 * The listing's spellings of the house's words ("Hogo Boss" for Hugo Boss,
 * "Armanni"): one typo from a house word of five letters or more is that word.
 */
function withTypos(words: readonly string[], houseWords: Set<string>): Set<string> {
  const out = new Set(houseWords);
  // a house word written in two ("MONT BLANC" for Montblanc), or two written as one ("deMarly")
  for (let i = 0; i + 1 < words.length; i++) {
    const a = words[i] as string;
    const b = words[i + 1] as string;
    if (houseWords.has(a + b)) out.add(a).add(b);
  }
  for (const w of words) {
    if (w.length < 5 || out.has(w)) continue;
    for (const h of houseWords) if (w.startsWith(h) && houseWords.has(w.slice(h.length))) out.add(w);
  }
  for (const w of words) {
    if (out.has(w) || w.length < 4) continue;
    for (const h of houseWords) {
      if (h.length >= 4 && editDistance(w, h, 1) <= 1) {
        out.add(w);
        break;
      }
    }
  }
  return out;
}

const houseWordCache = new WeakMap<SearchIndex, Map<string, Set<string>>>();
function houseWordsOf(index: SearchIndex, house: string): Set<string> {
  let byHouse = houseWordCache.get(index);
  if (!byHouse) {
    byHouse = new Map();
    for (const [key, h] of index.houseKeys) {
      const words = byHouse.get(h) ?? new Set<string>();
      for (const w of key.split(' ')) words.add(w);
      byHouse.set(h, words);
    }
    houseWordCache.set(index, byHouse);
  }
  return byHouse.get(house) ?? new Set();
}

/** A house named inside the listing ("Lattafa Khamrah" with a shop's own name as the house). */
function houseInName(index: SearchIndex, words: readonly string[]): string | null {
  let best: { house: string; len: number } | null = null;
  for (const [key, house] of index.houseKeys) {
    const kw = key.split(' ');
    if (kw.length === 1 && kw[0] && kw[0].length < 3) continue; // "cd", "ch": too easy to meet by chance
    for (let i = 0; i + kw.length <= words.length; i++) {
      if (kw.every((w, k) => words[i + k] === w) && (!best || kw.length > best.len)) best = { house, len: kw.length };
    }
  }
  return best?.house ?? null;
}

/**
 * A house field that names no house at all: empty, or a seller's placeholder
 * ("AS SHOWN", "Unbranded", "Multiple Brands", "Cologne").
 */
/** A house field that is a shop's own name ("متجر ريحان", "Scent Hub Riyadh", "Five Star Fragrance"). */
// "Perfumes", "Parfums", "Fragrance", "عطور" are words of real houses too (Histoires de Parfums,
// Junaid Perfumes, ريف للعطور): only words no house is named with mark a shop
const SHOP_NAME = /(^| )(متجر|store|shop|boutique|outlet|mall|hub|ksa|riyadh|jeddah|dubai)( |$)/;

const NO_HOUSE =
  /^(as ?(shown?|show|showed|seen|pictured?|picture( shown?| show)?|photo|pic|image)|see (photo|picture|pics?)|unbranded|no ?brand|non ?branded|generic|unknown|none|n ?a|various|assorted|multiple brands|mixed|others?|brand|designer|designer brand|colognes?|perfumes?|fragrances?|unisex|mens?|womens?|غير محدد|متنوع|بدون ماركه|عطور|عطر)?$/;
/**
 * Words a house field says around the house's name: a shop's or a company's words, "House of",
 * a city or a country ("House of Lattafa", "Lattafa Perfumes Dubai", "Ajmal Perfumes - Dubai",
 * "Armaf Paris", "لطافة للعطور دبي").
 */
const HOUSE_FIELD_EXTRAS: ReadonlySet<string> = new Set(
  [
    'house',
    'of',
    'the',
    'by',
    'perfume',
    'perfumes',
    'parfum',
    'parfums',
    'fragrance',
    'fragrances',
    'perfumery',
    'official',
    'store',
    'shop',
    'online',
    'llc',
    'fze',
    'fzco',
    'co',
    'company',
    'group',
    'trading',
    'industries',
    'international',
    'دار',
    'للعطور',
    'عطور',
    'العطور',
    'الرسمي',
    'متجر',
    'شركه',
    'dubai',
    'abu',
    'dhabi',
    'sharjah',
    'ajman',
    'uae',
    'emirates',
    'ksa',
    'saudi',
    'arabia',
    'riyadh',
    'jeddah',
    'dammam',
    'kuwait',
    'qatar',
    'doha',
    'bahrain',
    'oman',
    'muscat',
    'paris',
    'france',
    'london',
    'uk',
    'milano',
    'italy',
    'usa',
    'دبي',
    'الامارات',
    'السعوديه',
    'الرياض',
    'جده',
    'الكويت',
    'قطر',
    'البحرين',
    'عمان',
    'باريس',
    'لندن',
  ].map((w) => normalizeText(w)),
);
/** A house field of more words is not read for a house among extras: no house field says so much. */
const HOUSE_FIELD_WORDS = 12;

/**
 * The house a field names among the words said around it: the longest run of its words that is
 * a house of ours, every other word one of HOUSE_FIELD_EXTRAS. A house named with such a word
 * is that house ("Paris Corner Perfumes UAE" is Paris Corner, "Jo Malone London Dubai" Jo Malone).
 */
function houseAmidExtras(index: SearchIndex, houseField: string): string | null {
  const words = searchTokens(houseField);
  if (words.length > HOUSE_FIELD_WORDS) return null;
  const named = words.flatMap((w, i) => (HOUSE_FIELD_EXTRAS.has(w) ? [] : [i]));
  const first = named[0];
  if (first === undefined) return null;
  const last = named[named.length - 1] as number;
  // the run holds every word that is not an extra; the longest such run that is a house wins
  for (let length = words.length; length >= last - first + 1; length--) {
    for (let start = Math.max(0, last + 1 - length); start <= first && start + length <= words.length; start++) {
      work.houseRuns++;
      const house = index.houseKeys.get(words.slice(start, start + length).join(' '));
      if (house) return house;
    }
  }
  return null;
}
export function saysNoHouse(houseField: string): boolean {
  const field = normalizeText(houseField);
  return NO_HOUSE.test(field) || SHOP_NAME.test(field);
}

/**
 * The house of a listing: its house field when that names a house of ours,
 * else one named in the title (a junk field such as "AS SHOWN", a shop's own
 * name, or an empty one).
 */
export function listingHouse(
  index: SearchIndex,
  houseField: string,
  parsed: ParsedListing,
): { house: string | null; from: 'house' | 'name' | null } {
  // "لطافه للعطور", "Rasasi Perfumes Official", "House of Lattafa": the house with a shop's, a
  // company's or a city's words around it; spelt otherwise ("Latafa Perfumes Dubai"), once they are set aside
  const fromField =
    resolveHouse(index, houseField) ??
    houseAmidExtras(index, houseField) ??
    resolveHouse(
      index,
      searchTokens(houseField)
        .filter((w) => !HOUSE_FIELD_EXTRAS.has(w))
        .join(' '),
    );
  if (fromField) return { house: fromField, from: 'house' };
  const fromName = houseInName(index, parsed.words);
  return fromName ? { house: fromName, from: 'name' } : { house: null, from: null };
}

/**
 * The perfume a listing names, or a reasoned refusal. Its cost is bounded
 * whatever the text: MAX_LISTING_CHARS and MAX_LISTING_WORDS of the listing
 * are read (matching/parse.ts), CANDIDATES perfumes are examined, and all
 * edit-distance work shares one CELL_BUDGET (catalog/search.ts).
 */
export function matchListing(catalog: MatcherCatalog, listing: { name: string; house: string }): MatchResult {
  const { why: _why, ...match } = explainMatch(catalog, listing);
  return match;
}

/** `matchListing` with why it decided so, as data (matching/reason.ts). */
export function explainMatch(catalog: MatcherCatalog, listing: { name: string; house: string }): ExplainedMatch {
  const decided = withWorkBudget(() => {
    simMemo = new Map();
    skeletonMemo = new Map();
    pairsLeft = PAIR_BUDGET;
    try {
      return matchWithin(catalog, listing);
    } finally {
      simMemo = null;
      skeletonMemo = null;
      pairsLeft = Number.POSITIVE_INFINITY;
    }
  });
  return { ...decided, reason: reasonText(decided.why) };
}

/** perfumes of the house the search offers for closer scoring */
export const CANDIDATES = 25;
/**
 * A listing with no house of ours is matched by its name alone only when the
 * name explains every word of it this well, names a perfume of at least
 * MIN_HOUSELESS_NAME letters ("Y" or "Oud" could be anyone's), and no perfume of
 * another line comes near; its confidence is then lowered by HOUSELESS_CONFIDENCE.
 */
const HOUSELESS_MIN_ALIGNMENT = 0.95;
const MIN_HOUSELESS_NAME = 4;
const HOUSELESS_CONFIDENCE = 0.9;
const HOUSELESS_QUERY_WORDS = 8;
const HOUSELESS_CANDIDATES = 12;
/** a sibling is a close version, not the product: its confidence is lowered by this factor */
const SIBLING_CONFIDENCE = 0.9;

const candidatesOf = (scored: readonly { p: MatchablePerfume; score: number }[]) =>
  scored.slice(0, 3).map((s) => ({ perfumeId: s.p.id, score: Math.round(s.score * 1000) / 1000 }));

function matchWithin(catalog: MatcherCatalog, listing: { name: string; house: string }): Decision {
  let parsed = parseListing(listing.name);
  // "ByVERSACE", "Bydior": "by" written onto a house of ours
  const glued = parsed.words.filter(
    (w) => w.length > 4 && w.startsWith('by') && catalog.index.houseKeys.has(w.slice(2)),
  );
  if (glued.length) {
    const rest = new Set(glued.map((w) => w.slice(2)));
    parsed = parseListing(
      listing.name.replace(/\bby(\p{L}+)/giu, (m, h: string) => (rest.has(normalizeText(h)) ? `by ${h}` : m)),
    );
  }
  if (parsed.notPerfume)
    return { perfumeId: null, confidence: 0, why: { kind: 'not_perfume', what: parsed.notPerfume } };
  const found = listingHouse(catalog.index, listing.house, parsed);
  // a field that names one of our houses is believed, even when the title names another:
  // dupe houses name their perfumes after the originals ("Sauvage Dior" by a dupe house)
  return matchOfHouse(catalog, listing, parsed, found.house, found.from);
}

function matchOfHouse(
  catalog: MatcherCatalog,
  listing: { name: string; house: string },
  parsedListing: ParsedListing,
  house: string | null,
  houseVia: 'house' | 'name' | null,
): Decision {
  let parsed = parsedListing;
  const { index } = catalog;
  // no house of ours in the house field or the title ("AS SHOWN", a shop's own name, an empty
  // field): the name alone may still say which perfume it is, if nothing else could be meant
  if (house === null && !saysNoHouse(listing.house)) {
    // a house field that names a house we lack: its perfumes are not ours, whatever their names
    return { perfumeId: null, confidence: 0, why: { kind: 'house_unknown', house: listing.house.slice(0, 80) } };
  }
  const houseless = house === null;
  const houseWords = house ? withTypos(parsed.words, houseWordsOf(index, house)) : new Set<string>();
  // without a house, the seller's description counts too, a quarter of a name word
  const informative = houseless ? informativeIn(parsed, 0.25) : informativeIn(parsed);
  let words = withoutHouse(parsed.words, houseWords, parsed.tail);
  if (!words.some((w) => !isSoftButGender(w)) && parsed.concentrationPhrases.length) {
    // nothing but a concentration word left: it is the name ("Acqua di Parma Colonia", "كولونيا")
    const named = parsed.concentrationPhrases.flat().filter((w) => !LINKING.has(w));
    parsed = { ...parsed, words: [...parsed.words, ...named], concentrationPhrases: [] };
    words = withoutHouse(parsed.words, houseWords, parsed.tail);
  }
  // nothing but the house and the seller's words: only a perfume named after its house is meant
  const houseNamed =
    words === parsed.words &&
    parsed.words.some((w) => houseWords.has(w)) &&
    parsed.words.some((w) => !houseWords.has(w));
  const meaningful = words.filter((w) => !isSoftButGender(w));
  if (meaningful.length === 0)
    return {
      perfumeId: null,
      confidence: 0,
      why: houseless ? { kind: 'house_unknown', house: listing.house.slice(0, 80) } : { kind: 'house_only' },
    };

  // across every house, the name part alone is searched: 8 words name any perfume
  const query = houseless
    ? words.filter((w) => !parsed.tail.has(w) && !sayNothing(w)).slice(0, HOUSELESS_QUERY_WORDS)
    : words;
  const hits = search(index, query.join(' '), {
    ...(house ? { house } : {}),
    limit: houseless ? HOUSELESS_CANDIDATES : CANDIDATES,
  });
  type Scored = { doc: number; p: MatchablePerfume; score: number; line: string };
  const scored: Scored[] = [];
  for (const h of hits) {
    const p = catalog.perfumes[h.doc] as MatchablePerfume;
    // without a house of the listing's, each candidate's own house words are optional in it
    const ownHouseWords = house ? houseWords : houseWordsOf(index, p.house);
    if (houseNamed && !searchTokens(p.name).every((w) => ownHouseWords.has(w) || isSoftButGender(w))) continue;
    let name = 0;
    const variants = nameVariants(p);
    // an alias may spell out the concentration ("Sauvage Eau de Toilette"): that says nothing of the name
    const allNames = variants.flatMap((v) => extractConcentration(v).tokens);
    // "Y Le Parfum" is the Parfum of Y: a parfum's own listing may say "parfum" among its words
    if (p.concentration === 'parfum') allNames.push('parfum');
    // the words of its own concentration in the seller's description ("… Cologne Spray Eau de")
    for (const w of CONCENTRATION_WORDS[p.concentration ?? ''] ?? []) if (parsed.tail.has(w)) allNames.push(w);
    // …and "Cologne Intense" is what Jo Malone calls its colognes (not a flanker of an EDC line)
    if (p.concentration === 'edc' && saysCologneIntense(parsed)) allNames.push('cologne', 'intense');
    for (const v of variants) {
      name = Math.max(name, alignment(parsed.words, v, ownHouseWords, informative, allNames, parsed.repeated));
      // a name holding words read as a concentration takes them back, and is the more specific reading
      // ("Dior Homme Cologne" listed as "… Eau de Cologne": the name takes "cologne" back)
      const back = parsed.concentrationPhrases
        .flat()
        .filter((w) => !LINKING.has(w) && v.some((x) => wordSim(w, x) >= 0.8));
      // …only for a name the listing says a word of beyond the house's: "Uomo Parfum" is not named by
      // "Roberto Cavalli … Eau de Parfum", where "Uomo" is not said (soft as a word of gender elsewhere)
      if (back.length && v.some((x) => !ownHouseWords.has(x) && parsed.words.includes(x))) {
        name = Math.max(
          name,
          Math.min(
            1,
            alignment(
              [...parsed.words, ...back],
              v,
              ownHouseWords,
              informative,
              [...allNames, ...back],
              parsed.repeated,
            ),
          ) + TAKE_BACK,
        );
      }
    }
    // of names that explain the listing equally, the one holding the seller's extra words
    // ("Man in Black" over "Black" for "Man in Black EDP") is the closer reading
    // …and the one repeating a word the seller repeats ("Noir de Noir" for "Tom Ford Noir de Noir")
    // ("Hugo Boss Hugo Man": the house's word said twice, once for the house and once for the name)
    let score = name + 0.0005 * (descriptorsIn(parsed.words, p) + repeatsSaid(parsed.repeated, `${p.house} ${p.name}`));
    if (parsed.gender && p.gender && p.gender !== 'unisex' && p.gender !== parsed.gender) score *= 0.6;
    scored.push({ doc: h.doc, p, score, line: `${p.house}|${normalizeText(p.name)}` });
  }
  if (scored.length === 0)
    return {
      perfumeId: null,
      confidence: 0,
      why: houseless
        ? { kind: 'house_unknown_no_name', house: listing.house.slice(0, 80) }
        : { kind: 'none_in_house', house: house as string },
    };

  // best line first; within a line, the concentration the listing names, else the line's original
  scored.sort((a, b) => b.score - a.score || (index.docRank[a.doc] ?? 0) - (index.docRank[b.doc] ?? 0));
  const top = scored[0] as Scored;
  // the whole line, whatever each record's aliases: "CDNIM Parfum" names the line, then its concentration
  const line = scored.filter((s) => s.line === top.line);
  let chosen = line[0] as Scored;
  let confidence = top.score;
  /** the concentration stated, which the line lacks: the perfume taken is its nearest sibling */
  let siblingOf: string | null = null;
  let sibling = false;
  // a concentration word the chosen line's own name holds is the name's ("Yara Elixir" is an EDP
  // named Elixir), not a concentration stated
  const topName = searchTokens(top.p.name);
  const inName = new Set(
    parsed.namePartConcentrations
      .filter((c) => NAMED_CONCENTRATION[c.slug]?.some((w) => topName.includes(w)))
      .map((c) => c.slug),
  );
  const concentrations = parsed.concentrations.filter((c) => !inName.has(c));
  const stated = concentrations[0] ?? null;
  if (stated) {
    // of several stated ("EDP … Parfum Spray"), the most credible one the line has
    const same = concentrations.map((c) => line.find((s) => s.p.concentration === c)).find((s) => s !== undefined);
    const wanted = SIBLING_STRENGTH[stated];
    const nearest =
      wanted === undefined
        ? undefined
        : line
            .filter((s) => SIBLING_STRENGTH[s.p.concentration ?? ''] !== undefined)
            .sort(
              (a, b) =>
                Math.abs((SIBLING_STRENGTH[a.p.concentration ?? ''] as number) - wanted) -
                Math.abs((SIBLING_STRENGTH[b.p.concentration ?? ''] as number) - wanted),
            )[0];
    // an elixir or an oil stated and not held is a composition of its own, whatever else is said
    const distinctMissing = concentrations.some(
      (c) => SIBLING_STRENGTH[c] === undefined && !line.some((s) => s.p.concentration === c),
    );
    if (same && !distinctMissing) chosen = same;
    else if (nearest && !distinctMissing) {
      chosen = nearest;
      sibling = true;
      confidence *= SIBLING_CONFIDENCE;
      siblingOf = stated;
    } else {
      return {
        perfumeId: null,
        confidence: 0,
        why: {
          kind: 'concentration_missing',
          perfume: ref(top.p),
          held: line.map((s) => s.p.concentration ?? null),
          stated,
        },
        candidates: candidatesOf(scored),
      };
    }
  }
  // a listing naming no concentration is not an elixir: a line held only as one (a composition of
  // its own, "9PM Elixir") lacks the perfume the listing names ("9PM 100ml")
  if (!stated && chosen.p.concentration === 'elixir') {
    return {
      perfumeId: null,
      confidence: 0,
      why: { kind: 'elixir_only', perfume: ref(chosen.p) },
      candidates: candidatesOf(scored),
    };
  }
  // a spray of a line the catalog holds only as an oil is another product (an EDP of it, say)
  if (!stated && chosen.p.concentration === 'oil' && parsed.noise.includes('spray')) {
    return {
      perfumeId: null,
      confidence: 0,
      why: { kind: 'oil_only', perfume: ref(chosen.p) },
      candidates: candidatesOf(scored),
    };
  }
  if (houseVia === 'name') confidence *= 0.97;
  if (houseless) {
    const rival = scored.find((s) => s.line !== top.line);
    const distinctive =
      searchTokens(top.p.name)
        .filter((w) => !isSoft(w))
        .join('').length >= MIN_HOUSELESS_NAME;
    if (top.score < HOUSELESS_MIN_ALIGNMENT || !distinctive || (rival && top.score - rival.score < AMBIGUITY_MARGIN)) {
      return {
        perfumeId: null,
        confidence: 0,
        why: { kind: 'name_alone_unsure', house: listing.house.slice(0, 80), closest: ref(top.p) },
        candidates: candidatesOf(scored),
      };
    }
    confidence *= HOUSELESS_CONFIDENCE;
  }

  confidence = Math.min(1, Math.round(confidence * 1000) / 1000);
  if (confidence < MATCH_THRESHOLD) {
    return {
      perfumeId: null,
      confidence,
      why: { kind: 'too_far', perfume: ref(chosen.p), listing: listing.name.slice(0, 80) },
      candidates: candidatesOf(scored),
    };
  }
  const rival = scored.find((s) => s.line !== top.line);
  if (rival && top.score - rival.score < AMBIGUITY_MARGIN && top.score < 1) {
    return {
      perfumeId: null,
      confidence,
      why: { kind: 'ambiguous', perfume: ref(top.p), rival: ref(rival.p) },
      candidates: candidatesOf(scored),
    };
  }
  return {
    perfumeId: chosen.p.id,
    confidence,
    sibling,
    candidates: candidatesOf(scored),
    why: {
      kind: 'matched',
      perfume: ref(chosen.p),
      houseInName: houseVia === 'name',
      nameAlone: houseless,
      lineOriginal: !stated,
      siblingOf,
    },
  };
}
