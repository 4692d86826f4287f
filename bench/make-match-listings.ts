/**
 * Writes tests/fixtures/match-listings.json: messy shop listings, each with the
 * perfume it must match or null (must stay unmatched).
 *   npx tsx bench/make-match-listings.ts
 *
 * Positives: every 3rd perfume line of the catalog, written the ways shop
 * feeds write (templates below, cycling; about half in Arabic script).
 * A listing that names a concentration expects that perfume; one that does
 * not expects the line's original (earliest launch, the documented rule).
 * Negatives: tests/fixtures/match-negatives.json, hand-written: real products
 * that are not in the catalog (flankers we lack, other houses), and products
 * that carry a perfume's name but are not perfumes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadBundledCatalog } from '../catalog/bundled.ts';
import type { PerfumeRecord } from '../catalog/schema.ts';
import { normalizeText } from '../lib/text.ts';

export interface LabelledListing {
  name: string;
  house: string;
  expected: string | null;
  kind: string;
}

const { houses, perfumes } = loadBundledCatalog();
const houseInfo = new Map(houses.map((h) => [h.name, h]));
const lines = new Map<string, PerfumeRecord[]>();
for (const p of perfumes) {
  const key = `${p.house}|${normalizeText(p.name)}`;
  lines.set(key, [...(lines.get(key) ?? []), p]);
}
const original = (line: PerfumeRecord[]) =>
  [...line].sort((a, b) => (a.year ?? 9999) - (b.year ?? 9999) || (a.id < b.id ? -1 : 1))[0] as PerfumeRecord;

const EN_CONC: Record<string, string[]> = {
  edt: ['EDT', 'Eau de Toilette', 'eau de toilette spray'],
  edp: ['EDP', 'Eau de Parfum', 'EAU DE PARFUM'],
  parfum: ['Parfum', 'Le Parfum'],
  extrait: ['Extrait de Parfum', 'Extrait'],
  elixir: ['Elixir'],
  oil: ['Perfume Oil', 'Concentrated Oil'],
  edc: ['Eau de Cologne', 'Cologne'],
};
const AR_CONC: Record<string, string[]> = {
  edt: ['او دو تواليت', 'أو دو تواليت'],
  edp: ['او دو بارفان', 'أو دي بارفان'],
  parfum: ['بارفيوم'],
  extrait: ['اكستريه دو بارفان'],
  elixir: ['إليكسير'],
  oil: ['دهن عطري'],
  edc: ['كولونيا'],
};
const EN_GENDER = { men: ['for men', 'Pour Homme'], women: ['for women', 'Pour Femme'], unisex: ['Unisex'] };
const AR_GENDER = { men: ['للرجال', 'رجالي'], women: ['للنساء', 'نسائي'], unisex: ['للجنسين'] };
const SIZES = ['100ml', '100 ml', '3.4 oz', '50ml', '90 ML', '200ml', '75ml'];
const AR_SIZES = ['100 مل', '١٠٠ مل', '50 مل', '٧٥ مل', '90مل'];

function typo(word: string, n: number): string {
  if (word.length < 6) return word;
  return n % 2 ? word[0] + (word[2] ?? '') + (word[1] ?? '') + word.slice(3) : word.slice(0, -2) + word.slice(-1);
}

const pick = <T>(xs: readonly T[], n: number) => xs[n % xs.length] as T;
const out: LabelledListing[] = [];
let n = 0;
const lineList = [...lines.values()];
for (let li = 0; li < lineList.length; li += 3) {
  const line = lineList[li] as PerfumeRecord[];
  const p = line[n % line.length] as PerfumeRecord;
  const h = houseInfo.get(p.house);
  const houseAr = h?.name_ar ?? p.house;
  const g = p.gender as 'men' | 'women' | 'unisex';
  const t = n % 8;
  n++;
  let listing: { name: string; house: string; named: boolean; kind: string } | null = null;
  switch (t) {
    case 0:
      listing = {
        name: `${p.house} ${p.name} ${pick(EN_CONC[p.concentration] ?? [], n)} ${pick(SIZES, n)}`,
        house: p.house,
        named: true,
        kind: 'en-house-in-name',
      };
      break;
    case 1:
      listing = {
        name: `${p.name} ${pick(EN_CONC[p.concentration] ?? [], n)} ${pick(EN_GENDER[g], n)} ${pick(SIZES, n)}`,
        house: (h?.aliases[0] ?? p.house).toUpperCase(),
        named: true,
        kind: 'en-gender-alias',
      };
      break;
    case 2:
      listing = {
        name: `${p.name.toUpperCase()} ${pick(SIZES, n)} Tester`,
        house: h?.abbreviations[0] ?? p.house,
        named: false,
        kind: 'en-tester-abbreviation',
      };
      break;
    case 3: {
      const words = p.name.split(' ');
      const longest = words.reduce((a, b) => (b.length > a.length ? b : a), '');
      listing = {
        name: `${words.map((w) => (w === longest ? typo(w, n) : w)).join(' ')} ${pick(EN_CONC[p.concentration] ?? [], n)}`,
        house: p.house.toLowerCase(),
        named: true,
        kind: 'en-typo',
      };
      break;
    }
    case 4:
    case 5:
      if (p.name_ar)
        listing = {
          name: `عطر ${p.name_ar} ${pick(AR_CONC[p.concentration] ?? [], n)} ${pick(AR_SIZES, n)}`,
          house: houseAr,
          named: true,
          kind: 'ar-concentration',
        };
      break;
    case 6:
      if (p.name_ar)
        listing = {
          name: `${p.name_ar} من ${houseAr} ${pick(AR_GENDER[g], n)} ${pick(AR_SIZES, n)}`,
          house: houseAr,
          named: false,
          kind: 'ar-house-in-name',
        };
      break;
    default:
      if (p.name_ar)
        listing = {
          name: `${p.name_ar} ${pick(AR_CONC[p.concentration] ?? [], n)} تستر`,
          house: p.house,
          named: true,
          kind: 'ar-tester-latin-house',
        };
  }
  if (!listing) continue;
  out.push({
    name: listing.name.replace(/\s+/g, ' ').trim(),
    house: listing.house,
    expected: listing.named ? p.id : original(line).id,
    kind: listing.kind,
  });
}

const negatives = JSON.parse(
  readFileSync(new URL('../tests/fixtures/match-negatives.json', import.meta.url), 'utf8'),
) as LabelledListing[];
const manual = JSON.parse(
  readFileSync(new URL('../tests/fixtures/match-manual.json', import.meta.url), 'utf8'),
) as LabelledListing[];
const known = new Set(perfumes.map((p) => p.id));
for (const m of manual)
  if (m.expected && !known.has(m.expected)) throw new Error(`manual listing "${m.name}" expects unknown ${m.expected}`);
out.push(...manual, ...negatives);
writeFileSync(new URL('../tests/fixtures/match-listings.json', import.meta.url), `${JSON.stringify(out, null, 1)}\n`);
const arabic = out.filter((l) => /[\u0600-\u06FF]/.test(l.name)).length;
console.log(
  `${out.length} listings: ${out.filter((l) => l.expected).length} to match, ${out.filter((l) => !l.expected).length} to leave unmatched, ${arabic} in Arabic script`,
);
