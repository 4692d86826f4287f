/**
 * The quiz and catalog vocabulary: one source for the server's validation,
 * the catalog, the scoring engine and the widget. Every term has a canonical
 * slug, an English and an Arabic label, and aliases (other spellings, Arabic
 * names) that resolve to it. Accord slugs are the common perfumery words, lower
 * case with spaces, as perfume databases write them (`warm spicy`).
 *
 * Pure data and functions; no dependencies beyond lib/text.ts and lib/cache.ts.
 */
import { Cache } from '../lib/cache.ts';
import { normalizeText } from '../lib/text.ts';

export interface Term {
  readonly slug: string;
  readonly en: string;
  readonly ar: string;
  readonly aliases?: readonly string[];
}

export const ACCORDS = [
  // citrus, fresh, green, aquatic
  { slug: 'citrus', en: 'Citrus', ar: 'حمضيات', aliases: ['citrusy', 'citrus fruits', 'حمضي', 'ليمون'] },
  { slug: 'fresh', en: 'Fresh', ar: 'منعش', aliases: ['clean', 'انتعاش'] },
  { slug: 'fresh spicy', en: 'Fresh spicy', ar: 'توابل منعشة', aliases: ['spicy fresh', 'peppery'] },
  { slug: 'aromatic', en: 'Aromatic', ar: 'عطري', aliases: ['aromatics', 'اروماتيك'] },
  { slug: 'herbal', en: 'Herbal', ar: 'عشبي', aliases: ['herbs', 'أعشاب'] },
  { slug: 'lavender', en: 'Lavender', ar: 'لافندر', aliases: ['خزامى'] },
  { slug: 'mint', en: 'Mint', ar: 'نعناع', aliases: ['minty', 'nana'] },
  { slug: 'green', en: 'Green', ar: 'أخضر', aliases: ['leafy', 'grassy'] },
  { slug: 'tea', en: 'Tea', ar: 'شاي', aliases: ['green tea', 'black tea'] },
  { slug: 'aquatic', en: 'Aquatic', ar: 'مائي', aliases: ['water', 'watery'] },
  { slug: 'marine', en: 'Marine', ar: 'بحري', aliases: ['sea', 'oceanic'] },
  { slug: 'ozonic', en: 'Ozonic', ar: 'أوزوني', aliases: ['ozone', 'airy'] },
  { slug: 'salty', en: 'Salty', ar: 'مالح', aliases: ['salt', 'sea salt'] },
  { slug: 'mineral', en: 'Mineral', ar: 'معدني', aliases: ['stone', 'flint'] },
  { slug: 'metallic', en: 'Metallic', ar: 'فلزي', aliases: ['metal'] },
  { slug: 'aldehydic', en: 'Aldehydic', ar: 'ألدهيدي', aliases: ['aldehydes', 'aldehyde'] },
  // florals
  { slug: 'floral', en: 'Floral', ar: 'زهري', aliases: ['flowers', 'flowery', 'زهور', 'ورود'] },
  { slug: 'white floral', en: 'White floral', ar: 'زهور بيضاء', aliases: ['white flowers', 'jasmine', 'ياسمين'] },
  { slug: 'yellow floral', en: 'Yellow floral', ar: 'زهور صفراء', aliases: ['yellow flowers', 'ylang'] },
  { slug: 'rose', en: 'Rose', ar: 'ورد', aliases: ['roses', 'rosy', 'taif rose', 'ورد طائفي', 'وردي'] },
  { slug: 'iris', en: 'Iris', ar: 'سوسن', aliases: ['orris', 'أيريس'] },
  { slug: 'violet', en: 'Violet', ar: 'بنفسج', aliases: ['violets', 'بنفسجي'] },
  { slug: 'tuberose', en: 'Tuberose', ar: 'مسك الروم', aliases: ['tubereuse', 'توبروز'] },
  { slug: 'orange blossom', en: 'Orange blossom', ar: 'زهر البرتقال', aliases: ['neroli', 'نيرولي'] },
  { slug: 'powdery', en: 'Powdery', ar: 'بودري', aliases: ['powder', 'بودرة'] },
  // fruity
  { slug: 'fruity', en: 'Fruity', ar: 'فاكهي', aliases: ['fruit', 'fruits', 'فواكه'] },
  { slug: 'tropical', en: 'Tropical', ar: 'استوائي', aliases: ['exotic fruits'] },
  { slug: 'cherry', en: 'Cherry', ar: 'كرز', aliases: ['cherries'] },
  { slug: 'coconut', en: 'Coconut', ar: 'جوز الهند', aliases: ['coco'] },
  // sweet, gourmand
  { slug: 'sweet', en: 'Sweet', ar: 'حلو', aliases: ['sugary', 'gourmand', 'حلى'] },
  { slug: 'vanilla', en: 'Vanilla', ar: 'فانيليا', aliases: ['vanille', 'فانيلا'] },
  { slug: 'caramel', en: 'Caramel', ar: 'كراميل', aliases: ['toffee', 'praline'] },
  { slug: 'honey', en: 'Honey', ar: 'عسل', aliases: ['honeyed'] },
  { slug: 'chocolate', en: 'Chocolate', ar: 'شوكولاتة', aliases: ['cacao', 'cocoa', 'كاكاو', 'شوكولا'] },
  { slug: 'coffee', en: 'Coffee', ar: 'قهوة', aliases: ['espresso', 'قهوه عربية'] },
  { slug: 'almond', en: 'Almond', ar: 'لوز', aliases: ['almonds', 'bitter almond'] },
  { slug: 'nutty', en: 'Nutty', ar: 'مكسرات', aliases: ['nuts', 'hazelnut', 'pistachio'] },
  { slug: 'lactonic', en: 'Lactonic', ar: 'حليبي', aliases: ['milky', 'creamy', 'milk'] },
  { slug: 'boozy', en: 'Boozy', ar: 'نفحات كحولية', aliases: ['rum', 'whiskey', 'whisky', 'cognac', 'liquor'] },
  // spices
  { slug: 'warm spicy', en: 'Warm spicy', ar: 'توابل دافئة', aliases: ['spicy warm', 'warm spices'] },
  { slug: 'soft spicy', en: 'Soft spicy', ar: 'توابل ناعمة', aliases: ['spicy soft'] },
  { slug: 'saffron', en: 'Saffron', ar: 'زعفران', aliases: ['zafaran', 'zaffran'] },
  { slug: 'cinnamon', en: 'Cinnamon', ar: 'قرفة', aliases: ['cinamon'] },
  { slug: 'cardamom', en: 'Cardamom', ar: 'هيل', aliases: ['cardamon', 'حبهان'] },
  { slug: 'anis', en: 'Anise', ar: 'يانسون', aliases: ['anise', 'licorice', 'star anise'] },
  // woods, resins, earth
  { slug: 'woody', en: 'Woody', ar: 'خشبي', aliases: ['woods', 'wood', 'أخشاب'] },
  { slug: 'oud', en: 'Oud', ar: 'عود', aliases: ['oudh', 'agarwood', 'aoud', 'oud wood', 'دهن العود'] },
  { slug: 'sandalwood', en: 'Sandalwood', ar: 'صندل', aliases: ['sandal', 'santal', 'صندلي'] },
  { slug: 'cedar', en: 'Cedar', ar: 'أرز', aliases: ['cedarwood', 'خشب الأرز'] },
  { slug: 'vetiver', en: 'Vetiver', ar: 'فيتيفر', aliases: ['khus', 'نجيل الهند'] },
  { slug: 'patchouli', en: 'Patchouli', ar: 'باتشولي', aliases: ['patchouly', 'pachouli'] },
  { slug: 'mossy', en: 'Mossy', ar: 'طحلبي', aliases: ['oakmoss', 'moss'] },
  { slug: 'earthy', en: 'Earthy', ar: 'ترابي', aliases: ['earth', 'soil'] },
  { slug: 'conifer', en: 'Conifer', ar: 'صنوبري', aliases: ['pine', 'fir', 'coniferous'] },
  { slug: 'amber', en: 'Amber', ar: 'عنبر', aliases: ['ambery', 'oriental', 'عنبري', 'شرقي'] },
  { slug: 'balsamic', en: 'Balsamic', ar: 'بلسمي', aliases: ['resinous', 'resins', 'balsam', 'benzoin'] },
  { slug: 'incense', en: 'Incense', ar: 'بخور', aliases: ['frankincense', 'olibanum', 'bakhoor', 'bukhoor', 'لبان'] },
  { slug: 'smoky', en: 'Smoky', ar: 'دخاني', aliases: ['smoke', 'smokey', 'مدخن'] },
  { slug: 'leather', en: 'Leather', ar: 'جلد', aliases: ['leathery', 'suede', 'جلدي'] },
  { slug: 'tobacco', en: 'Tobacco', ar: 'تبغ', aliases: ['tabac', 'تبغي'] },
  { slug: 'animalic', en: 'Animalic', ar: 'حيواني', aliases: ['animal', 'castoreum', 'civet'] },
  { slug: 'musky', en: 'Musky', ar: 'مسكي', aliases: ['musk', 'white musk', 'مسك'] },
  { slug: 'camphor', en: 'Camphor', ar: 'كافوري', aliases: ['camphorous', 'كافور'] },
  { slug: 'beeswax', en: 'Beeswax', ar: 'شمع العسل', aliases: ['wax'] },
] as const satisfies readonly Term[];

