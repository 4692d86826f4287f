/**
 * What kind of product a shop's listing is, as a Gulf perfume shop sells them: a spray (with its
 * concentration), a perfume oil, bakhoor or incense, oud wood to burn, a body or hair mist, a gift
 * set (with the kinds it holds where the listing names them), a decant or sample, or another thing
 * a perfume shop sells (a burner, a lotion, a candle). And whether the listing says it is
 * alcohol-free. Read from the listing's own words, Arabic or English; pure and bounded as
 * parseListing is (MAX_LISTING_CHARS of the listing are read), whose reading it takes when the
 * caller has one. docs/gulf-shelf.md.
 */
import { foldDigits, normalizeText } from '../lib/text.ts';
import { MAX_LISTING_CHARS, type ParsedListing, parseListing } from './parse.ts';

export const PRODUCT_KINDS = ['spray', 'oil', 'bakhoor', 'oud_wood', 'mist', 'gift_set', 'sample', 'other'] as const;
export type ProductKind = (typeof PRODUCT_KINDS)[number];

export interface KindReading {
  kind: ProductKind;
  /** a spray's or an oil's concentration as the listing states it (edp, edt, parfum…), else null */
  concentration: string | null;
  /** true when the listing says it holds no alcohol; null when it says nothing (never guessed) */
  alcoholFree: true | null;
  /** a gift set's kinds, as its listing names them (a spray and an oil, bakhoor…); empty otherwise */
  contents: ProductKind[];
}

/**
 * Arabic words said as themselves, with the prefixes Arabic writes onto a word (ال "the", و "and",
 * ب "with", ل "for", and their pairs): `\b` knows no Arabic letter.
 */
const ar = (alternatives: string) => new RegExp(`(?:^|\\s)(?:و|ب|ل|ف)?(?:ال|لل)?(?:${alternatives})(?=\\s|$)`, 'u');
const en = (alternatives: string) => new RegExp(`\\b(?:${alternatives})\\b`);

/** The listing's words (folded as every text the matcher reads) tell each kind. */
const SAMPLE = [en('samples?|vials?|decants?|decanted|tester vial'), ar('عينه|عينات|تقسيم|تقسيمه|تقاسيم|ديكانت')];
const SET = [
  en('gift ?sets?|sets?|coffrets?|gift box|giftbox|discovery (?:kit|set)|bundle|collection box|kit|trio|duo|hamper'),
  // not a bare "سيت": "Sun Set" is a perfume's name
  ar('طقم|اطقم|مجموعه|مجموعات|بوكس|بوكسات|بكج|باكج|باقه|هديه فاخره|صندوق|سيت هدايا|سيت هديه|جيفت سيت|جفت سيت|كيت'),
];
const OTHER = [
  en(
    'hair oil|body oil|body powder|powder|gel|mouthwash|linen spray|lilfrash|burners?|mabkhara|censers?|lotion|body lotion|cream|creme|deodorant|deo|antiperspirant|candles?|diffuser|reed|room spray|home fragrance|car (?:freshener|perfume|fragrance)|air freshener|soap|shower gel|body wash|shampoo|empty bottle|atomi[sz]er|funnel|pouch|bag|wrapping|gift card|charcoal|coal',
  ),
  ar(
    'مبخره|مباخر|لوشن|كريم|بودره|جل|غسول|زيت الجسم|زيت للجسم|زيت الشعر|معطر الارضيات|معطر المنازل|معطر المنزل|معطر للغرفه|معطر الغرفه|معطر غرف|ملطف جو|موزع|مزيل|مزيل عرق|مضاد للتعرق|شمعه|شموع|معطر جو|معطر مفارش|معطر سياره|معطر للسياره|فواحه|صابون|شاور|شامبو|فحم|جمر|زجاجه فارغه|علبه فارغه|تغليف|كيس|بطاقه',
  ),
];
const MIST = [
  en(
    'hair ?mist|body mist|bodymist|hair perfume|perfumed hair ?mist|body spray|body splash|all over body|mists?|splash|hair spray|brume',
  ),
  ar(
    'معطر شعر|معطر الشعر|معطر للشعر|عطر شعر|عطر الشعر|عطر للشعر|للشعر|الشعر والجسم|الشعروالجسم|رذاذ الشعر|رذاذ للشعر|رذاذ الجسم|رذاذ عطري للجسم|عطر الجسم|عطر للجسم|بخاخ للجسم|معطر جسم|معطر الجسم|معطر للجسم|بخاخ الجسم|بخاخ جسم|بودي مست|بودي ميست|بودي سبلاش|هير مست|هير ميست|ميست|سبلاش|معطر شعر وجسم',
  ),
];
/** burnt for its smoke: bakhoor, incense, moattar and mabthooth pastes */
const BAKHOOR = [
  en(
    'bakhoor|bakhour|bukhoor|bukhour|bakhur|incense|dukhoon|dukhon|mamool|maamoul|mabthoth|mabthooth|agarbatti|oud sticks?',
  ),
  ar('بخور|بخورات|معمول|مبثوث|دخون|بخور معطر|جمرات|عيدان بخور'),
];
/** oud wood to burn: chips and pieces, by their origin or said as wood */
const OUD_WOOD = [
  en(
    // not a bare "oud wood": a perfume's name (Tom Ford's); sold by weight, it is wood (WOOD_BY_WEIGHT)
    '(?:agarwood|agar wood|aloeswood) (?:wood|chips?|pieces?|sticks?)|oud (?:wood )?(?:chips?|pieces?|sticks?)|wood chips|(?:cambodian|cambodi|indian|hindi|malaysian|laotian|burmese|seufi|siyufi|thai|papua|merauke|borneo|kalimantan) (?:oud|wood)|oud (?:cambodi|hindi|malaysi|siufi|seufi|muruke|mroke)',
  ),
  ar(
    'عود (?:معطر|مبخر|طبيعي|كمبودي|هندي|ماليزي|لاوسي|بورمي|سيوفي|تايلندي|مروكي|موروكي|كلمنتان|بورنيو|بابوا|فيتنامي|سريلانكي|قطع|خشب|للتبخير|تبخير|نخب|فاخر للتبخير)|قطع عود|خشب عود|عود الكمبودي|عود الهندي|العود الكمبودي|العود الهندي|العود الطبيعي|عود طبيعي',
  ),
];
/** worn on the skin as an oil: said so */
const OIL = [
  en(
    '(?:perfume|parfum|fragrance|concentrated|essential|oud|musk|body) oils?|oils?|dehn|dahn|dehen|roll ?on|roller|mukhallat oil',
  ),
  ar('دهن|دهن عود|دهون|زيت|زيوت|زيت عطري|عطر زيتي|عطور زيتيه|زيتي|رول|رول اون|رولون'),
];
/** words for an oil that are also the names of spray houses and lines ("Attar Collection", "Al Attar"): an oil unless a spray's concentration is stated */
const OIL_UNLESS_SPRAY = [en('attars?|ittars?|ittr|tola|tolas'), ar('عطار|عطر مركز|عطور مركزه|توله|تولات|تولا')];

