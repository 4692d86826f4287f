/**
 * The widget's words, Arabic first. Quiz options come from the shared
 * vocabulary (vocabulary/index.ts) with their own Arabic and English labels;
 * this file holds only the interface sentences.
 */
import { ACCORDS, CONCENTRATIONS, FAMILIES, OCCASIONS, PRODUCT_KIND_TERMS, SEASONS } from '../vocabulary/index.ts';

export type Locale = 'ar' | 'en';

/** Version of the lead consent wording below; sent with every lead so the merchant knows what was agreed to. */
export const CONSENT_VERSION = '2026-11-v1';

/** A whole number in Arabic-Indic digits, as the widget's Arabic prices and percentages are. */
const d = (n: number) => formatCount(n, 'ar');
/** Arabic's plural forms (zero, one, two, few, many, other), from Intl; `other` where a form is not given. */
const arPlural = new Intl.PluralRules('ar');
const plural = (n: number, forms: Partial<Record<Intl.LDMLPluralRule, string>> & { other: string }) =>
  forms[arPlural.select(n)] ?? forms.other;

const ar = {
  launcher: 'اكتشف عطرك',
  title: 'اختبار العطر',
  close: 'إغلاق',
  intro: 'أجب عن أسئلة قصيرة لنرشّح لك عطوراً تناسب ذوقك من هذا المتجر.',
  start: 'ابدأ',
  next: 'التالي',
  back: 'رجوع',
  skip: 'تخطَّ',
  seeResults: 'أظهر النتائج',
  step: (n: number, of: number) => `الخطوة ${d(n)} من ${d(of)}`,
  perfumesQ: 'ما العطور التي تحبها؟',
  perfumesHint: 'اختياري. اكتب اسم عطر تحبه، بالعربية أو بالإنجليزية، واختر حتى خمسة عطور.',
  perfumeName: 'اسم العطر',
  found: (n: number) =>
    plural(n, {
      zero: 'لا عطور',
      one: 'عطر واحد',
      two: 'عطران',
      few: `${d(n)} عطور`,
      many: `${d(n)} عطراً`,
      other: `${d(n)} عطر`,
    }),
  noPerfume: 'لم نجد عطراً بهذا الاسم.',
  searchFailed: 'تعذّر البحث الآن.',
  perfumesFull: 'اخترت خمسة عطور، وهذا أقصى ما يمكن. احذف واحداً لتضيف غيره.',
  added: (name: string) => `تمت إضافة ${name}`,
  remove: (name: string) => `احذف ${name}`,
  seeMatches: 'اعرض ما يناسبني',
  familiesQ: 'ما العائلات العطرية التي تحبها؟',
  familiesHint: 'اختر واحدة أو أكثر (حتى ثلاث).',
  familiesOptional: 'اختياري (حتى ثلاث).',
  loveQ: 'ما النفحات التي تعشقها؟',
  avoidQ: 'ما النفحات التي تتجنبها؟',
  optionalHint: 'اختياري.',
  seasonQ: 'في أي موسم ستضعه؟',
  occasionQ: 'لأي مناسبة؟',
  /** what lists are joined with: the Arabic comma in Arabic, the Latin one in English */
  comma: '، ',
  skipToQuiz: 'انتقل إلى اختبار العطور',
  genderQ: 'لمن هذا العطر؟',
  anyGender: 'لا يهم',
  genders: { women: 'للنساء', men: 'للرجال' },
  wearer: { men: 'رجالي', women: 'نسائي', unisex: 'للجنسين' },
  /** the gift path: the questions and the results speak of the one the gift is for */
  gifts: { him: 'هدية له', her: 'هدية لها', anyone: 'هدية لأي أحد' } as Record<string, string>,
  gift: {
    him: {
      perfumesQ: 'ما العطور التي يحبها؟',
      familiesQ: 'ماذا يحب؟',
      loveQ: 'ما النفحات التي يعشقها؟',
      avoidQ: 'ما النفحات التي يتجنبها؟',
      resultsTitle: 'اختيارات له',
    },
    her: {
      perfumesQ: 'ما العطور التي تحبها هي؟',
      familiesQ: 'ماذا تحب هي؟',
      loveQ: 'ما النفحات التي تعشقها هي؟',
      avoidQ: 'ما النفحات التي تتجنبها هي؟',
      resultsTitle: 'اختيارات لها',
    },
    anyone: {
      perfumesQ: 'ما العطور التي يحبها من ستهديه؟',
      familiesQ: 'ماذا يحب من ستهديه؟',
      loveQ: 'ما النفحات التي يعشقها من ستهديه؟',
      avoidQ: 'ما النفحات التي يتجنبها من ستهديه؟',
      resultsTitle: 'اختيارات لمن ستهديه',
    },
  } as Record<string, Partial<Record<'perfumesQ' | 'familiesQ' | 'loveQ' | 'avoidQ' | 'resultsTitle', string>>>,
  giftOccasionQ: 'لأي مناسبة الهدية؟',
  kindsQ: 'أي نوع تريد؟',
  alcoholFreeOnly: 'بدون كحول فقط',
  budgetQ: 'كم ميزانيتك؟',
  anyBudget: 'أي سعر',
  upTo: (p: string) => `حتى ${p}`,
  over: (p: string) => `${p} فأكثر`,
  extrasQ: 'ما الذي يهمك أيضاً؟',
  extras: { heat: 'يدوم في الحر', layer: 'أطبّق العطور معاً' } as Record<string, string>,
  /** a product's kind on its card, when it is not a spray */
  kind: {
    oil: 'دهن عطري',
    bakhoor: 'بخور',
    oud_wood: 'عود للتبخير',
    mist: 'معطر للشعر والجسم',
    gift_set: 'طقم هدية',
    sample: 'عينة',
  } as Record<string, string>,
  alcoholFree: 'بدون كحول',
  /** how long it lasts in heat: always an estimate, never a measure */
  heat: {
    long: 'يدوم طويلاً في الحر — تقدير',
    moderate: 'يدوم باعتدال في الحر — تقدير',
    short: 'يتلاشى سريعاً في الحر — تقدير',
  } as Record<string, string>,
  /** why, in a few words (the estimate's reasons) */
  heatWhy: {
    oil_on_skin: 'دهن على البشرة',
    smoke_on_clothes: 'دخان تحفظه الملابس',
    concentration_high: 'تركيز عالٍ',
    concentration_edp: 'أو دو بارفان',
    concentration_light: 'تركيز خفيف',
    concentration_unknown: 'تركيز غير مذكور',
    mist_light: 'معطر خفيف',
    heavy_base: 'قاعدة ثقيلة',
    volatile_profile: 'نفحات منعشة سريعة التطاير',
  } as Record<string, string>,
  layeringTitle: 'طبّقها معاً',
  how: {
    oil_on_skin: 'ضع الدهن على بشرتك أولاً:',
    smoke_clothes: 'بخّر ملابسك به أولاً:',
    spray_over: 'ثم رشّ فوقه:',
  } as Record<string, string>,
  alternativesTitle: (name: string) => `بدائل لعطر ${name}`,
  cheaper: (p: string) => `أرخص بـ ${p}`,
  dearer: (p: string) => `أغلى بـ ${p}`,
  anySeason: 'كل المواسم',
  anyOccasion: 'أي مناسبة',
  loading: 'نبحث عن أنسب العطور لك…',
  resultsTitle: 'عطور تناسب ذوقك',
  resultsCount: (n: number) =>
    plural(n, {
      zero: 'لم نجد ترشيحات',
      one: 'وجدنا ترشيحاً واحداً',
      two: 'وجدنا ترشيحين',
      few: `وجدنا ${d(n)} ترشيحات`,
      many: `وجدنا ${d(n)} ترشيحاً`,
      other: `وجدنا ${d(n)} ترشيح`,
    }),
  match: 'توافق',
  matched: 'نفحات مشتركة:',
  lovedSame: 'العطر الذي تحبه',
  lovedVersion: (name: string) => `إصدار آخر من ${name}`,
  because: (name: string) => `لأنك تحب ${name}`,
  inCommon: 'يشتركان في:',
  /** what a recommendation's profile rests on, when it is not the perfume's own reviewed one */
  basis: {
    unreviewed: 'لم نتحقق من نفحاته بعد',
    sibling: 'نفحاته من تركيز آخر منه',
    shops: 'كما تصفه المتاجر',
    described: 'كما يصفه المتجر',
    partial: 'كما يصفه المتجر',
    inspired: 'بنفحات العطر المستوحى منه',
    guessed: 'نفحاته مقدَّرة من اسمه',
  } as Record<string, string>,
  inspiredBy: (name: string) => `مستوحى من ${name}`,
  inOriginal: 'في العطر الأصلي:',
  forLess: (name: string) => `مثل ${name}، بسعر أقل`,
  lovedPerfumes: 'عطور تحبها',
  view: 'عرض المنتج',
  tasteTitle: 'ذوقك العطري',
  families: 'العائلات',
  loves: 'تحب',
  avoids: 'تتجنب',
  exploreTitle: 'جرّب شيئاً جديداً',
  weakerTitle: 'قريبة من ذوقك لكنها أضعف توافقاً',
  closestTitle: 'الأقرب إلى ذوقك في هذا المتجر',
  fit: { strong: 'توافق قوي', good: 'توافق جيد', weak: 'توافق أضعف' },
  suggested: 'توحي إجاباتك بـ',
  fewFit: (n: number) =>
    plural(n, {
      one: 'منتج واحد فقط في هذا المتجر يناسب إجاباتك.',
      two: 'منتجان فقط في هذا المتجر يناسبان إجاباتك.',
      few: `${d(n)} منتجات فقط في هذا المتجر تناسب إجاباتك.`,
      many: `${d(n)} منتجاً فقط في هذا المتجر يناسب إجاباتك.`,
      other: `${d(n)} منتج فقط في هذا المتجر يناسب إجاباتك.`,
    }),
  noneFit: 'لا شيء في هذا المتجر يناسب إجاباتك تماماً؛ هذه الأقرب إليها.',
  retake: 'أعد الاختبار',
  noResults: 'لم نجد منتجات مناسبة في هذا المتجر الآن.',
  relaxHint: 'جرّب أن تتجنب نفحات أقل، أو أن تختار عائلة عطرية أخرى.',
  leadTitle: 'أرسل لي هذه الترشيحات',
  leadTitleContact: 'أريد أن يتواصل معي المتجر',
  leadNoteEmail: 'سنرسل هذه الترشيحات إلى بريدك الإلكتروني.',
  leadNoteContact: 'سيتواصل معك المتجر بخصوص هذه الترشيحات.',
  leadEmail: 'البريد الإلكتروني',
  leadPhone: 'رقم الجوال (اختياري)',
  leadConsent: 'أوافق على أن يتواصل معي المتجر بخصوص هذه الترشيحات والعروض.',
  leadSend: 'أرسل',
  leadThanksEmail: 'شكراً! ستصلك الترشيحات على بريدك الإلكتروني قريباً.',
  leadThanksContact: 'شكراً! سيتواصل معك المتجر قريباً.',
  leadFailed: 'تعذّر الإرسال الآن.',
  leadNeedContact: 'اكتب بريدك الإلكتروني أو رقم جوالك.',
  leadBadPhone: 'رقم الجوال غير صحيح. اكتبه هكذا: ٠٥٠١٢٣٤٥٦٧ أو ‎+966501234567',
  leadBadEmail: 'البريد الإلكتروني غير صحيح.',
  leadCheck: 'تحقّق من البريد الإلكتروني ورقم الجوال.',
  testMode: 'وضع تجريبي',
  noPrice: '',
  kept: 'إجاباتك محفوظة.',
  slow: 'يستغرق الأمر وقتاً أطول من المعتاد.',
  failed: 'تعذّر عرض النتائج الآن.',
  busy: (wait: string) => `الخدمة مشغولة الآن، سنحاول مجدداً بعد قليل (${wait}).`,
  busyManual: (wait: string) => `الخدمة مشغولة الآن، يمكنك المحاولة مجدداً بعد قليل (${wait}).`,
  retry: 'أعد المحاولة',
  edit: 'عدّل إجاباتي',
};

