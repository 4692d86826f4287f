/**
 * Synthetic perfumes for scale benchmarks only (20,000 and 100,000 rows):
 * made-up names and houses built from word lists, valid against the catalog
 * schema and vocabulary, deterministic for a given seed. Never shipped.
 */
import type { ProfiledRecord } from '../catalog/schema.ts';
import { ACCORDS, FAMILIES, OCCASIONS, SEASONS } from '../vocabulary/index.ts';

export function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'velvet',
  'midnight',
  'desert',
  'amber',
  'royal',
  'silk',
  'golden',
  'noir',
  'rose',
  'musk',
  'cedar',
  'ocean',
  'saffron',
  'smoke',
  'crystal',
  'wild',
  'secret',
  'mystic',
  'imperial',
  'sultan',
  'pearl',
  'dune',
  'oasis',
  'garden',
  'leather',
  'tobacco',
  'vanilla',
  'iris',
  'jasmine',
  'citrus',
  'storm',
  'ember',
  'ivory',
  'onyx',
  'sapphire',
  'majestic',
  'eternal',
  'blue',
  'white',
  'black',
  'red',
  'emerald',
  'night',
  'dawn',
  'sun',
  'moon',
  'star',
  'breeze',
  'spice',
  'fleur',
  'bois',
  'nuit',
  'lumiere',
  'ombre',
  'eclat',
  'aura',
  'elixir',
  'legend',
  'intense',
  'absolute',
  'prive',
  'layali',
  'qamar',
  'shams',
  'zahra',
  'ward',
  'anbar',
  'misk',
  'hayat',
  'nour',
  'sahara',
  'badr',
  'fakhr',
  'majd',
];
const WORDS_AR = [
  'مخمل',
  'منتصف',
  'صحراء',
  'عنبر',
  'ملكي',
  'حرير',
  'ذهبي',
  'أسود',
  'ورد',
  'مسك',
  'أرز',
  'محيط',
  'زعفران',
  'دخان',
  'كريستال',
  'بري',
  'سر',
  'غامض',
  'إمبراطوري',
  'سلطان',
  'لؤلؤ',
  'كثيب',
  'واحة',
  'حديقة',
  'جلد',
  'تبغ',
  'فانيليا',
  'سوسن',
  'ياسمين',
  'حمضيات',
  'عاصفة',
  'جمر',
  'عاج',
  'جزع',
  'ياقوت',
  'مهيب',
  'أبدي',
  'أزرق',
  'أبيض',
  'أسود',
  'أحمر',
  'زمرد',
  'ليل',
  'فجر',
  'شمس',
  'قمر',
  'نجمة',
  'نسيم',
  'بهار',
  'زهرة',
  'خشب',
  'ليلة',
  'ضوء',
  'ظل',
  'بريق',
  'هالة',
  'إكسير',
  'أسطورة',
  'مكثف',
  'مطلق',
  'خاص',
  'ليالي',
  'قمر',
  'شمس',
  'زهرة',
  'ورد',
  'عنبر',
  'مسك',
  'حياة',
  'نور',
  'صحارى',
  'بدر',
  'فخر',
  'مجد',
];
const CONC = ['edt', 'edp', 'parfum', 'extrait', 'edp', 'edp', 'oil'];

export function syntheticHouses(count: number) {
  return Array.from({ length: count }, (_, i) => ({
    name: `Maison Synthetique ${i + 1}`,
    name_ar: `دار تجريبية ${i + 1}`,
    aliases: [],
    abbreviations: [],
    region: (i % 3 === 0 ? 'middle-east' : 'global') as 'middle-east' | 'global',
    country: 'FR',
  }));
}

export function syntheticPerfumes(
  count: number,
  seed = 42,
  houseCount = Math.max(10, Math.round(count / 40)),
): ProfiledRecord[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)] as T;
  const out: ProfiledRecord[] = [];
  for (let i = 0; i < count; i++) {
    const n = 1 + Math.floor(r() * 3);
    const idx = Array.from({ length: n }, () => Math.floor(r() * WORDS.length));
    const name = idx
      .map((k) => WORDS[k])
      .join(' ')
      .replace(/\b\w/g, (c) => c.toUpperCase());
    const nameAr = idx.map((k) => WORDS_AR[k % WORDS_AR.length]).join(' ');
    const house = `Maison Synthetique ${1 + Math.floor(r() * houseCount)}`;
    const accordSlugs = new Set<string>();
    while (accordSlugs.size < 4 + Math.floor(r() * 4)) accordSlugs.add(pick(ACCORDS).slug);
    const weights = [...accordSlugs].map((a, k) => [a, k === 0 ? 100 : Math.max(10, 100 - k * 12)] as const);
    out.push({
      id: `synthetic-${i}`,
      name: `${name} ${i}`,
      name_ar: `${nameAr} ${i}`,
      house,
      concentration: pick(CONC),
      year: 1990 + Math.floor(r() * 36),
      gender: pick(['men', 'women', 'unisex']),
      grade: 'referenced',
      families: [pick(FAMILIES).slug],
      accords: Object.fromEntries(weights),
      notes: { top: ['bergamot'], heart: ['rose'], base: ['musk'] },
      seasons: [pick(SEASONS).slug],
      times: [pick(['day', 'night'])],
      occasions: [pick(OCCASIONS).slug],
    });
  }
  return out;
}
