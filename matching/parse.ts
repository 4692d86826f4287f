/**
 * A shop listing read into fields before any matching: the words that name
 * the perfume, its concentration (only a real concentration expression),
 * gender, size, product form, and whether it is a perfume at all. Sellers'
 * noise ("New in Box", "100% original", barcodes, "Free shipping", emojis) is
 * set aside, so it never counts against a match. Pure, and bounded: at most
 * MAX_LISTING_CHARS characters and MAX_LISTING_WORDS words of a listing are read.
 */
import { searchTokens } from '../catalog/search.ts';
import { foldDigits, normalizeText } from '../lib/text.ts';

/** Longer listings are read up to here: no perfume is named past it. */
export const MAX_LISTING_CHARS = 300;
/** Words of a listing considered for its name, after noise is set aside. */
export const MAX_LISTING_WORDS = 24;

export type ProductForm = 'full' | 'tester' | 'sample' | 'mini' | 'gift_set' | 'refill' | 'oil';

export interface ParsedListing {
  /** the words that name the perfume (house words included; gender words kept: some names hold them) */
  words: string[];
  /**
   * words said only after the name was over (after a size, a concentration or
   * a seller's word such as "New" or "Spray"): the seller's description
   */
  tail: ReadonlySet<string>;
  /** the words the seller wrote more than once ("Noir de Noir"): `words` holds each once */
  repeated: ReadonlySet<string>;
  /** words after a seller's " - " or "|": a description, whatever they are ("- Hypnotic Coffee & Vanilla") */
  described: ReadonlySet<string>;
  /** the concentration the listing states: edp, edt, edc, parfum, extrait, elixir, oil (the first of `concentrations`) */
  concentration: string | null;
  /**
   * every concentration stated, the most credible first: spelled out ("Eau de
   * Toilette") before abbreviated, then in the order stated (sellers write
   * "EDP … Parfum Spray" for one EDP, "Eau de Toilette … EDP Cologne" for one EDT)
   */
  concentrations: string[];
  /**
   * the phrases read as a concentration, strong or weak ("cologne", "perfume"):
   * some names contain them ("Dior Homme Cologne", "Aventus Cologne", "Le Male Le Parfum")
   */
  concentrationPhrases: string[][];
  /** the concentrations stated inside the name part, with their words ("Yara Elixir": elixir, or a name) */
  namePartConcentrations: { slug: string; tokens: string[] }[];
  /** the same, as one list of words */
  concentrationWords: string[];
  gender: 'men' | 'women' | null;
  size: { value: number; unit: 'ml' | 'oz' } | null;
  form: ProductForm;
  /** set when the listing is a product that carries a perfume's name but is not one */
  notPerfume: string | null;
  /** the seller's words set aside as saying nothing about which perfume it is */
  noise: string[];
}