const giftWords = (he: string, does: string, him: string) => ({
  perfumesQ: `Which perfumes ${does} ${he} love?`,
  familiesQ: `What ${does} ${he} like?`,
  loveQ: `Which notes ${does} ${he} love?`,
  avoidQ: `Which notes ${does} ${he} avoid?`,
  resultsTitle: `Picks for ${him}`,
});

const en: typeof ar = {
  launcher: 'Find your scent',
  title: 'Fragrance quiz',
  close: 'Close',
  intro: 'Answer a few short questions and we will suggest perfumes from this store that suit your taste.',
  start: 'Start',
  next: 'Next',
  back: 'Back',
  skip: 'Skip',
  seeResults: 'Show my results',
  step: (n, of) => `Step ${n} of ${of}`,
  perfumesQ: 'Which perfumes do you love?',
  perfumesHint: 'Optional. Type the name of a perfume you love, in English or Arabic; choose up to five.',
  perfumeName: 'Perfume name',
  found: (n) => (n === 1 ? '1 perfume found' : `${n} perfumes found`),
  noPerfume: 'No perfume found by that name.',
  searchFailed: 'Search is unavailable right now.',
  perfumesFull: 'You have chosen five perfumes, the most there can be. Remove one to add another.',
  added: (name) => `${name} added`,
  remove: (name) => `Remove ${name}`,
  seeMatches: 'See my matches',
  familiesQ: 'Which scent families do you like?',
  familiesHint: 'Pick one or more (up to three).',
  familiesOptional: 'Optional (up to three).',
  loveQ: 'Which notes do you love?',
  avoidQ: 'Which notes do you avoid?',
  optionalHint: 'Optional.',
  seasonQ: 'Which season is it for?',
  occasionQ: 'For which occasion?',
  comma: ', ',
  skipToQuiz: 'Skip to the fragrance quiz',
  genderQ: 'Who is it for?',
  anyGender: 'No preference',
  genders: { women: 'For women', men: 'For men' },
  wearer: { men: 'For men', women: 'For women', unisex: 'Unisex' },
  gifts: { him: 'A gift for him', her: 'A gift for her', anyone: 'A gift for anyone' },
  gift: {
    him: giftWords('he', 'does', 'him'),
    her: giftWords('she', 'does', 'her'),
    anyone: giftWords('they', 'do', 'them'),
  },
  giftOccasionQ: 'What is the gift for?',
  kindsQ: 'What kind?',
  alcoholFreeOnly: 'Alcohol-free only',
  budgetQ: 'What is your budget?',
  anyBudget: 'Any price',
  upTo: (p) => `Up to ${p}`,
  over: (p) => `${p} and over`,
  extrasQ: 'Anything else?',
  extras: { heat: 'Lasts in the heat', layer: 'I layer perfumes' },
  kind: {
    oil: 'Perfume oil',
    bakhoor: 'Bakhoor',
    oud_wood: 'Oud wood',
    mist: 'Body & hair mist',
    gift_set: 'Gift set',
    sample: 'Sample',
  },
  alcoholFree: 'Alcohol-free',
  heat: {
    long: 'Lasts long in heat — estimated',
    moderate: 'Lasts a while in heat — estimated',
    short: 'Fades fast in heat — estimated',
  },
  heatWhy: {
    oil_on_skin: 'an oil worn on the skin',
    smoke_on_clothes: 'smoke that clothes hold',
    concentration_high: 'a high concentration',
    concentration_edp: 'eau de parfum',
    concentration_light: 'a light concentration',
    concentration_unknown: 'concentration not stated',
    mist_light: 'a light mist',
    heavy_base: 'a heavy base',
    volatile_profile: 'bright notes that fly off',
  },
  layeringTitle: 'Layer them together',
  how: {
    oil_on_skin: 'First dab the oil on your skin:',
    smoke_clothes: 'First perfume your clothes with its smoke:',
    spray_over: 'Then spray over it:',
  },
  alternativesTitle: (name) => `Alternatives to ${name}`,
  cheaper: (p) => `${p} less`,
  dearer: (p) => `${p} more`,
  anySeason: 'All year',
  anyOccasion: 'Any occasion',
  loading: 'Finding the perfumes that suit you…',
  resultsTitle: 'Perfumes for your taste',
  resultsCount: (n) => (n === 0 ? 'No recommendations found' : n === 1 ? '1 recommendation' : `${n} recommendations`),
  match: 'match',
  matched: 'Shared notes:',
  lovedSame: 'The perfume you love',
  lovedVersion: (name) => `Another version of ${name}`,
  because: (name) => `Because you love ${name}`,
  inCommon: 'In common:',
  basis: {
    unreviewed: 'Notes not yet verified',
    sibling: 'Notes of another concentration of it',
    shops: 'As shops describe it',
    described: 'As the shop describes it',
    partial: 'As the shop describes it',
    inspired: 'Notes of the perfume it is inspired by',
    guessed: 'Notes guessed from its name',
  },
  inspiredBy: (name) => `Inspired by ${name}`,
  inOriginal: 'In the original:',
  forLess: (name) => `Like ${name}, for less`,
  lovedPerfumes: 'Perfumes you love',
  view: 'View product',
  tasteTitle: 'Your scent profile',
  families: 'Families',
  loves: 'You love',
  avoids: 'You avoid',
  exploreTitle: 'Step outside your comfort zone',
  weakerTitle: 'Close to your taste, but weaker matches',
  closestTitle: 'The closest to your taste in this store',
  fit: { strong: 'Strong match', good: 'Good match', weak: 'Weaker match' },
  suggested: 'Your answers suggest',
  fewFit: (n: number) =>
    n === 1
      ? 'Only one product in this store fits your answers.'
      : `Only ${n} products in this store fit your answers.`,
  noneFit: 'Nothing in this store fits your answers closely; these are the closest.',
  retake: 'Retake the quiz',
  noResults: 'We found no suitable products in this store right now.',
  relaxHint: 'Try avoiding fewer notes, or choosing another scent family.',
  leadTitle: 'Send me these picks',
  leadTitleContact: 'Have the shop contact me',
  leadNoteEmail: 'We will email these picks to you.',
  leadNoteContact: 'The shop will contact you about these picks.',
  leadEmail: 'Email',
  leadPhone: 'Mobile number (optional)',
  leadConsent: 'I agree that the store may contact me about these recommendations and offers.',
  leadSend: 'Send',
  leadThanksEmail: 'Thank you! Your picks will reach your inbox shortly.',
  leadThanksContact: 'Thank you! The shop will contact you soon.',
  leadFailed: 'Could not send right now.',
  leadNeedContact: 'Enter your email or mobile number.',
  leadBadPhone: 'That mobile number is not valid. Write it like 0501234567 or +966501234567',
  leadBadEmail: 'That email address is not valid.',
  leadCheck: 'Check your email and mobile number.',
  testMode: 'Test mode',
  noPrice: '',
  kept: 'Your answers are kept.',
  slow: 'This is taking longer than usual.',
  failed: 'We could not show your results right now.',
  busy: (wait) => `The service is busy right now; we will try again in ${wait}.`,
  busyManual: (wait) => `The service is busy right now; you can try again in ${wait}.`,
  retry: 'Try again',
  edit: 'Change my answers',
};

