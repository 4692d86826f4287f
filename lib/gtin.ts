/**
 * Barcodes (GTIN-8, UPC-A, EAN-13, GTIN-14) as shops send them. Pure.
 *
 * A barcode is checked by its check digit and keyed as its GTIN-14 (zeros in front), so the UPC-A
 * "012345678905" and the EAN-13 "0012345678905" of one bottle are one key. A shop's own in-store
 * code (restricted circulation: EAN prefixes 02, 04 and 20–29, GTIN-8 prefixes 0 and 2) names
 * nothing outside that shop and is never read as the bottle's.
 */

/** Longest barcode text read at all: a GTIN is 14 digits, with room for spaces and hyphens. */
export const MAX_BARCODE_TEXT = 40;

/** A GTIN's check digit holds (GTIN-8, UPC-A 12, EAN-13, GTIN-14). */
export function validGtin(code: string): boolean {
  if (!/^(\d{8}|\d{12,14})$/.test(code)) return false;
  const digits = [...code].map(Number);
  const check = digits.pop() as number;
  let sum = 0;
  for (let i = digits.length - 1, w = 3; i >= 0; i--, w = 4 - w) sum += (digits[i] as number) * w;
  return (10 - (sum % 10)) % 10 === check;
}

/** The key one bottle's barcode has in every form: its GTIN-14. */
export const gtinKey = (code: string): string => code.padStart(14, '0');

/** Whether a valid code is a shop's own in-store number rather than a global trade item number. */
function inStore(code: string): boolean {
  if (code.length === 8) return code[0] === '0' || code[0] === '2';
  const ean = gtinKey(code).slice(1);
  return ean[0] === '2' || ean.startsWith('02') || ean.startsWith('04');
}

export type ReadBarcode = { code: string } | { reason: string };

/**
 * A barcode as a shop sent it: its digits (spaces and hyphens between them dropped; a whole number
 * read as its digits), or why it is not one. Reading is bounded by MAX_BARCODE_TEXT characters.
 */
export function readBarcode(raw: unknown): ReadBarcode {
  let text: string;
  if (typeof raw === 'number') {
    if (!Number.isSafeInteger(raw) || raw <= 0) return { reason: 'is not a whole number of 8 to 14 digits' };
    text = String(raw);
  } else if (typeof raw === 'string') {
    if (raw.length > MAX_BARCODE_TEXT) return { reason: `is longer than ${MAX_BARCODE_TEXT} characters` };
    text = raw.replace(/[\s-]/g, '');
  } else return { reason: 'must be text or a whole number' };
  if (!/^\d+$/.test(text)) return { reason: 'has characters other than digits' };
  // a code sent as a number has lost its leading zeros (a UPC-A "0…" arrives as 11 digits): they are
  // put back, which changes neither its check digit nor its key
  if (typeof raw === 'number' && text.length < 12) text = text.padStart(text.length <= 8 ? 8 : 12, '0');
  if (!/^(\d{8}|\d{12,14})$/.test(text)) return { reason: 'is not 8, 12, 13 or 14 digits long' };
  if (/^0+$/.test(text)) return { reason: 'is all zeros' };
  if (!validGtin(text)) return { reason: 'fails its check digit' };
  if (inStore(text)) return { reason: "is a shop's own in-store code, not the bottle's barcode" };
  return { code: text };
}
