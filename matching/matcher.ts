/**
 * Matches a shop's product listing (name and house, as shop feeds write them)
 * to a perfume of our catalog. Pure: the catalog comes in as data, a match
 * (or a reasoned refusal) comes out.
 *
 * Precision over recall: a wrong match recommends the wrong scent, so when
 * the listing is ambiguous, names a flanker we do not have, or is not a
 * perfume at all, the answer is "unmatched" with the reason.
 */

import { skeleton } from '../catalog/phonetic.ts';
import {
  editDistance,
  extractConcentration,
  resolveHouse,
  type SearchIndex,
  search,
  searchTokens,
} from '../catalog/search.ts';
import { foldDigits, normalizeText } from '../lib/text.ts';

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
}

export const MATCH_THRESHOLD = 0.8;
/** a rival of another line this close to the best makes the listing ambiguous */
const AMBIGUITY_MARGIN = 0.04;

/** Products that carry a perfume's name but are not the perfume. */
const NOT_PERFUME: [RegExp, string][] = [
  [/\b(deodorant|deo|antiperspirant|stick)\b|مزيل|مضاد للتعرق/, 'deodorant'],
  [/\b(body lotion|lotion|body milk|cream|creme|balm)\b|لوشن|كريم|بلسم/, 'body care'],
  [/\b(shower gel|bath|gel douche|soap)\b|شاور|صابون|جل استحمام/, 'bath product'],
  [/\b(after ?shave)\b|بعد الحلاقة|افتر شيف/, 'aftershave'],
  [/\b(hair mist|hair perfume|body mist|body spray)\b|معطر شعر|عطر الشعر|معطر الجسم|بخاخ الجسم/, 'hair or body mist'],
  [/\b(candle|diffuser|reed|room spray|home fragrance)\b|شمعة|شموع|معطر جو|فواحة/, 'home fragrance'],
  [/\b(gift card|gift wrap|wrapping|bag|pouch|case|atomizer|funnel)\b|تغليف|كيس|بطاقة هدية/, 'accessory'],
  [/\b(bakhoor|bukhoor|incense chips|mabkhara)\b|بخور|مبخرة|معمول/, 'incense product'],
];

/** Words shop feeds add that say nothing about which perfume it is. */
const NOISE = new Set(
  [
    'perfume',
    'perfumes',
    'fragrance',
    'spray',
    'vaporisateur',
    'vapo',
    'natural',
    'new',
    'original',
    'authentic',
    'genuine',
    'sealed',
    'box',
    'boxed',
    'unboxed',
    'tester',
    'testers',
    'sample',
    'decant',
    'travel',
    'size',
    'mini',
    'miniature',
    'by',
    'from',
    'de',
    'ml',
    'oz',
    'fl',
    'floz',
    'edition?',
    'unisex',
    'refillable',
    'refill',
    'عطر',
    'عطور',
    'بخاخ',
    'اصلي',
    'تستر',
    'تيستر',
    'جديد',
    'من',
    'مل',
    'ملي',
    'اونصه',
    'حجم',
    'للجنسين',
    'ماء',
    'عينه',
  ].map((w) => normalizeText(w)),
);
/** kept out of the name, but they say who the perfume is for */
const GENDER_WORDS: Partial<Record<string, 'men' | 'women'>> = Object.fromEntries(
  [
    ...['him', 'homme', 'men', 'man', 'male', 'masculine', 'lui', 'uomo', 'للرجال', 'رجالي', 'رجال'].map((w) => [
      w,
      'men',
    ]),
    ...['her', 'femme', 'women', 'woman', 'female', 'feminine', 'elle', 'donna', 'للنساء', 'نسائي', 'نساء'].map((w) => [
      w,
      'women',
    ]),
  ].map(([w, g]) => [normalizeText(w as string), g as 'men' | 'women']),
);
const SOFT = new Set(['for', 'pour', 'the', 'le', 'la', 'l', 'and', 'di', 'du', 'ال', ...Object.keys(GENDER_WORDS)]);

/** Concentrations shops mix up on labels; the rest (parfum, extrait, elixir, oil) are distinct products. */
const LABEL_SLIPS = new Set(['edt', 'edp', 'edc']);

const SIZE = /(\d+(?:[.,]\d+)?)\s*(ml|mls|milliliters?|millilitres?|oz|fl\.?\s*oz|مل|ملي|مللي|ملل)(?=\s|$|[^\p{L}])/giu;