/** Products that carry a perfume's name but are not the perfume. */
const NOT_PERFUME: [RegExp, string][] = [
  [/\b(deodorant|deo|antiperspirant|stick)\b|مزيل|مضاد للتعرق/, 'deodorant'],
  [
    /\b(body lotion|lotion|body milk|cream|creme|balm|body wash|body smoother|moisturi[sz]er|emulsion|shampoo|conditioner|cleanser|body oil|hair oil|face)\b|لوشن|كريم|بلسم|مرطب|شامبو|زيت شعر|زيت للشعر|زيت جسم/,
    'body care',
  ],
  [/\b(shower gel|bath|gel douche|soap)\b|شاور|صابون|جل استحمام/, 'bath product'],
  [/\b(after ?shave)\b|بعد الحلاقه|افتر شيف/, 'aftershave'],
  [
    /\b(hair mist|hair perfume|body mist|bodymist|mist|body spray|body splash|fragrance mist)\b|معطر شعر|عطر الشعر|عطر شعر|معطر الجسم|معطر جسم|بخاخ الجسم|بودي مست|بودي سبلاش|هير مست/,
    'hair or body mist',
  ],
  [/\b(candle|diffuser|reed|room spray|home fragrance|car freshener)\b|شمعه|شموع|معطر جو|فواحه/, 'home fragrance'],
  [
    /\b(gift card|gift wrap|wrapping|bag|(?<!in |with )pouch|case|atomizer|atomiser|funnel|empty bottle|empty|box only|packaging only|no bottle|empty box)\b|تغليف|كيس|بطاقه هديه|زجاجه فارغه|فارغه|فارغ|فاضي|فاضيه|علبه فقط|كرتون فقط/,
    'accessory or empty bottle',
  ],
  [
    /\b(bakhoor|bukhoor|incense|mabkhara|oud chips|wood chips)\b|بخور|مبخره|معمول|عود كمبودي|عود هندي|قطع عود/,
    'incense product',
  ],
  [/\bpheromones?\b|فيرومون/, 'pheromone'],
  [
    /\b(mini set|miniature set|minis set|mini gift set|\d+ ?piece set|\d+ ?pc set|variety set|coffret set)\b/,
    'set of several perfumes',
  ],
  [
    /\b(sampler|discovery set|discovery kit|sample set|sample kit|samples set|coffret decouverte|\d+ ?pcs|\d+ ?pieces)\b|مجموعه عينات|طقم عينات/,
    'sample kit of several perfumes',
  ],
];

/** What a listing that is not a perfume is said to be (MatchWhy `not_perfume`): each a phrase of its own. */
export const NOT_PERFUME_KINDS: readonly string[] = NOT_PERFUME.map(([, what]) => what);

/** Concentration phrases as folded token sequences; the longest is tried first. */
const STRONG: [string, string][] = [
  ['extrait de parfum', 'extrait'],
  // spellings shops write the concentrations with ("Extrait de Parfume", "Eau De Partum", "ELIXER")
  ['extrait de parfume', 'extrait'],
  ['extrait de perfume', 'extrait'],
  ['extrait de perfum', 'extrait'],
  ['extrait', 'extrait'],
  ['extract', 'extrait'],
  ['pure parfum', 'parfum'],
  ['eau de parfum', 'edp'],
  ['eau de perfume', 'edp'],
  ['leau de parfum', 'edp'],
  ['eau de parfume', 'edp'],
  ['eau de perfum', 'edp'],
  ['eau de parfun', 'edp'],
  ['eau du parfum', 'edp'],
  ['eau de parfums', 'edp'],
  ['eau de partum', 'edp'],
  ['edp', 'edp'],
  ['eau de toilette', 'edt'],
  ['eau du toilette', 'edt'],
  ['leau de toilette', 'edt'],
  ['eau de toilete', 'edt'],
  ['eau de toillete', 'edt'],
  ['eau de toillette', 'edt'],
  ['eau de toilet', 'edt'],
  // the "de" left out ("… 100 ml Eau Toilette Spray", "Eau Parfum")
  ['eau toilette', 'edt'],
  ['eau parfum', 'edp'],
  ['edt', 'edt'],
  ['eau de cologne', 'edc'],
  ['edc', 'edc'],
  ['parfum', 'parfum'],
  ['elixir', 'elixir'],
  ['elixer', 'elixir'],
  // "L'Elixir", "L Elixir": the article elided onto it (catalog/search.ts searchTokens)
  ['lelixir', 'elixir'],
  ['perfume oil', 'oil'],
  ['parfum oil', 'oil'],
  ['concentrated oil', 'oil'],
  ['attar', 'oil'],
  ['اكستريت دو بارفان', 'extrait'],
  ['اكستريت دي بارفان', 'extrait'],
  ['اكستريت دو بارفيوم', 'extrait'],
  ['اكستريت', 'extrait'],
  ['اكستريه دو بارفان', 'extrait'],
  ['اكستريه دي بارفان', 'extrait'],
  ['اكستريه', 'extrait'],
  ['او دو بارفان', 'edp'],
  ['او دي بارفان', 'edp'],
  ['او دو برفان', 'edp'],
  ['او دو بارفيوم', 'edp'],
  ['او دي بارفيوم', 'edp'],
  ['او دو برفيوم', 'edp'],
  ['ادو بارفان', 'edp'],
  ['ادو بارفيوم', 'edp'],
  // "بارفان" alone is "parfum" written in Arabic letters; "او دو بارفان" above is the EDP
  ['بارفان', 'parfum'],
  ['او دو تواليت', 'edt'],
  ['او دي تواليت', 'edt'],
  ['ادو تواليت', 'edt'],
  ['او دي تي', 'edt'],
  ['او دي بي', 'edp'],
  ['تواليت', 'edt'],
  ['او دو كولون', 'edc'],
  ['او دو كولونيا', 'edc'],
  ['او دي كولونيا', 'edc'],
  ['بارفيوم', 'parfum'],
  ['بيرفيوم', 'parfum'],
  ['برفيوم', 'parfum'],
  ['الكسير', 'elixir'],
  ['اليكسير', 'elixir'],
  ['اكسير', 'elixir'],
  ['دهن عود', 'oil'],
  ['دهن عطري', 'oil'],
  ['زيت عطري', 'oil'],
  ['دهن', 'oil'],
];
/**
 * Concentrations one word names in full ("Elixir", "الكسير", "Extrait"): stated as surely as a
 * spelled-out phrase. "Parfum" alone is often a seller's "Parfum Spray" after "EDP".
 */
