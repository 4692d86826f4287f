import { type CountryCode, getCountries, parsePhoneNumberWithError } from 'libphonenumber-js/max';

/** The country a number without one (a local "05…") is read in, unless the merchant sets another. */
export const DEFAULT_PHONE_COUNTRY = 'SA';

const COUNTRIES = new Set<string>(getCountries());
export const isPhoneCountry = (c: string): c is CountryCode => COUNTRIES.has(c);

/**
 * Arabic-Indic (٠-٩) and Persian (۰-۹) digits as Latin ones, and the marks a
 * right-to-left field or a paste leaves around them (LRM, RLM, bidi embeddings
 * and isolates, no-break spaces) removed. The widget does the same
 * (widget/phone.ts).
 */
export function foldDigits(input: string): string {
  return input
    .replace(/[\u0660-\u0669]/g, (d) => String(d.charCodeAt(0) - 0x0660))
    .replace(/[\u06f0-\u06f9]/g, (d) => String(d.charCodeAt(0) - 0x06f0))
    .replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/[\u00a0\u202f]/g, ' ');
}

/** what a phone may be written with once folded: a leading + or 00, digits, spaces, dashes, dots, brackets */
const WRITTEN = /^\+?[0-9][0-9 ().-]*$/;
export const MAX_PHONE_INPUT = 40;

/**
 * A phone number as typed, in E.164 (`+966501234567`), or null when it is not
 * a valid number: any of the digits above, spaces, dashes, dots and brackets,
 * a leading `+` or `00` for the country code; a number without one (a Saudi
 * `05…`) is read in `country`. Letters, extensions and numbers the country's
 * numbering plan does not hold are refused (libphonenumber-js, full metadata).
 */
export function toE164(input: string, country: string = DEFAULT_PHONE_COUNTRY): string | null {
  if (input.length > MAX_PHONE_INPUT) return null;
  const folded = foldDigits(input).trim().replace(/^00/, '+');
  if (!WRITTEN.test(folded)) return null;
  try {
    const parsed = parsePhoneNumberWithError(folded, isPhoneCountry(country) ? country : DEFAULT_PHONE_COUNTRY);
    return parsed.isValid() && !parsed.ext ? parsed.number : null;
  } catch {
    return null;
  }
}
