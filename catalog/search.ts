/**
 * In-memory search over the perfume catalog: names, Arabic names, aliases,
 * houses (names, Arabic names, aliases, abbreviations). Pure: built from plain
 * records, answers plain results; rebuilt whenever the catalog changes.
 *
 * Matching is per word. A query word matches an index word exactly, as a
 * prefix, within a small edit distance (1, or 2 for long words; found through
 * precomputed deletion neighbourhoods rather than by scanning), or — across
 * scripts — by its consonant skeleton (سوفاج ↔ sauvage). Each document keeps
 * the best match per query word, weighted by the word's rarity and the field
 * it was found in; concentration words in the query (EDP, او دو بارفان, extrait)
 * are taken out and used to prefer that concentration.
 */
import { normalizeText } from '../lib/text.ts';
import { CONCENTRATIONS } from '../vocabulary/index.ts';
import { skeleton, skeletons } from './phonetic.ts';

export interface SearchablePerfume {
  id: string;
  name: string;
  nameAr?: string | null;
  house: string;
  concentration?: string | null;
  year?: number | null;
  aliases?: readonly string[];
}

export interface SearchableHouse {
  name: string;
  nameAr?: string | null;
  aliases?: readonly string[];
  abbreviations?: readonly string[];
}

export interface SearchOptions {
  /** restrict to one house (any of its names or abbreviations) */
  house?: string;
  limit?: number;
}

export interface SearchHit {
  /** position in the records the index was built from */
  doc: number;
  id: string;
  /** 0–1: how well the query is explained by this perfume */
  score: number;
  /** share of the query's words (concentration words aside) found in this perfume's name, Arabic name or aliases */
  nameCoverage: number;
  /** the query named a concentration and it is this perfume's */
  concentrationMatch: boolean | null;
}

const FIELD_NAME = 1;
const FIELD_ALIAS = 0.9;
const FIELD_HOUSE = 0.45;

const SIM_EXACT = 1;
const SIM_PREFIX = 0.85;
const SIM_EDIT1 = 0.8;
const SIM_EDIT2 = 0.6;
const SIM_SKELETON = 0.6;
const MAX_PREFIX_EXPANSION = 64;
/** whole-name match (0.1) plus named concentration (0.05) */
const MAX_BOOST = 0.15;

interface Token {
  text: string;
  /** postings: document ids and field weights (best field per document) */
  docs: Int32Array;
  weights: Float32Array;
  idf: number;
  arabic: boolean;
}

export interface SearchIndex {
  readonly size: number;
  readonly ids: readonly string[];
  /** house key (folded) → canonical house name */
  readonly houseKeys: ReadonlyMap<string, string>;
  readonly docHouse: readonly string[];
  readonly docConcentration: readonly (string | null)[];
  /** earlier launch first, then id: the tie-break that puts a line's original first */
  readonly docRank: Int32Array;
  /** words in each perfume's name, Latin and Arabic, to tell a whole-name match from a partial one */
  readonly nameLength: Uint8Array;
  readonly nameLengthAr: Uint8Array;
  readonly byHouse: ReadonlyMap<string, readonly number[]>;
  readonly tokens: ReadonlyMap<string, Token>;
  readonly sortedTokens: readonly string[];
  readonly deletes: ReadonlyMap<string, readonly string[]>;
  readonly skeletons: ReadonlyMap<string, readonly string[]>;
  readonly docIndex: ReadonlyMap<string, number>;
}

/**
 * English words of their own after a lone "l" or "d" ("D and G", "L in white box"): no article
 * is elided onto them.
 */
const NOT_ELIDED = new Set(['and', 'an', 'as', 'at', 'in', 'is', 'it', 'of', 'on']);

/**
 * Two characters "A&B" (D&G, V&R) become one token "ab" before folding; other text is folded as
 * usual. A French article elided onto a word, written without its apostrophe or with a space
 * after it ("L Interdit", "Terre d Hermes", "L' Homme"), is one word, as "L'Interdit" folds:
 * a lone "l" or "d" before a word of two letters or more that starts with a vowel or h, as
 * French elides. Before anything else it stays a word of its own ("D by Diesel", "L.12.12",
 * "L.A.M.B.").
 */
export function searchTokens(text: string): string[] {
  const joined = text.replace(/\b([A-Za-z])\s*&\s*([A-Za-z])\b/g, '$1$2');
  const n = normalizeText(joined);
  if (!n) return [];
  const words = n.split(' ');
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    const next = words[i + 1] ?? '';
    if ((w === 'l' || w === 'd') && /^[aeiouh][a-z]/.test(next) && !NOT_ELIDED.has(next)) {
      out.push(w + next);
      i++;
    } else out.push(w);
  }
  return out;
}

