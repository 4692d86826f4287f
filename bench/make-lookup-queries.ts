/**
 * Writes tests/fixtures/lookup-queries.json: the query set of the lookup
 * benchmark and of the relevance floor test.
 *   npx tsx bench/make-lookup-queries.ts
 *
 * One generated query per perfume line (a house's perfumes of one name), the
 * kind cycling line by line — typo, arabic, arabic-variant, abbreviation,
 * partial, concentration — each made by a fixed rule from the catalog, plus
 * the hand-written queries of tests/fixtures/lookup-queries-manual.json. A
 * query that does not name a concentration expects any perfume of the line.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadBundledCatalog } from '../catalog/bundled.ts';
import type { PerfumeRecord } from '../catalog/schema.ts';
import { normalizeText } from '../lib/text.ts';
import type { LookupQuery } from './lookup.ts';

const { houses, perfumes } = loadBundledCatalog();
const houseInfo = new Map(houses.map((h) => [h.name, h]));
const lines = new Map<string, PerfumeRecord[]>();
for (const p of [...perfumes].sort((a, b) => (a.id < b.id ? -1 : 1))) {
  const key = `${p.house}|${normalizeText(p.name)}`;
  lines.set(key, [...(lines.get(key) ?? []), p]);
}

const VOWELS = 'aeiou';
function typo(word: string, n: number): string {
  switch (n % 4) {
    case 0: // swap two neighbours
      return word[0] + (word[2] ?? '') + (word[1] ?? '') + word.slice(3);
    case 1: // drop a middle letter
      return word.slice(0, word.length >> 1) + word.slice((word.length >> 1) + 1);
    case 2: // double a letter
      return word.slice(0, 2) + word[1] + word.slice(2);
    default: {
      // change a vowel
      const i = [...word].findIndex((c, k) => k > 0 && VOWELS.includes(c));
      if (i < 0) return word.slice(0, -1);
      const v = word[i] as string;
      return word.slice(0, i) + VOWELS[(VOWELS.indexOf(v) + 1) % 5] + word.slice(i + 1);
    }
  }
}

function arabicVariant(s: string): string {
  // spellings shops use: ه for ة, bare alef for hamza forms, ى at a word's end
  return s
    .replace(/ة/g, 'ه')
    .replace(/[أإآ]/g, 'ا')
    .replace(/ي(\s|$)/g, 'ى$1');
}

const CONC_WORDS: Record<string, string[]> = {
  edt: ['EDT', 'Eau de Toilette', 'او دو تواليت'],
  edp: ['EDP', 'Eau de Parfum', 'او دو بارفان'],
  parfum: ['Parfum', 'parfum'],
  extrait: ['Extrait de Parfum', 'extrait'],
  elixir: ['Elixir', 'elixir'],
  oil: ['oil', 'دهن'],
  edc: ['Cologne', 'EDC'],
};

const KINDS = ['typo', 'arabic', 'arabic-variant', 'abbreviation', 'partial', 'concentration'] as const;
const out: LookupQuery[] = [];
let n = 0;
for (const line of lines.values()) {
  const first = line[0] as PerfumeRecord;
  const ids = line.map((p) => p.id);
  const house = houseInfo.get(first.house);
  const kind = KINDS[n % KINDS.length] as (typeof KINDS)[number];
  n++;
  let query: string | null = null;
  let expected = ids;
  switch (kind) {
    case 'typo': {
      const words = first.name.split(' ');
      const longest = words.reduce((a, b) => (b.length > a.length ? b : a), '');
      if (longest.length >= 5) query = words.map((w) => (w === longest ? typo(w.toLowerCase(), n) : w)).join(' ');
      break;
    }
    case 'arabic':
      if (first.name_ar) query = n % 2 ? first.name_ar : `${first.name_ar} ${house?.name_ar ?? ''}`.trim();
      break;
    case 'arabic-variant':
      if (first.name_ar && arabicVariant(first.name_ar) !== first.name_ar) query = arabicVariant(first.name_ar);
      break;
    case 'abbreviation': {
      const abbr = house?.abbreviations[0];
      query = abbr ? `${abbr} ${first.name}` : `${first.name} ${first.house}`;
      break;
    }
    case 'partial': {
      // only a prefix that no other line of the house shares: otherwise no answer is the right one
      const cut = Math.max(4, Math.ceil(first.name.length * 0.6));
      const prefix = normalizeText(first.name.slice(0, cut));
      const shared = [...lines.values()].some(
        (l) => l[0] !== first && l[0]?.house === first.house && normalizeText(l[0]?.name ?? '').startsWith(prefix),
      );
      if (first.name.length > cut && !shared) query = `${first.house} ${first.name.slice(0, cut)}`;
      break;
    }
    case 'concentration': {
      const words = CONC_WORDS[first.concentration] ?? [first.concentration];
      query = `${first.name} ${words[n % words.length]}`;
      expected = line.length > 1 ? [first.id] : ids;
      break;
    }
  }
  if (query) out.push({ query, expected, kind });
}

const manual = JSON.parse(
  readFileSync(new URL('../tests/fixtures/lookup-queries-manual.json', import.meta.url), 'utf8'),
) as LookupQuery[];
const known = new Set(perfumes.map((p) => p.id));
for (const q of manual) {
  for (const id of q.expected)
    if (!known.has(id)) throw new Error(`manual query "${q.query}" expects unknown id ${id}`);
}
out.push(...manual);
writeFileSync(new URL('../tests/fixtures/lookup-queries.json', import.meta.url), `${JSON.stringify(out, null, 1)}\n`);
const byKind: Record<string, number> = {};
for (const q of out) byKind[q.kind] = (byKind[q.kind] ?? 0) + 1;
console.log(`${out.length} queries`, byKind);