const NAMED_ALONE = new Set(['elixir', 'extrait']);
/** Words shops use for any perfume: read as a concentration only by a name that holds them. */
const WEAK = ['cologne', 'perfume', 'perfumes', 'parfume', 'perfum', 'كولونيا', 'كولون'];

const PHRASES: { tokens: string[]; slug: string | null }[] = [
  ...STRONG.map(([p, slug]) => ({ tokens: searchTokens(p), slug })),
  ...WEAK.map((w) => ({ tokens: searchTokens(w), slug: null })),
].sort((a, b) => b.tokens.length - a.tokens.length);

/** Words that say who a perfume is for; kept among the words, since names hold them ("Pour Homme"). */
export const GENDER_WORDS: ReadonlyMap<string, 'men' | 'women'> = new Map(
  [
    ...[
      'him',
      'homme',
      'men',
      'mens',
      'man',
      'male',
      'masculine',
      'lui',
      'uomo',
      'للرجال',
      'رجالي',
      'رجال',
      'هوم',
      'اوم',
      'لوي',
      'مان',
      'مين',
    ].map((w) => [w, 'men'] as const),
    ...[
      'her',
      'femme',
      'women',
      'womens',
      'woman',
      'female',
      'feminine',
      'elle',
      'donna',
      'ladies',
      'lady',
      'للنساء',
      'نسائي',
      'نساء',
      'حريمي',
      'mujer',
      'هير',
      'ومن',
      'وومن',
      'ويمن',
      'فيم',
      'فام',
    ].map((w) => [w, 'women'] as const),
  ].map(([w, g]) => [normalizeText(w), g]),
);

/**
 * Words sellers use to describe or sell a perfume ("Sporty", "Energizing
 * Scent", "Luxury"): they never count against a match, but a name that holds
 * one ("Polo Fresh") is the better reading of a listing that says it.
 */
export const DESCRIPTORS: ReadonlySet<string> = new Set(
  [
    'sporty',
    'energizing',
    'energising',
    'invigorating',
    'vibrant',
    'luxury',
    'luxurious',
    'classic',
    'timeless',
    'seductive',
    'sensual',
    'elegant',
    'captivating',
    'irresistible',
    'refreshing',
    'aquatic',
    'woody',
    'spicy',
    'floral',
    'fruity',
    'official',
    'distributor',
    'authorized',
    'sole',
    'scent',
    'scents',
    'cologne',
    'colognes',
    'limited',
    'edition',
    'اديشن',
    'ايديشن',
    'ليمتد',
    'in',
    'with',
    'no',
    'new',
    'original',
    'collection',
    'men',
    'women',
    'unisex',
    'premium',
    'best',
    'seller',
    'popular',
    'rare',
    'discontinued',
    'vintage',
    'formula',
    'version',
    'bottle',
    'full',
    'size',
  ].map((w) => normalizeText(w)),
);