/** said of a spray in either language */
const SPRAY_WORDS = [
  en('spray|vaporisateur|vapo|eau de parfum|eau de toilette|edp|edt|edc|parfum|extrait|perfume|cologne'),
  ar('بخاخ|سبراي|او دو|او دي|ماء عطر|بارفيوم|بارفان|تواليت|عطر'),
];

/** read on folded text, where "مائي" (water-based) is "مايي" */
const ALCOHOL_FREE = [
  en('alcohol ?free|non ?alcoholic|without alcohol|no alcohol|zero alcohol|0 ?alcohol|water based|oil based'),
  /(?:^|\s)(?:بدون|بلا|خالي من|خاليه من|خال من|غير)\s+(?:ال)?كحول(?:يه|ي)?(?=\s|$)|(?:^|\s)مايي(?:ه)?(?=\s|$)/u,
];

/** sold by weight (grams, ounces, tolas), as wood and bakhoor are: never a spray's millilitres; a pack's count may lead ("3x25g") */
const WEIGHT =
  /(?:^|\s)(?:(?:\d+\s?x\s?)?\d+(?:[.,]\d+)?\s?(?:g|gm|gms|gr|grams?|tl|tola|tolas|oz wt|جم|جرام|غرام|غ|اوقيه|توله|تولات)|(?:ربع|نص|نصف|ثمن) (?:كيلو|توله|اوقيه)|كيلو)(?=\s|$)/u;
