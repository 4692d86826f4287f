/**
 * Text folding shared by the vocabulary, the catalog search and the matcher.
 * Pure functions, no dependencies: the widget bundles this file too.
 */

const ARABIC_DIACRITICS = /[\u0610-\u061A\u064B-\u065F\u0670\u06D6-\u06DC\u06DF-\u06E8\u06EA-\u06ED]/g;
const TATWEEL = /\u0640/g;

/** Arabic-Indic (٠–٩) and Extended Arabic-Indic (۰–۹) digits to ASCII. */
export function foldDigits(s: string): string {
  return s.replace(/[\u0660-\u0669\u06F0-\u06F9]/g, (d) => String((d.charCodeAt(0) & 0xf) % 10));
}

/**
 * Arabic spelling variants shops use interchangeably: diacritics and tatweel
 * removed; alef forms (أ إ آ ٱ) → ا; alef maqsura ى → ي; ta marbuta ة → ه;
 * hamza seats ؤ → و and ئ → ي, a lone hamza ء dropped; Persian ک ی → ك ي.
 */
export function foldArabic(s: string): string {
  return s
    .replace(ARABIC_DIACRITICS, '')
    .replace(TATWEEL, '')
    .replace(/[أإآٱ]/g, 'ا')
    .replace(/ى/g, 'ي')
    .replace(/ة/g, 'ه')
    .replace(/ؤ/g, 'و')
    .replace(/ئ/g, 'ي')
    .replace(/ء/g, '')
    .replace(/ک/g, 'ك')
    .replace(/ی/g, 'ي');
}

/**
 * Latin folding: accents removed (é → e, ï → i), lower case, `&` → and,
 * apostrophes dropped (L'Homme → lhomme), other punctuation → space.
 */
export function foldLatin(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[øØ]/g, 'o')
    .replace(/[æÆ]/g, 'ae')
    .replace(/œ/g, 'oe')
    .replace(/&/g, ' and ');
}

/**
 * The normal form everything is compared in: both foldings, Arabic and ASCII
 * digits alike, apostrophes dropped, other punctuation a space, one space
 * between words, trimmed.
 */
export function normalizeText(s: string): string {
  return foldArabic(foldDigits(foldLatin(s)))
    .replace(/['’‘`´ʼ]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .replace(/\s+/g, ' ');
}

export function tokenize(s: string): string[] {
  const n = normalizeText(s);
  return n ? n.split(' ') : [];
}

export const hasArabic = (s: string): boolean => /[\u0600-\u06FF]/.test(s);
