/**
 * The lead form's phone check, light enough for the widget's byte budget:
 * Arabic-Indic (٠-٩) and Persian (۰-۹) digits folded to Latin, direction marks
 * removed, a leading 00 read as +, and the shape of a number checked (7 to 15
 * digits, with spaces, dashes, dots, brackets). The server reads the number in
 * full (libphonenumber-js, lib/phone.ts) and answers `invalid_phone` when it is
 * none; the form shows its own words for both.
 */
export function foldPhone(input: string): string {
  return input
    .replace(/[\u0660-\u0669]/g, (d) => String(d.charCodeAt(0) - 0x0660))
    .replace(/[\u06f0-\u06f9]/g, (d) => String(d.charCodeAt(0) - 0x06f0))
    .replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/[\u00a0\u202f]/g, ' ')
    .trim()
    .replace(/^00/, '+');
}

/** Whether a folded phone looks like a number worth sending */
export function phoneShapeOk(folded: string): boolean {
  if (!/^\+?[0-9][0-9 ().-]*$/.test(folded)) return false;
  const digits = folded.replace(/\D/g, '').length;
  return digits >= 7 && digits <= 15;
}