/** Words feeds add that say nothing about which perfume it is. */
export const NOISE: ReadonlySet<string> = new Set(
  [
    'perfume',
    'perfumes',
    'fragrance',
    'fragrances',
    'scent',
    'spray',
    'sprays',
    'boxes',
    'bottles',
    'vaporisateur',
    'vaporizer',
    'vapo',
    'natural',
    'brand',
    'nib',
    'nwob',
    'nwt',
    'box',
    'boxed',
    'unboxed',
    'sealed',
    'seald',
    'seal',
    'authentic',
    'genuine',
    'free',
    'shipping',
    'ship',
    'fast',
    'usa',
    'us',
    'tester',
    'testers',
    'sample',
    'samples',
    'vial',
    'vials',
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
    'unisex',
    'refillable',
    'refill',
    'splash',
    'dabber',
    'carded',
    'without',
    'cap',
    'gift',
    'set',
    'sale',
    'hot',
    'long',
    'lasting',
    'عطر',
    'عطور',
    'بخاخ',
    'اصلي',
    'اصليه',
    'تستر',
    'تيستر',
    'جديد',
    'جديده',
    'من',
    'مل',
    'ملي',
    'اونصه',
    'حجم',
    'للجنسين',
    'ماء',
    'عينه',
    'تقسيم',
    'بدون',
    'كرتون',
    'شحن',
    'مجاني',
    'عرض',
    'خاص',
    'الاصلي',
    'الاصدار',
    'اصدار',
    'طقم',
    'هديه',
    'ميني',
    'ريفيل',
    'ريفل',
    'رقم',
    'عبوه',
    'اعاده',
    'تعبيه',
  ].map((w) => normalizeText(w)),
);

const SIZE =
  /(\d+(?:[.,]\d+)?)\s*(ml|mls|milliliters?|millilitres?|fl\.?\s*oz\.?|oz\.?|ounces?|مل|ملي|مللي|ملل)(?=\s|$|[^\p{L}])/giu;
/** "3.3 / 3.4 oz": the first size of a pair */
const SIZE_PAIR = /(\d+(?:[.,]\d+)?)\s*\/\s*(?=\d+(?:[.,]\d+)?\s*(ml|oz|fl|مل))/giu;
/** a decimal left without its unit ("Karus 3.4 EDP"); not a dotted name such as "L.12.12" */
const BARE_DECIMAL = /(?<![\p{L}.\d])\d+[.,]\d+(?![.,]?\d)/gu;
/** a quantity of a product ("2x", "x2", "3 pack", "10pcs", "Lot of 12", "Set 2", "1 Vial"): not part of a name */
const QUANTITY =
  /\b\d+\s*x\b|\bx\s*\d+\b|\b\d+\s*(pack|pk|pcs?|pieces|vials?|samples?)\b|\b(lot|set)\s+(of\s+)?\d+\b(\s*x\b)?/gi;

/**
 * Arabic words or phrases said as themselves, not inside another word ("ميني" is in "ريمينيسينس"
 * and "مينيرالي"; `\b` knows no Arabic letter): spaces or the text's ends around them.
 */
const arabicWords = (alternatives: string) => new RegExp(`(?:^|\\s)(?:${alternatives})(?=\\s|$)`, 'u');
const AR_TESTER = arabicWords('تستر|تيستر|بدون كرتون');
const AR_SAMPLE = arabicWords('عينه|تقسيم');
const AR_REFILL = arabicWords('ريفيل|عبوه اعاده تعبئه');
const AR_SET = arabicWords('طقم|مجموعه هديه|بوكس هدايا');
const AR_MINI = arabicWords('ميني');