export const MESSAGES = { ar, en } as const;
export type Messages = typeof ar;

/** The accords the quiz offers: ones shoppers recognise, across every family. */
export const QUIZ_ACCORDS = [
  'citrus',
  'fresh',
  'aquatic',
  'green',
  'lavender',
  'floral',
  'rose',
  'white floral',
  'fruity',
  'sweet',
  'vanilla',
  'powdery',
  'warm spicy',
  'saffron',
  'woody',
  'sandalwood',
  'oud',
  'amber',
  'incense',
  'leather',
  'tobacco',
  'coffee',
  'musky',
] as const satisfies readonly (typeof ACCORDS)[number]['slug'][];

/** The occasions of the gift path, in this order: the region's own (ليالي رمضان, the majlis, Eid…). */
export const GIFT_OCCASIONS = [
  'daily',
  'office',
  'evening',
  'gathering',
  'wedding',
  'eid',
  'ramadan-nights',
  'travel',
] as const satisfies readonly (typeof OCCASIONS)[number]['slug'][];

/**
 * How many of a currency buy what one riyal buys, roughly, for the budget step's bands: the Gulf's
 * dinars and the Omani rial about ten riyals, the Jordanian dinar and the pound about five, the
 * dollar, euro and Swiss franc about four. The riyal, the dirham and any other currency: as written.
 */