function deletions(word: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < word.length; i++) out.push(word.slice(0, i) + word.slice(i + 1));
  return out;
}

/**
 * The work searches and matches do, counted so that a test can hold it under
 * its caps whatever the text (tests/matcher-work.test.ts); never reset here.
 */
export const work = { cells: 0, variants: 0, postings: 0, skeletons: 0, pairs: 0, houseRuns: 0 };
/**
 * Edit-distance cells one search or one listing match may spend. Past it,
 * fuzzy comparison gives up (the pair counts as different) and exact words
 * still match: a name of 300 letters run together costs at most this much.
 */
export const CELL_BUDGET = 200_000;
/** Query words longer than this are matched exactly only (no index word is so long). */
export const MAX_FUZZY_WORD = 24;
/** Words of a query considered; the rest are ignored. */
export const MAX_QUERY_WORDS = 24;

let cellsLeft = Number.POSITIVE_INFINITY;

/** Runs `fn` with a fresh CELL_BUDGET, unless already inside one (the caps do not add up). */
export function withWorkBudget<T>(fn: () => T): T {
  if (cellsLeft !== Number.POSITIVE_INFINITY) return fn();
  cellsLeft = CELL_BUDGET;
  try {
    return fn();
  } finally {
    cellsLeft = Number.POSITIVE_INFINITY;
  }
}

/** Optimal string alignment distance with an early exit above max. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const cells = a.length * b.length;
  if (cells > cellsLeft) return max + 1;
  cellsLeft -= cells;
  work.cells += cells;
  const n = b.length;
  let prev2 = new Array<number>(n + 1).fill(0);
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  let cur = new Array<number>(n + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = cur[0];
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      // a transposition; on the first row or column one side is out of range (undefined), never equal
      if (a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, (prev2[j - 2] as number) + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[n] as number;
}

const isArabic = (s: string) => /[\u0600-\u06FF]/.test(s);

/** Words that say who a perfume is for, not which one it is ("Hawas for Him"): left out of a name's length. */
const GENDER_WORDS = new Set(
  [
    'for',
    'him',
    'her',
    'pour',
    'homme',
    'femme',
    'men',
    'women',
    'man',
    'woman',
    'lui',
    'elle',
    'للرجال',
    'للنساء',
    'رجالي',
    'نسائي',
  ].map((w) => normalizeText(w)),
);
const nameWordCount = (name: string) => Math.max(1, searchTokens(name).filter((t) => !GENDER_WORDS.has(t)).length);
const maxEdits = (len: number) => (len >= 8 ? 2 : len >= 4 ? 1 : 0);

/** Concentration phrases, longest first, as folded token sequences. */
const CONCENTRATION_PHRASES: { tokens: string[]; slug: string }[] = CONCENTRATIONS.flatMap((c) =>
  [c.slug, c.en, c.ar, ...(c.aliases ?? [])].map((p) => ({ tokens: searchTokens(p), slug: c.slug })),
)
  .concat(
    // spellings shop feeds use that are not vocabulary aliases ("eau de parfum", او دو بارفان and their
    // EDT forms are the vocabulary's own)
    [
      ['او', 'دي', 'بارفان'],
      ['او', 'دو', 'برفان'],
      ['ادو', 'بارفان'],
      ['او', 'دي', 'تواليت'],
      ['ادو', 'تواليت'],
    ].map((tokens) => ({ tokens, slug: tokens.includes('تواليت') || tokens.includes('toilette') ? 'edt' : 'edp' })),
  )
  .filter((p) => p.tokens.length > 0)
  .sort((a, b) => b.tokens.length - a.tokens.length);

/**
 * Takes the concentration out of a query's tokens: the last concentration
 * phrase is the one meant ("Le Beau Le Parfum EDP" is an EDP); earlier ones
 * stay as words of the name. Returns the remaining tokens, the concentration
 * named (if any) and the words taken out, which may still be part of a name
 * ("Le Male Le Parfum").
 */
export function extractConcentration(tokens: readonly string[]): {
  tokens: string[];
  concentration: string | null;
  removed: string[];
} {
  let last: { start: number; length: number; slug: string } | null = null;
  for (let i = 0; i < tokens.length; ) {
    const hit = CONCENTRATION_PHRASES.find((p) => p.tokens.every((t, k) => tokens[i + k] === t));
    if (hit) {
      last = { start: i, length: hit.tokens.length, slug: hit.slug };
      i += hit.tokens.length;
    } else i++;
  }
  if (!last) return { tokens: [...tokens], concentration: null, removed: [] };
  return {
    tokens: [...tokens.slice(0, last.start), ...tokens.slice(last.start + last.length)],
    concentration: last.slug,
    removed: tokens.slice(last.start, last.start + last.length),
  };
}

