/**
 * "Inspired by" claims in shops' listings (docs/catalog.md "Inspired by,
 * harvested"): a listing that sells one perfume as the answer to another
 * ("بديل عطر سوفاج", "inspired by Aventus", "es un dupe de Delina de
 * Parfums de Marly") names two perfumes. Pure: a text in, the claim's two
 * parts out; offline tooling, never run on a request.
 *
 * Only a plain statement is a claim: a sentence that denies one ("no es un
 * dupe", "not a clone") or only compares ("se le compara", "reminiscent of",
 * "similar to") is none.
 */
import { normalizeText } from '../../lib/text.ts';

/** The words that say a perfume is sold as the answer to another, in the languages shops write. */
const MARKER = new RegExp(
  [
    // Arabic: "بديل متقن لعطر", "بديل عطر", "مستوحى من عطر"
    'بديل(?:\\s+متقن)?(?:\\s+لعطر|\\s+عطر)?',
    'مستوح[ىي]\\s+من(?:\\s+عطر)?',
    // English
    '\\binspired\\s+by\\b',
    '\\b(?:an?\\s+)?alternative\\s+to\\b',
    '\\b(?:dupe|clone|impression|twin)\\s+(?:of|for)\\b',
    // Spanish, Portuguese, French
    '\\binspirad[oa]s?\\s+(?:en|em)\\b(?:\\s+(?:el|la|o|a)\\s+perfume(?:\\s+de)?)?',
    '\\b(?:dupe|clon|clone|copia)\\s+(?:o\\s+\\w+\\s+)?(?:de|del)\\b(?:\\s+perfume(?:\\s+de\\s+diseñador)?)?',
    '\\balternativa\\s+(?:a|al)\\b',
    '\\binspir[ée]e?s?\\s+(?:de|par)\\b',
  ].join('|'),
  'iu',
);

/** A sentence that denies or only compares is no claim. */
const NOT_A_CLAIM =
  /\b(?:no|not|isn't|nor|ni|sin|never|nunca|compar\w*|similar\w*|recuerda\w*|reminiscent|vibe|parecid\w*|semejan\w*|like a|a menudo|often|suele\w*|style)\b|ليس|لا يعتبر|يشبه/iu;

/** Where the original's name ends: a bracket, a dash with spaces, a bar, a size, a sentence's end, another "عطر". */
const ORIGINAL_END =
  /[)(\]|.;!?؟\n،,]|\s[-–—]\s|[\s-]\d+(?:[.,]\d+)?\s*(?:ml|مل|م)(?!\p{L})|\sعطر\s|\s(?:y|and|o|or|و)\s/iu;

/** The most words an original's name is read from: a house and a line, with a concentration. */
export const MAX_ORIGINAL_WORDS = 8;
/** The most characters of a text read for a claim: a listing's title and the start of its description. */
export const MAX_CLAIM_TEXT = 2_000;

export interface InspiredClaim {
  /** the text naming the perfume sold: the listing with the claim taken out */
  alternative: string;
  /** the text naming the perfume it is sold as the answer to */
  original: string;
  /** the sentence that makes the claim, as written */
  said: string;
}

/**
 * The claim a text makes, or null when it makes none. The original is the
 * words after the marker, up to where a name ends (at most
 * MAX_ORIGINAL_WORDS); the alternative is the rest of the sentence.
 */
export function splitInspiredClaim(text: string): InspiredClaim | null {
  const bounded = text.slice(0, MAX_CLAIM_TEXT);
  for (const sentence of bounded.split(/(?<=[.!?؟])\s+|\n+/u)) {
    const m = MARKER.exec(sentence);
    if (!m) continue;
    if (NOT_A_CLAIM.test(sentence)) continue;
    const after = sentence.slice(m.index + m[0].length);
    const end = ORIGINAL_END.exec(after);
    const original = (end ? after.slice(0, end.index) : after)
      .trim()
      .split(/\s+/)
      .slice(0, MAX_ORIGINAL_WORDS)
      .join(' ')
      .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}'’]+$/gu, '');
    if (normalizeText(original) === '') continue;
    const rest = end ? after.slice(end.index) : '';
    const alternative = `${sentence.slice(0, m.index)} ${rest}`
      .replace(/[()[\]]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    return { alternative, original, said: sentence.trim().slice(0, 600) };
  }
  return null;
}