export const FAMILIES = [
  {
    slug: 'floral',
    en: 'Floral',
    ar: 'زهري',
    aliases: ['flowers', 'زهور'],
    accords: [
      ['floral', 1],
      ['white floral', 0.7],
      ['rose', 0.7],
      ['yellow floral', 0.5],
      ['orange blossom', 0.5],
      ['tuberose', 0.4],
    ],
  },
  {
    slug: 'woody',
    en: 'Woody',
    ar: 'خشبي',
    aliases: ['woods', 'chypre', 'شيبر', 'أخشاب'],
    accords: [
      ['woody', 1],
      ['sandalwood', 0.7],
      ['cedar', 0.7],
      ['vetiver', 0.6],
      ['patchouli', 0.5],
      ['mossy', 0.4],
    ],
  },
  {
    slug: 'amber',
    en: 'Amber',
    ar: 'عنبري',
    aliases: ['oriental', 'ambery', 'شرقي', 'عنبر'],
    accords: [
      ['amber', 1],
      ['balsamic', 0.7],
      ['vanilla', 0.6],
      ['warm spicy', 0.6],
      ['incense', 0.4],
    ],
  },
  {
    slug: 'fresh',
    en: 'Fresh',
    ar: 'منعش',
    aliases: ['clean', 'منعشة'],
    accords: [
      ['fresh', 1],
      ['citrus', 0.6],
      ['aquatic', 0.5],
      ['green', 0.5],
      ['fresh spicy', 0.5],
      ['ozonic', 0.4],
    ],
  },
  {
    slug: 'citrus',
    en: 'Citrus',
    ar: 'حمضي',
    aliases: ['citrusy', 'hesperidic', 'حمضيات'],
    accords: [
      ['citrus', 1],
      ['fresh', 0.6],
      ['fresh spicy', 0.4],
      ['orange blossom', 0.3],
    ],
  },
  {
    slug: 'gourmand',
    en: 'Gourmand',
    ar: 'حلويات',
    aliases: ['sweet', 'edible', 'جورماند', 'غورماند', 'حلو'],
    accords: [
      ['sweet', 1],
      ['vanilla', 0.8],
      ['caramel', 0.6],
      ['chocolate', 0.5],
      ['coffee', 0.5],
      ['honey', 0.4],
      ['almond', 0.4],
    ],
  },
  {
    slug: 'oud',
    en: 'Oud',
    ar: 'عود',
    aliases: ['oudh', 'agarwood', 'aoud'],
    accords: [
      ['oud', 1],
      ['woody', 0.6],
      ['smoky', 0.5],
      ['saffron', 0.5],
      ['leather', 0.4],
      ['incense', 0.4],
      ['animalic', 0.3],
    ],
  },
  {
    slug: 'aromatic',
    en: 'Aromatic',
    ar: 'عطري عشبي',
    aliases: ['fougere', 'fougère', 'فوجير', 'اروماتيك'],
    accords: [
      ['aromatic', 1],
      ['lavender', 0.6],
      ['herbal', 0.6],
      ['fresh spicy', 0.5],
      ['mint', 0.3],
    ],
  },
  {
    slug: 'leather',
    en: 'Leather',
    ar: 'جلدي',
    aliases: ['leathery', 'suede', 'جلد'],
    accords: [
      ['leather', 1],
      ['smoky', 0.5],
      ['tobacco', 0.5],
      ['animalic', 0.4],
    ],
  },
  {
    slug: 'musky',
    en: 'Musky',
    ar: 'مسكي',
    aliases: ['musk', 'مسك'],
    accords: [
      ['musky', 1],
      ['powdery', 0.5],
      ['aldehydic', 0.3],
      ['lactonic', 0.3],
    ],
  },
  {
    slug: 'aquatic',
    en: 'Aquatic',
    ar: 'مائي',
    aliases: ['marine', 'oceanic', 'بحري'],
    accords: [
      ['aquatic', 1],
      ['marine', 0.8],
      ['ozonic', 0.6],
      ['salty', 0.5],
      ['mineral', 0.3],
    ],
  },
  {
    slug: 'spicy',
    en: 'Spicy',
    ar: 'توابل',
    aliases: ['spices', 'بهارات', 'حار'],
    accords: [
      ['warm spicy', 1],
      ['fresh spicy', 0.7],
      ['soft spicy', 0.6],
      ['saffron', 0.5],
      ['cinnamon', 0.5],
      ['cardamom', 0.5],
    ],
  },
  {
    slug: 'fruity',
    en: 'Fruity',
    ar: 'فاكهي',
    aliases: ['fruit', 'فواكه'],
    accords: [
      ['fruity', 1],
      ['tropical', 0.5],
      ['cherry', 0.4],
      ['coconut', 0.3],
    ],
  },
  {
    slug: 'green',
    en: 'Green',
    ar: 'أخضر',
    aliases: ['leafy', 'herbal green'],
    accords: [
      ['green', 1],
      ['herbal', 0.6],
      ['tea', 0.5],
      ['mossy', 0.4],
    ],
  },
  {
    slug: 'powdery',
    en: 'Powdery',
    ar: 'بودري',
    aliases: ['powder', 'بودرة'],
    accords: [
      ['powdery', 1],
      ['iris', 0.7],
      ['violet', 0.5],
      ['musky', 0.5],
      ['aldehydic', 0.3],
    ],
  },
] as const satisfies readonly (Term & { accords: readonly (readonly [string, number])[] })[];