export interface ParsedListing {
  /** the words that name the perfume */
  words: string[];
  concentration: string | null;
  /** the words read as the concentration: some names contain them ("Dior Homme Cologne") */
  concentrationWords: string[];
  gender: 'men' | 'women' | null;
  notPerfume: string | null;
}

/** Cleans a listing: sizes, noise, concentration and gender words out; what is left names the perfume. */
export function parseListing(raw: string): ParsedListing {
  // Arabic-Indic digits first, so "١٠٠ مل" is a size like "100 ml"
  const name = foldDigits(raw).replace(SIZE, ' ');
  const folded = normalizeText(name);
  const lower = ` ${folded} `;
  let notPerfume: string | null = null;
  for (const [re, what] of NOT_PERFUME) {
    if (re.test(lower)) {
      notPerfume = what;
      break;
    }
  }
  const tokens = searchTokens(name).filter((t) => !/^\d+(ml|oz)$/.test(t));
  const { tokens: rest, concentration, removed } = extractConcentration(tokens);
  let gender: 'men' | 'women' | null = null;
  const words: string[] = [];
  for (const t of rest) {
    if (NOISE.has(t)) continue;
    const g = GENDER_WORDS[t];
    if (g) gender = gender && gender !== g ? null : g;
    words.push(t);
  }
  return { words, concentration, concentrationWords: removed, gender, notPerfume };
}

function wordSim(a: string, b: string): number {
  if (a === b) return 1;
  const ga = GENDER_WORDS[a];
  if (ga && ga === GENDER_WORDS[b]) return 1;
  if (/^\d+$/.test(a) || /^\d+$/.test(b)) return 0;
  const arA = /[\u0600-\u06FF]/.test(a);
  const arB = /[\u0600-\u06FF]/.test(b);
  if (arA !== arB) {
    const sa = skeleton(a);
    return sa.length >= 3 && sa === skeleton(b) ? 0.8 : 0;
  }
  const len = Math.min(a.length, b.length);
  if (len >= 4) {
    const max = len >= 8 ? 2 : 1;
    const d = editDistance(a, b, max);
    if (d > max) return 0;
    if (d === 1) return 0.85;
    if (d === 2) return 0.7;
  }
  return 0;
}

/**
 * Share of `from`'s meaningful words found in `to` (best similarity per word),
 * or null when `from` has no meaningful word. Soft words (for, pour, gender
 * words, de…) never count for or against, except that each one missing costs
 * 2%: "Light Blue" beats "Light Blue Pour Homme" for a listing of "Light Blue".
 */
function covered(from: readonly string[], to: readonly string[], soft: (w: string) => boolean): number | null {
  let total = 0;
  let weight = 0;
  let softMissing = 0;
  for (const w of from) {
    let best = 0;
    for (const v of to) {
      const s = wordSim(w, v);
      if (s > best) best = s;
    }
    if (soft(w)) {
      if (best === 0) softMissing++;
      continue;
    }
    total += best;
    weight += 1;
  }
  return weight === 0 ? null : (total / weight) * 0.98 ** softMissing;
}

const isSoft = (w: string) => SOFT.has(w) || NOISE.has(w);
/** when a listing says nothing but its house and a gender ("Valentino Donna"), the gender words name the perfume */
const isSoftButGender = (w: string) => isSoft(w) && GENDER_WORDS[w] === undefined;

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
): number {
  const onlyHouse = listing.every((w) => isSoft(w) || houseWords.has(w));
  const soft = onlyHouse ? isSoftButGender : isSoft;
  const nameSide = covered(name, listing, soft);
  const listingSide = covered(listing, name, (w) => soft(w) || houseWords.has(w)) ?? covered(listing, name, soft);
  if (nameSide === null || listingSide === null) return 0;
  return Math.min(nameSide, listingSide);
}

export interface MatcherCatalog {
  index: SearchIndex;
  perfumes: readonly MatchablePerfume[];
}

const nameVariants = (p: MatchablePerfume): string[][] =>
  [p.name, p.nameAr ?? '', ...(p.aliases ?? [])].filter(Boolean).map((n) => searchTokens(n));