function formOf(folded: string, size: ParsedListing['size'], concentration: string | null): ProductForm {
  if (/\btesters?\b|\bunboxed\b|\bno box\b|\bwithout box\b/.test(folded) || AR_TESTER.test(folded)) return 'tester';
  if (/\b(samples?|vials?|decants?)\b/.test(folded) || AR_SAMPLE.test(folded)) return 'sample';
  if (/\brefills?\b/.test(folded) || AR_REFILL.test(folded)) return 'refill';
  if (/\b(gift set|set|coffret)\b/.test(folded) || AR_SET.test(folded)) return 'gift_set';
  const ml = size ? (size.unit === 'ml' ? size.value : size.value * 29.57) : null;
  if (
    /\b(mini|miniature|travel size|travel spray)\b/.test(folded) ||
    AR_MINI.test(folded) ||
    (ml !== null && ml <= 15)
  ) {
    // a vial or a sample said so is a sample, above: a small bottle is a miniature
    return 'mini';
  }
  if (concentration === 'oil') return 'oil';
  return 'full';
}

/** stands for a size or a number in the token stream: the name is over there */
const BREAK = 'zqbreakzq';
/** stands for a seller's " - " or "|": a description follows */
const DESCRIPTION = 'zqdescriptionzq';
/** seller's words that end the name when they follow it */
const BREAKING_NOISE = new Set(
  [
    'spray',
    'vaporisateur',
    'vaporizer',
    'sealed',
    'seald',
    'box',
    'nib',
    'tester',
    'sample',
    'vial',
    'brand',
    'by',
  ].map((w) => normalizeText(w)),
);
/**
 * Linking words ("for", "pour", "di", بور…): they neither name a perfume nor tell one from another,
 * nor start the name part of a listing ("de" and "by" are sellers' noise, set aside before).
 */
export const LINKING_WORDS: ReadonlySet<string> = new Set([
  'for',
  'pour',
  'the',
  'le',
  'la',
  'l',
  'and',
  'di',
  'du',
  'ال',
  'بور',
  'فور',
  'لو',
  'لي',
  'دي',
  'دو',
]);