/** Quiz ratings of an accord, from most to least wanted, with the weight the engine gives each. */
export const RATINGS = [
  { slug: 'love', en: 'Love it', ar: 'أعشقه', weight: 1, aliases: ['loved', 'أحبه جدا'] },
  { slug: 'like', en: 'Like it', ar: 'يعجبني', weight: 0.5, aliases: ['liked', 'أحبه'] },
  { slug: 'neutral', en: 'No opinion', ar: 'محايد', weight: 0, aliases: ['ok', 'indifferent', 'لا يهم'] },
  { slug: 'dislike', en: 'Not for me', ar: 'لا يعجبني', weight: -0.5, aliases: ['disliked'] },
  { slug: 'avoid', en: 'Avoid', ar: 'أتجنبه', weight: -1, aliases: ['hate', 'never', 'avoided', 'أكرهه'] },
] as const satisfies readonly (Term & { weight: number })[];

export const SEASONS = [
  { slug: 'spring', en: 'Spring', ar: 'الربيع', aliases: ['ربيع'] },
  { slug: 'summer', en: 'Summer', ar: 'الصيف', aliases: ['صيف', 'hot weather'] },
  { slug: 'autumn', en: 'Autumn', ar: 'الخريف', aliases: ['fall', 'خريف'] },
  { slug: 'winter', en: 'Winter', ar: 'الشتاء', aliases: ['شتاء', 'cold weather'] },
] as const satisfies readonly Term[];