export function buildSearchIndex(
  perfumes: readonly SearchablePerfume[],
  houses: readonly SearchableHouse[],
): SearchIndex {
  const houseKeys = new Map<string, string>();
  const houseTokens = new Map<string, string[]>();
  const canonicalHouse = new Map<string, string>();
  for (const h of houses) {
    const names = [h.name, h.nameAr ?? '', ...(h.aliases ?? []), ...(h.abbreviations ?? [])].filter(Boolean);
    const toks = new Set<string>();
    for (const n of names) {
      const t = searchTokens(n);
      houseKeys.set(t.join(' '), h.name);
      for (const x of t) toks.add(x);
    }
    houseTokens.set(h.name, [...toks]);
    canonicalHouse.set(normalizeText(h.name), h.name);
  }

  // token → doc → best field weight
  const postings = new Map<string, Map<number, number>>();
  const add = (token: string, doc: number, weight: number) => {
    let m = postings.get(token);
    if (!m) {
      m = new Map();
      postings.set(token, m);
    }
    if ((m.get(doc) ?? 0) < weight) m.set(doc, weight);
  };
  const docHouse: string[] = [];
  const docConcentration: (string | null)[] = [];
  const byHouse = new Map<string, number[]>();
  const docIndex = new Map<string, number>();
  const nameLength = new Uint8Array(perfumes.length);
  const nameLengthAr = new Uint8Array(perfumes.length);
  perfumes.forEach((p, doc) => {
    docIndex.set(p.id, doc);
    nameLength[doc] = Math.min(255, nameWordCount(p.name));
    nameLengthAr[doc] = Math.min(255, p.nameAr ? nameWordCount(p.nameAr) : (nameLength[doc] as number));
    for (const t of searchTokens(p.name)) add(t, doc, FIELD_NAME);
    if (p.nameAr) for (const t of searchTokens(p.nameAr)) add(t, doc, FIELD_NAME);
    for (const a of p.aliases ?? []) for (const t of searchTokens(a)) add(t, doc, FIELD_ALIAS);
    const house = canonicalHouse.get(normalizeText(p.house)) ?? p.house;
    const ht = houseTokens.get(house) ?? searchTokens(p.house);
    for (const t of ht) add(t, doc, FIELD_HOUSE);
    docHouse.push(house);
    docConcentration.push(p.concentration ?? null);
    let list = byHouse.get(house);
    if (!list) {
      list = [];
      byHouse.set(house, list);
    }
    list.push(doc);
  });

  const n = perfumes.length;
  const tokens = new Map<string, Token>();
  const deletes = new Map<string, string[]>();
  const skeletons = new Map<string, string[]>();
  const push = (map: Map<string, string[]>, key: string, value: string) => {
    const l = map.get(key);
    if (l) l.push(value);
    else map.set(key, [value]);
  };
  for (const [text, m] of postings) {
    const docs = Int32Array.from(m.keys());
    const weights = Float32Array.from(m.values());
    tokens.set(text, { text, docs, weights, idf: Math.log(1 + n / docs.length), arabic: isArabic(text) });
    if (text.length >= 4) for (const d of deletions(text)) push(deletes, d, text);
    const sk = skeleton(text);
    if (sk.length >= 3) push(skeletons, sk, text);
  }

  const order = perfumes
    .map((p, doc) => ({ doc, year: p.year ?? 9999, id: p.id }))
    .sort((a, b) => a.year - b.year || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const docRank = new Int32Array(n);
  order.forEach((o, rank) => {
    docRank[o.doc] = rank;
  });

  return {
    size: n,
    ids: perfumes.map((p) => p.id),
    houseKeys,
    docHouse,
    docConcentration,
    docRank,
    nameLength,
    nameLengthAr,
    byHouse,
    tokens,
    sortedTokens: [...tokens.keys()].sort(),
    deletes,
    skeletons,
    docIndex,
  };
}

/** The canonical house for any of its names, Arabic name, aliases or abbreviations (typos allowed). */
export function resolveHouse(index: SearchIndex, text: string): string | null {
  const key = searchTokens(text).join(' ');
  if (!key) return null;
  const exact = index.houseKeys.get(key);
  if (exact) return exact;
  let best: string | null = null;
  let bestD = Number.POSITIVE_INFINITY;
  const max = maxEdits(key.length);
  if (max === 0) return null;
  for (const [k, house] of index.houseKeys) {
    const d = editDistance(key, k, max);
    if (d <= max && d < bestD) {
      bestD = d;
      best = house;
    }
  }
  return best;
}

/** Index words a query word may stand for, each with a similarity 0–1. */
function expand(index: SearchIndex, q: string, allowPrefix: boolean, allowShortPrefix = false): Map<string, number> {
  const out = new Map<string, number>();
  const put = (t: string, s: number) => {
    if ((out.get(t) ?? 0) < s) out.set(t, s);
  };
  if (index.tokens.has(q)) put(q, SIM_EXACT);

  if (allowPrefix && (q.length >= 2 || allowShortPrefix)) {
    const sorted = index.sortedTokens;
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((sorted[mid] as string) < q) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo, k = 0; i < sorted.length && k < MAX_PREFIX_EXPANSION; i++, k++) {
      const t = sorted[i] as string;
      if (!t.startsWith(q)) break;
      // q itself is among them, already at SIM_EXACT: put keeps the best
      put(t, SIM_PREFIX * Math.sqrt(q.length / t.length));
    }
  }

  const max = q.length > MAX_FUZZY_WORD ? 0 : maxEdits(q.length);
  if (max > 0) {
    const variants = new Set<string>([q, ...deletions(q)]);
    if (max >= 2) for (const d of deletions(q)) for (const dd of deletions(d)) variants.add(dd);
    work.variants += variants.size;
    for (const v of variants) {
      const cands =
        v === q ? (index.deletes.get(q) ?? []) : [...(index.tokens.has(v) ? [v] : []), ...(index.deletes.get(v) ?? [])];
      for (const t of cands) {
        if (out.get(t) === SIM_EXACT) continue;
        const d = editDistance(q, t, max);
        if (d === 1) put(t, SIM_EDIT1);
        else if (d === 2 && max >= 2) put(t, SIM_EDIT2);
      }
    }
  }

  const qa = isArabic(q);
  for (const sk of skeletons(q)) {
    if (sk.length < 3) continue;
    for (const t of index.skeletons.get(sk) ?? []) {
      if (isArabic(t) !== qa) put(t, SIM_SKELETON);
    }
  }
  return out;
}