/** Drops the house's own words from a listing ("Dior Sauvage" → "Sauvage"). */
function withoutHouse(words: string[], houseWords: Set<string>): string[] {
  const out = words.filter((w) => !houseWords.has(w));
  return out.length ? out : words;
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

export function matchListing(catalog: MatcherCatalog, listing: { name: string; house: string }): MatchResult {
  const parsed = parseListing(listing.name);
  if (parsed.notPerfume) return { perfumeId: null, confidence: 0, reason: `not a perfume (${parsed.notPerfume})` };

  const { index } = catalog;
  let house = resolveHouse(index, listing.house);
  let houseVia = 'house';
  if (!house) {
    house = houseInName(index, parsed.words);
    houseVia = 'name';
  }
  if (!house) {
    return { perfumeId: null, confidence: 0, reason: `house "${listing.house.slice(0, 80)}" is not in our catalog` };
  }
  const houseWords = houseWordsOf(index, house);
  const words = withoutHouse(parsed.words, houseWords);
  const meaningful = words.filter((w) => !isSoftButGender(w));
  if (meaningful.length === 0)
    return { perfumeId: null, confidence: 0, reason: 'the listing names no perfume, only a house' };

  const hits = search(index, words.join(' '), { house, limit: 25 });
  type Scored = { doc: number; p: MatchablePerfume; score: number; line: string };
  const scored: Scored[] = [];
  for (const h of hits) {
    const p = catalog.perfumes[h.doc] as MatchablePerfume;
    let name = 0;
    const cw = parsed.concentrationWords;
    for (const v of nameVariants(p)) {
      name = Math.max(name, alignment(parsed.words, v, houseWords));
      // a name holding the concentration words takes them back, and is the more specific reading
      if (cw.length && cw.every((w) => v.includes(w))) {
        name = Math.max(name, Math.min(1, alignment([...parsed.words, ...cw], v, houseWords)) + 0.001);
      }
    }
    let score = name;
    if (parsed.gender && p.gender && p.gender !== 'unisex' && p.gender !== parsed.gender) score *= 0.6;
    scored.push({ doc: h.doc, p, score, line: normalizeText(p.name) });
  }
  if (scored.length === 0)
    return { perfumeId: null, confidence: 0, reason: `no perfume of ${house} is named like this` };

  // best line first; within a line, the concentration the listing names, else the line's original
  scored.sort((a, b) => b.score - a.score || (index.docRank[a.doc] ?? 0) - (index.docRank[b.doc] ?? 0));
  const top = scored[0] as Scored;
  // the whole line, whatever each record's aliases: "CDNIM Parfum" names the line, then its concentration
  const line = scored.filter((s) => s.line === top.line);
  let chosen = line[0] as Scored;
  let confidence = top.score;
  let concNote = '';
  if (parsed.concentration) {
    const same = line.find((s) => s.p.concentration === parsed.concentration);
    if (same) chosen = same;
    else if (
      line.length > 1 ||
      !LABEL_SLIPS.has(parsed.concentration) ||
      !LABEL_SLIPS.has(chosen.p.concentration ?? '')
    ) {
      // a Parfum, Extrait or Elixir the catalog lacks is another product, not a label slip
      return {
        perfumeId: null,
        confidence: 0,
        reason: `${top.p.name} by ${house} exists as ${line.map((s) => s.p.concentration).join(', ')}, not ${parsed.concentration}`,
      };
    } else {
      confidence *= 0.9;
      concNote = `; listed as ${parsed.concentration}, the catalog has only ${chosen.p.concentration}`;
    }
  }
  if (houseVia === 'name') confidence *= 0.97;

  confidence = Math.min(1, Math.round(confidence * 1000) / 1000);
  if (confidence < MATCH_THRESHOLD) {
    return {
      perfumeId: null,
      confidence,
      reason: `closest is ${chosen.p.name} (${chosen.p.concentration ?? '?'}) by ${house}, too far from "${listing.name.slice(0, 80)}"`,
    };
  }
  const rival = scored.find((s) => s.line !== top.line);
  if (rival && top.score - rival.score < AMBIGUITY_MARGIN && top.score < 1) {
    return { perfumeId: null, confidence, reason: `ambiguous between ${top.p.name} and ${rival.p.name}` };
  }
  return {
    perfumeId: chosen.p.id,
    confidence,
    reason:
      `${chosen.p.name} ${chosen.p.concentration ?? ''} by ${house}${houseVia === 'name' ? ' (house found in the name)' : ''}${parsed.concentration ? '' : ', no concentration listed: the line original'}${concNote}`
        .replace(/\s+/g, ' ')
        .trim(),
  };
}