/** When a perfume is best worn. */
export const TIMES = [
  { slug: 'day', en: 'Day', ar: 'النهار', aliases: ['daytime', 'نهار', 'صباح'] },
  { slug: 'night', en: 'Night', ar: 'الليل', aliases: ['nighttime', 'evening time', 'ليل', 'مساء'] },
] as const satisfies readonly Term[];

export const OCCASIONS = [
  { slug: 'daily', en: 'Every day', ar: 'الاستخدام اليومي', aliases: ['everyday', 'casual', 'يومي'] },
  { slug: 'office', en: 'Office', ar: 'العمل', aliases: ['work', 'business', 'دوام', 'مكتب'] },
  { slug: 'evening', en: 'Evening out', ar: 'السهرات', aliases: ['night out', 'party', 'سهرة'] },
  { slug: 'date-night', en: 'Date night', ar: 'موعد رومانسي', aliases: ['date', 'romantic', 'رومانسي'] },
  { slug: 'special-occasion', en: 'Special occasion', ar: 'مناسبة خاصة', aliases: ['formal', 'special', 'مناسبات'] },
  { slug: 'wedding', en: 'Wedding', ar: 'الأعراس', aliases: ['weddings', 'زواج', 'عرس', 'زفاف'] },
  { slug: 'eid', en: 'Eid', ar: 'العيد', aliases: ['eid al fitr', 'eid al adha', 'عيد'] },
  {
    slug: 'ramadan-nights',
    en: 'Ramadan nights',
    ar: 'ليالي رمضان',
    aliases: ['ramadan', 'ramadan night', 'رمضان', 'ليالي رمضانيه', 'سهرات رمضان'],
  },
  {
    slug: 'gathering',
    en: 'Majlis & gatherings',
    ar: 'المجالس والتجمعات',
    aliases: ['majlis', 'family gathering', 'مجلس', 'مجالس'],
  },
  { slug: 'sport', en: 'Sport', ar: 'الرياضة', aliases: ['gym', 'sports', 'رياضة'] },
  { slug: 'travel', en: 'Travel', ar: 'السفر', aliases: ['vacation', 'holiday', 'سفر'] },
] as const satisfies readonly Term[];