const BAND_SCALE: Readonly<Record<string, number>> = {
  KWD: 0.1,
  BHD: 0.1,
  OMR: 0.1,
  JOD: 0.2,
  GBP: 0.2,
  USD: 0.25,
  EUR: 0.25,
  CHF: 0.25,
};

/** The budget step's price bands in the shop's currency (`min-max`, either side open): 200 and 500 riyals' worth. */
export function budgetBands(currency: string): string[] {
  const scale = BAND_SCALE[currency] ?? 1;
  const low = 200 * scale;
  const high = 500 * scale;
  return [`-${low}`, `${low}-${high}`, `${high}-`];
}

export interface Option {
  slug: string;
  label: string;
}
const labels = (terms: readonly { slug: string; en: string; ar: string }[], locale: Locale): Option[] =>
  terms.map((t) => ({ slug: t.slug, label: t[locale] }));

export function quizOptions(locale: Locale) {
  const accordLabel = new Map(ACCORDS.map((a) => [a.slug as string, a[locale]]));
  return {
    families: labels(FAMILIES, locale),
    accords: QUIZ_ACCORDS.map((slug) => ({ slug, label: accordLabel.get(slug) ?? slug })),
    seasons: labels(SEASONS, locale),
    occasions: labels(OCCASIONS, locale),
    kinds: labels(PRODUCT_KIND_TERMS, locale),
  };
}