/** Reads a listing title into its fields. */
export function parseListing(raw: string): ParsedListing {
  const text = foldDigits(raw.slice(0, MAX_LISTING_CHARS))
    // "Y*S*L", "D*G": letters starred apart to pass a marketplace's brand filter are one word
    .replace(/(?<![\p{L}\p{N}])\p{L}(?:\*\p{L})+(?![\p{L}\p{N}])/gu, (m) => m.replaceAll('*', ''))
    // "2.5 ozEau De Parfum": a unit written onto the next word
    .replace(/(\d\s*(?:ml|oz))(?=\p{Lu})/gu, '$1 ')
    .replace(SIZE_PAIR, ` ${BREAK} `);
  let size: ParsedListing['size'] = null;
  const withoutSize = text.replace(SIZE, (_m, n: string, unit: string) => {
    if (!size) {
      const value = Number(n.replace(',', '.'));
      const u = unit.toLowerCase();
      size = { value, unit: /oz|ounce/.test(u) ? 'oz' : 'ml' };
    }
    return ` ${BREAK} `;
  });
  const folded = ` ${normalizeText(withoutSize.replaceAll(BREAK, ' '))} `;
  let notPerfume: string | null = null;
  for (const [re, what] of NOT_PERFUME) {
    if (re.test(folded)) {
      notPerfume = what;
      break;
    }
  }

  const tokens = searchTokens(
    withoutSize
      // " - Timeless", " | Lychee, white flowers", " ~ ": what follows is the seller's
      .replace(/\s[-–—|~]+\s|[|~]/g, ` ${DESCRIPTION} `)
      .replace(QUANTITY, ' ')
      // "100% original"
      .replace(/\d+\s*%/g, ' ')
      // "in white box", "plain box": a tester's packaging, not a white flanker
      .replace(/\b(white|plain|brown)\s+box(es)?\b/gi, ' box ')
      .replace(BARE_DECIMAL, ` ${BREAK} `),
  );
  // "(m)", "(w)": a retailer's gender marker
  const marker = /\((m|w)\)/i.exec(withoutSize)?.[1]?.toLowerCase();
  const noise: string[] = [];
  const concentrationPhrases: string[][] = [];
  const namePartConcentrations: { slug: string; tokens: string[] }[] = [];
  const concentrations: string[] = [];
  const spelledOut = new Set<string>();
  let concentration: string | null = null;
  let gender: 'men' | 'women' | null = null;
  const words: string[] = [];
  const repeated = new Set<string>();
  const tail = new Set<string>();
  const nameWords = new Set<string>();
  const addWord = (t: string) => {
    const g = GENDER_WORDS.get(t);
    if (g) gender = gender && gender !== g ? null : g;
    else if (!LINKING_WORDS.has(t) && !DESCRIPTORS.has(t)) named = true;
    if (words.length >= MAX_LISTING_WORDS) return;
    // a word said twice is said once ("Omnia Coral by Bvlgari Omnia Coral"), and known as repeated
    if (words.includes(t)) {
      repeated.add(t);
      if (!inTail) nameWords.add(t);
      return;
    }
    words.push(t);
    (inTail ? tail : nameWords).add(t);
    if (inDescription) described.add(t);
  };
  // the name comes first; once a size, a concentration or a seller's word follows it, the
  // rest is the seller's description ("… 4.2 oz EDT Sophisticated Men's Cologne")
  let named = false;
  let inTail = false;
  let inDescription = false;
  const described = new Set<string>();
  for (let i = 0; i < tokens.length; ) {
    if (tokens[i] === BREAK || tokens[i] === DESCRIPTION) {
      if (named) inTail = true;
      if (named && tokens[i] === DESCRIPTION) inDescription = true;
      i++;
      continue;
    }
    // "Le Parfum" names a flanker (Idôle Le Parfum, Le Male Le Parfum), not a concentration
    if (tokens[i] === 'le' && tokens[i + 1] === 'parfum') {
      for (const t of ['le', 'parfum']) addWord(t);
      i += 2;
      continue;
    }
    const phrase = PHRASES.find((p) => p.tokens.every((t, k) => tokens[i + k] === t));
    if (phrase) {
      if (phrase.slug && !concentrations.includes(phrase.slug)) {
        // spelled out ("Eau de Toilette", "Elixir", "الكسير") before abbreviated or short ("EDP"
        // in a seller's keyword list, "Parfum Spray"), then the first stated
        const spelled = phrase.tokens.length > 1 || NAMED_ALONE.has(phrase.slug);
        const at = spelled ? concentrations.findIndex((c) => !spelledOut.has(c)) : -1;
        if (at === -1) concentrations.push(phrase.slug);
        else concentrations.splice(at, 0, phrase.slug);
        if (spelled) spelledOut.add(phrase.slug);
        concentration = concentrations[0] ?? null;
      }
      // a phrase inside the name may belong to it ("Dior Homme Cologne"); one in the description does not
      if (!inTail) {
        concentrationPhrases.push(phrase.tokens);
        if (phrase.slug) namePartConcentrations.push({ slug: phrase.slug, tokens: phrase.tokens });
      }
      i += phrase.tokens.length;
      if (named) inTail = true;
      continue;
    }
    const t = tokens[i] as string;
    i++;
    // barcodes, years and stock numbers: long runs of digits name no perfume
    if (NOISE.has(t) || /^\d{5,}$/.test(t)) {
      noise.push(t);
      if (named && BREAKING_NOISE.has(t)) inTail = true;
      continue;
    }
    addWord(t);
  }
  // a word also said in the name part is a name word
  for (const w of nameWords) {
    tail.delete(w);
    described.delete(w);
  }
  if (!gender && marker) gender = marker === 'm' ? 'men' : 'women';
  const form = formOf(folded, size, concentration);
  return {
    words,
    repeated,
    tail,
    described,
    concentration,
    concentrations,
    concentrationPhrases,
    namePartConcentrations,
    concentrationWords: concentrationPhrases.flat(),
    gender,
    size,
    form,
    notPerfume,
    noise,
  };
}