export const GENDERS = [
  {
    slug: 'men',
    en: 'Men',
    ar: 'رجالي',
    aliases: ['male', 'man', 'masculine', 'homme', 'pour homme', 'للرجال', 'رجال'],
  },
  {
    slug: 'women',
    en: 'Women',
    ar: 'نسائي',
    aliases: ['female', 'woman', 'feminine', 'femme', 'pour femme', 'للنساء', 'نساء'],
  },
  { slug: 'unisex', en: 'Unisex', ar: 'للجنسين', aliases: ['shared', 'mixte', 'يونيسكس'] },
] as const satisfies readonly Term[];

export const CONCENTRATIONS = [
  { slug: 'edc', en: 'Eau de Cologne', ar: 'أو دو كولونيا', aliases: ['cologne', 'eau de cologne', 'كولونيا'] },
  { slug: 'edt', en: 'Eau de Toilette', ar: 'أو دو تواليت', aliases: ['eau de toilette', 'toilette', 'تواليت'] },
  { slug: 'edp', en: 'Eau de Parfum', ar: 'أو دو بارفان', aliases: ['eau de parfum', 'eau de perfume', 'بارفان'] },
  { slug: 'parfum', en: 'Parfum', ar: 'بارفيوم', aliases: ['perfume', 'pure parfum', 'بيرفيوم', 'برفيوم'] },
  {
    slug: 'extrait',
    en: 'Extrait de Parfum',
    ar: 'إكستريه دو بارفان',
    aliases: ['extrait de parfum', 'extract', 'اكستريت'],
  },
  { slug: 'elixir', en: 'Elixir', ar: 'إليكسير', aliases: ['اكسير', 'الكسير'] },
  {
    slug: 'oil',
    en: 'Perfume oil',
    ar: 'دهن عطري',
    aliases: ['perfume oil', 'attar', 'concentrated oil', 'دهن', 'زيت عطري'],
  },
] as const satisfies readonly Term[];

/**
 * The kinds of product a shopper may ask for (quiz `kinds`): those of matching/kind.ts a shopper
 * wears or burns ("other", a burner or a lotion, is never asked for). docs/gulf-shelf.md.
 */
export const PRODUCT_KIND_TERMS = [
  {
    slug: 'spray',
    en: 'Perfume sprays',
    ar: 'العطور البخاخ',
    aliases: ['sprays', 'perfume', 'perfumes', 'عطر', 'عطور', 'بخاخ'],
  },
  {
    slug: 'oil',
    en: 'Perfume oils',
    ar: 'الدهن والزيوت العطرية',
    aliases: ['oils', 'dehn', 'attar', 'دهن', 'دهون', 'زيوت'],
  },
  { slug: 'bakhoor', en: 'Bakhoor and incense', ar: 'البخور', aliases: ['incense', 'bukhoor', 'بخور', 'معمول'] },
  { slug: 'oud_wood', en: 'Oud wood', ar: 'العود للتبخير', aliases: ['oud chips', 'oud-wood', 'عود', 'عود طبيعي'] },
  {
    slug: 'mist',
    en: 'Body and hair mists',
    ar: 'معطرات الشعر والجسم',
    aliases: ['mists', 'hair mist', 'body mist', 'معطر شعر', 'معطر جسم'],
  },
  {
    slug: 'gift_set',
    en: 'Gift sets',
    ar: 'أطقم الهدايا',
    aliases: ['gift sets', 'gift-set', 'sets', 'طقم', 'أطقم', 'طقم هدية'],
  },
  {
    slug: 'sample',
    en: 'Decants and samples',
    ar: 'التقسيم والعينات',
    aliases: ['samples', 'decant', 'decants', 'عينة', 'تقسيم'],
  },
] as const satisfies readonly Term[];