/** Label of any accord, family or concentration slug a response carries (the slug itself when unknown). */
export function termLabel(kind: 'accord' | 'family' | 'concentration', slug: string, locale: Locale): string {
  const list: readonly { slug: string; en: string; ar: string }[] =
    kind === 'accord' ? ACCORDS : kind === 'family' ? FAMILIES : CONCENTRATIONS;
  return list.find((t) => t.slug === slug)?.[locale] ?? slug;
}

export function formatPrice(price: number | null, currency: string, locale: Locale): string {
  if (price === null || !Number.isFinite(price)) return '';
  try {
    return new Intl.NumberFormat(locale === 'ar' ? 'ar-SA' : 'en-SA', {
      style: 'currency',
      currency: currency || 'SAR',
      maximumFractionDigits: Number.isInteger(price) ? 0 : 2,
    }).format(price);
  } catch {
    return `${price} ${currency}`;
  }
}

/** "5 seconds", "٥ ثوانٍ": the language's own plural forms, from Intl. */
export function formatSeconds(seconds: number, locale: Locale): string {
  try {
    return new Intl.NumberFormat(locale === 'ar' ? 'ar-SA' : 'en', {
      style: 'unit',
      unit: 'second',
      unitDisplay: 'long',
    }).format(seconds);
  } catch {
    return `${seconds} s`;
  }
}

/** A count or a step number: Arabic-Indic digits in Arabic, like the prices and percentages beside it. */
export function formatCount(n: number, locale: Locale): string {
  return new Intl.NumberFormat(locale === 'ar' ? 'ar-SA' : 'en').format(n);
}

export function formatPercent(score: number, locale: Locale): string {
  return new Intl.NumberFormat(locale === 'ar' ? 'ar-SA' : 'en', { style: 'percent' }).format(score / 100);
}