/** oud wood named as such: mubakhar (smoked), moattar (perfumed), by its name alone when sold by weight */
const WOOD_BY_WEIGHT = /\b(?:oud|moattar|muattar|mtr|mubakh\w*|maattar)\b|(?:^|\s)(?:ال)?عود(?=\s|$)/u;
/** "7 × 2 ml", "2 مل × 13", "4X2مل", "1.5مل *2": several small bottles, a sampler */
const SAMPLER = /discovery|ديسكفري|ديسكوفري|sampler/u;
/** the bottles' size in "7 × 2 ml", "2 مل × 13", "4X2مل", "5مل*3": 3 ml or less a sampler, more a set */
const SEVERAL = [/\d\s?[x×*]\s?(\d+(?:[.,]\d+)?)\s?(?:ml|مل)/u, /(\d+(?:[.,]\d+)?)\s?(?:ml|مل)\s?[x×*]\s?\d/u];
/** a box or set of samples ("مجموعة عينات", "sample set") */
const SAMPLE_BOX = [
  en('(?:samples?|vials?|decants?) (?:set|kit|box|collection)|(?:set|box|kit) of (?:samples|vials|decants)'),
  ar('(?:مجموعه|صندوق|طقم|بوكس|علبه) (?:عينات|العينات|تقاسيم)'),
];
/** two products or more, each with its size, joined: "EDP 100 ml + body lotion 150 ml" */
const JOINED = /(?:\+|(?:^|\s)(?:و|مع|with|and|&)(?=\s))/u;
const SIZES = /\d+(?:[.,]\d+)?\s?(?:ml|مل|ملي)(?![\p{L}])/gu;

/** the concentrations only a spray is sold in */
const SPRAY_CONCENTRATIONS: ReadonlySet<string> = new Set(['edp', 'edt', 'edc', 'parfum', 'extrait', 'elixir']);

const said = (patterns: readonly RegExp[], text: string) => patterns.some((p) => p.test(text));

/** The kinds a gift set's listing names: its perfumes, oils, bakhoor, mists and wood. */
function contentsOf(text: string): ProductKind[] {
  const named: [ProductKind, readonly RegExp[]][] = [
    ['spray', SPRAY_WORDS],
    ['oil', [...OIL, ...OIL_UNLESS_SPRAY]],
    ['bakhoor', BAKHOOR],
    ['oud_wood', OUD_WOOD],
    ['mist', MIST],
    ['other', OTHER],
  ];
  return named.filter(([, patterns]) => said(patterns, text)).map(([kind]) => kind);
}

/**
 * The kind of product a listing is. The order is the order of what a word can only mean: a
 * decant of an EDP is a decant; a set holding an oil is a set; a burner for bakhoor is a burner;
 * a hair mist named after a perfume is a mist; an oud oil is an oil, not oud wood.
 */
export function productKind(title: string, parsed: ParsedListing = parseListing(title)): KindReading {
  const listing = title.slice(0, MAX_LISTING_CHARS);
  const text = normalizeText(listing);
  // the raw listing keeps what folding drops: "+", "×", "*"
  const raw = foldDigits(listing).toLowerCase();
  const alcoholFree = said(ALCOHOL_FREE, text) ? true : null;
  const reading = (kind: ProductKind, contents: ProductKind[] = []): KindReading => ({
    kind,
    concentration: kind === 'spray' || kind === 'sample' ? spokenConcentration(parsed) : null,
    alcoholFree,
    contents,
  });
  const sizes = raw.match(SIZES)?.length ?? 0;
  const perfumeSaid = /^(?:عطر|تستر عطر|perfume)(?:\s|$)/u.test(text);
  const sprayConcentration = SPRAY_CONCENTRATIONS.has(parsed.concentration ?? '');
  const bottles = SEVERAL.map((p) => p.exec(raw)?.[1]).find((m) => m !== undefined);
  const bottleMl = bottles === undefined ? null : Number(bottles.replace(',', '.'));
  if (SAMPLER.test(raw) || said(SAMPLE_BOX, text) || (bottleMl !== null && bottleMl <= 3)) return reading('sample');
  if (said(SET, text) || parsed.form === 'gift_set' || bottleMl !== null || (sizes >= 2 && JOINED.test(raw)))
    return reading('gift_set', contentsOf(text));
  if (said(SAMPLE, text) || parsed.form === 'sample') return reading('sample');
  if (said(OTHER, text)) return reading('other');
  if (said(MIST, text)) return reading('mist');
  // a spray named after an oil or bakhoor ("Dehn Al Oud EDP", "Montale Bakhoor Eau de Parfum")
  if (sprayConcentration) return reading('spray');
  if (said(OIL, text) && !said(BAKHOOR, text)) return reading('oil');
  // bakhoor is sold by weight: "a perfume … bakhoor 200 ml" is a perfume named so
  if (said(BAKHOOR, text) && !(sizes > 0 && (perfumeSaid || !WEIGHT.test(text)))) return reading('bakhoor');
  if (said(OUD_WOOD, text) || (WEIGHT.test(text) && sizes === 0 && WOOD_BY_WEIGHT.test(text)))
    return reading('oud_wood');
  // a tola is a weight oud wood is sold by too: wood is read first
  if (said(OIL_UNLESS_SPRAY, text)) return reading('oil');
  return reading('spray');
}

function spokenConcentration(parsed: ParsedListing): string | null {
  const c = parsed.concentration;
  return c === 'oil' ? null : c;
}