export type AccordSlug = (typeof ACCORDS)[number]['slug'];
export type FamilySlug = (typeof FAMILIES)[number]['slug'];
export type RatingSlug = (typeof RATINGS)[number]['slug'];
export type SeasonSlug = (typeof SEASONS)[number]['slug'];
export type TimeSlug = (typeof TIMES)[number]['slug'];
export type OccasionSlug = (typeof OCCASIONS)[number]['slug'];
export type ProductKindSlug = (typeof PRODUCT_KIND_TERMS)[number]['slug'];
export type GenderSlug = (typeof GENDERS)[number]['slug'];
export type ConcentrationSlug = (typeof CONCENTRATIONS)[number]['slug'];

export const VOCABULARY = {
  accord: ACCORDS,
  family: FAMILIES,
  rating: RATINGS,
  season: SEASONS,
  time: TIMES,
  occasion: OCCASIONS,
  gender: GENDERS,
  concentration: CONCENTRATIONS,
  product_kind: PRODUCT_KIND_TERMS,
} as const;
export type VocabularyKind = keyof typeof VOCABULARY;

type SlugOf<K extends VocabularyKind> = (typeof VOCABULARY)[K][number]['slug'];

const lookups = new Map<VocabularyKind, Map<string, string>>();
function lookupFor(kind: VocabularyKind): Map<string, string> {
  let map = lookups.get(kind);
  if (!map) {
    map = new Map();
    for (const term of VOCABULARY[kind] as readonly Term[]) {
      for (const name of [term.slug, term.en, term.ar, ...(term.aliases ?? [])]) {
        const key = normalizeText(name);
        if (!map.has(key)) map.set(key, term.slug);
      }
    }
    lookups.set(kind, map);
  }
  return map;
}

/**
 * The canonical slug for a name of any spelling (`Warm-Spicy`, `warm_spicy`,
 * `توابل دافئة`, `oriental`), or null when the vocabulary has no such term.
 */
export function resolveTerm<K extends VocabularyKind>(kind: K, name: string): SlugOf<K> | null {
  const memo = `${kind}\u0000${name}`;
  const hit = resolved.get(memo);
  if (hit !== undefined) return hit as SlugOf<K> | null;
  const slug = (lookupFor(kind).get(normalizeText(name)) as SlugOf<K> | undefined) ?? null;
  resolved.set(memo, slug);
  return slug;
}
/** quizzes repeat the same few hundred names; any input is accepted, hence the bound */
// pure for the bundler: the widget imports the vocabulary, never resolveTerm, and so ships no cache
const resolved = /* @__PURE__ */ new Cache<string, string | null>({
  name: 'vocabulary-resolve',
  max: 5000,
  invalidatedBy: 'never: a pure function of the kind and name (the vocabulary is compiled in)',
});

export function slugsOf<K extends VocabularyKind>(kind: K): SlugOf<K>[] {
  return (VOCABULARY[kind] as readonly Term[]).map((t) => t.slug) as SlugOf<K>[];
}

export function labelOf(kind: VocabularyKind, slug: string, locale: 'ar' | 'en'): string | null {
  const term = (VOCABULARY[kind] as readonly Term[]).find((t) => t.slug === slug);
  return term ? term[locale] : null;
}

/** The accords a family implies, with their weights (the family's own accord first, at 1). */
export function familyAccords(family: FamilySlug): readonly (readonly [AccordSlug, number])[] {
  const f = FAMILIES.find((x) => x.slug === family);
  return (f?.accords ?? []) as readonly (readonly [AccordSlug, number])[];
}