interface Scratch {
  score: Float32Array;
  best: Float32Array;
  bestName: Float32Array;
  nameHits: Float32Array;
  nameWords: Uint8Array;
  touched: Int32Array;
  seen: Uint8Array;
}
const scratchFor = new WeakMap<SearchIndex, Scratch>();
function scratch(index: SearchIndex): Scratch {
  let s = scratchFor.get(index);
  if (!s) {
    const n = index.size;
    s = {
      score: new Float32Array(n),
      best: new Float32Array(n),
      bestName: new Float32Array(n),
      nameHits: new Float32Array(n),
      nameWords: new Uint8Array(n),
      touched: new Int32Array(n),
      seen: new Uint8Array(n),
    };
    scratchFor.set(index, s);
  }
  return s;
}

export function search(index: SearchIndex, query: string, opts: SearchOptions = {}): SearchHit[] {
  return withWorkBudget(() => searchWithin(index, query, opts));
}

function searchWithin(index: SearchIndex, query: string, opts: SearchOptions): SearchHit[] {
  const limit = Math.max(1, opts.limit ?? 10);
  const house = opts.house ? resolveHouse(index, opts.house) : null;
  if (opts.house && !house) return [];
  const extracted = extractConcentration(searchTokens(query));
  const { concentration, removed } = extracted;
  const words = extracted.tokens.slice(0, MAX_QUERY_WORDS);

  if (words.length === 0) {
    // nothing but a house (and maybe a concentration): that house's perfumes, originals first
    if (!house) return [];
    const docs = [...(index.byHouse.get(house) ?? [])].sort(
      (a, b) => (index.docRank[a] ?? 0) - (index.docRank[b] ?? 0),
    );
    const chosen = concentration ? docs.filter((d) => index.docConcentration[d] === concentration) : docs;
    return chosen.slice(0, limit).map((doc) => ({
      doc,
      id: index.ids[doc] as string,
      score: 1,
      nameCoverage: 0,
      concentrationMatch: concentration ? true : null,
    }));
  }

  const s = scratch(index);
  let touchedCount = 0;
  let maxPossible = 0;
  const wordCount = words.length;
  words.forEach((q, wi) => {
    const isLast = wi === wordCount - 1;
    const cands = expand(index, q, isLast || q.length >= 3, isLast && wordCount > 1);
    if (cands.size === 0) {
      // an unknown word still counts against coverage
      maxPossible += Math.log(1 + index.size);
      return;
    }
    // the query word's rarity, not each candidate's: a rare near-miss ("back") must not outweigh
    // the common exact word ("black"); a word with no exact match takes its rarest candidate's
    let wordIdf = index.tokens.get(q)?.idf ?? 0;
    if (!wordIdf) for (const t of cands.keys()) wordIdf = Math.max(wordIdf, (index.tokens.get(t) as Token).idf);
    const wordTouched: number[] = [];
    for (const [t, sim] of cands) {
      const tok = index.tokens.get(t) as Token;
      const base = wordIdf * sim;
      const { docs, weights } = tok;
      work.postings += docs.length;
      for (let i = 0; i < docs.length; i++) {
        const d = docs[i] as number;
        if (house && index.docHouse[d] !== house) continue;
        const w = weights[i] as number;
        const v = base * w;
        if (v > (s.best[d] as number)) {
          if (s.best[d] === 0) wordTouched.push(d);
          s.best[d] = v;
        }
        if (w >= FIELD_ALIAS && sim > (s.bestName[d] as number)) s.bestName[d] = sim;
      }
    }
    maxPossible += wordIdf;
    for (const d of wordTouched) {
      if (!s.seen[d]) {
        s.seen[d] = 1;
        s.touched[touchedCount++] = d;
      }
      s.score[d] = (s.score[d] as number) + (s.best[d] as number);
      s.nameHits[d] = (s.nameHits[d] as number) + (s.bestName[d] as number);
      if ((s.bestName[d] as number) > 0) s.nameWords[d] = (s.nameWords[d] as number) + 1;
      s.best[d] = 0;
      s.bestName[d] = 0;
    }
  });

  // words taken out as a concentration may also be a name's ("Le Male Le Parfum"): a perfume
  // whose name holds the whole phrase gains, one without it loses nothing
  if (removed.length > 0) {
    const phraseTokens = removed.map((w) => index.tokens.get(w));
    if (phraseTokens.every((t) => t !== undefined)) {
      const counts = new Map<number, number>();
      for (const tok of phraseTokens as Token[]) {
        for (let i = 0; i < tok.docs.length; i++) {
          const d = tok.docs[i] as number;
          if (s.seen[d] && (tok.weights[i] as number) >= FIELD_ALIAS) counts.set(d, (counts.get(d) ?? 0) + 1);
        }
      }
      const bonus = Math.max(...(phraseTokens as Token[]).map((t) => t.idf)) * 0.5;
      for (const [d, c] of counts) {
        if (c < removed.length) continue;
        s.score[d] = (s.score[d] as number) + bonus;
        s.nameWords[d] = (s.nameWords[d] as number) + removed.length;
      }
    }
  }
  const arabicQuery = words.some(isArabic);

  // top-k by a small sorted buffer: no full sort of every candidate
  const top: SearchHit[] = [];
  const rankOf = (h: SearchHit) => index.docRank[h.doc] ?? 0;
  const better = (a: SearchHit, b: SearchHit) => a.score > b.score || (a.score === b.score && rankOf(a) < rankOf(b));
  for (let i = 0; i < touchedCount; i++) {
    const d = s.touched[i] as number;
    // every word read adds to maxPossible (its weight, or an unknown word's): it is above 0 here
    let score = (s.score[d] as number) / maxPossible;
    const docConc = index.docConcentration[d] ?? null;
    // a query that is the whole name beats a longer name that contains it (Goddess vs Alien Goddess)
    const nameLen = (arabicQuery ? index.nameLengthAr[d] : index.nameLength[d]) || 1;
    score += 0.1 * Math.min(1, (s.nameWords[d] as number) / nameLen);
    let concentrationMatch: boolean | null = null;
    if (concentration) {
      concentrationMatch = docConc === concentration;
      score += concentrationMatch ? 0.05 : -0.05;
    }
    const hit: SearchHit = {
      doc: d,
      id: index.ids[d] as string,
      // boosts can add up to MAX_BOOST above a full match: scale rather than clamp, so they still order results
      score: Math.max(0, Math.min(1, score / (1 + MAX_BOOST))),
      nameCoverage: (s.nameHits[d] as number) / wordCount,
      concentrationMatch,
    };
    s.score[d] = 0;
    s.nameHits[d] = 0;
    s.nameWords[d] = 0;
    s.seen[d] = 0;
    if (top.length < limit || better(hit, top[top.length - 1] as SearchHit)) {
      let j = Math.min(top.length, limit - 1);
      while (j > 0 && better(hit, top[j - 1] as SearchHit)) j--;
      top.splice(j, 0, hit);
      if (top.length > limit) top.pop();
    }
  }
  return top;
}
