/**
 * A picture for a product that has none: its scent drawn from its accords'
 * colours, with its house and name set as words (whole words, so Arabic is
 * shaped and read right to left, never as isolated letters). Pure: the same
 * accords, house and name give the same bytes, so the picture is cached for
 * a year by its URL. No script, no external reference: only shapes and text,
 * every text escaped.
 */

/** A colour for every accord of the vocabulary, as a perfumer's swatch would show it. */
export const ACCORD_COLOURS: Record<string, string> = {
  citrus: '#f4c430',
  fresh: '#9ad1d4',
  'fresh spicy': '#8fbf7f',
  aromatic: '#6f9a6a',
  herbal: '#7a9e5b',
  lavender: '#9b87c9',
  mint: '#7fd1b9',
  green: '#5e9e4a',
  tea: '#a3b56b',
  aquatic: '#4aa3c9',
  marine: '#2f7ea8',
  ozonic: '#b7d8ea',
  salty: '#c9d6d9',
  mineral: '#9aa5a8',
  metallic: '#a8adb3',
  aldehydic: '#e8e6df',
  floral: '#e89ab5',
  'white floral': '#f3ede0',
  'yellow floral': '#f2d46b',
  rose: '#d9577a',
  iris: '#a99bc9',
  violet: '#7c5ba6',
  tuberose: '#f0e4cf',
  'orange blossom': '#f7d9a8',
  powdery: '#e9d3d8',
  fruity: '#e8743b',
  tropical: '#f29e4c',
  cherry: '#a8243a',
  coconut: '#f3efe6',
  sweet: '#f2a7c3',
  vanilla: '#f3e3b3',
  caramel: '#c9812f',
  honey: '#e0a526',
  chocolate: '#5b3a29',
  coffee: '#6b4530',
  almond: '#e6d2b5',
  nutty: '#a87b4f',
  lactonic: '#f5f0e1',
  boozy: '#8c2f39',
  'warm spicy': '#b5522b',
  'soft spicy': '#d08c5f',
  saffron: '#d9822b',
  cinnamon: '#a0522d',
  cardamom: '#9fb36b',
  anis: '#c8c2a4',
  woody: '#8b5e3c',
  oud: '#4a2c1d',
  sandalwood: '#c49a6c',
  cedar: '#a0704a',
  vetiver: '#6b7448',
  patchouli: '#5c4a32',
  mossy: '#4f6b3a',
  earthy: '#6e5a44',
  conifer: '#2f5d3a',
  amber: '#c8812a',
  balsamic: '#9c5a2e',
  incense: '#8a8079',
  smoky: '#54504c',
  leather: '#6b3f26',
  tobacco: '#7a5230',
  animalic: '#5e4535',
  musky: '#d8cfc4',
  camphor: '#cfe3e0',
  beeswax: '#e3b85c',
};
const FALLBACK = '#b9a89a';

export interface ScentImageInput {
  /** accords strongest first, weights 0–1 (at most the first four are drawn) */
  accords: readonly { name: string; weight: number }[];
  house: string;
  name: string;
}

/** Text as code points: controls and lone surrogates (not XML) dropped, at most `max`, the last an ellipsis when cut. */
function points(s: string, max: number): string[] {
  const all = [...s.replace(/[\p{Cc}\p{Cs}\ufffe\uffff]/gu, ' ').trim()];
  return all.length > max ? [...all.slice(0, max - 1), '…'] : all;
}

/** Markup characters escaped, for an SVG text node or attribute. */
const escapeXml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Text for SVG: escaped, at most `max` code points. */
const text = (s: string, max: number) => escapeXml(points(s, max).join(''));

/**
 * A character's width in ems, bold, taken on the wide side of common fonts
 * (DejaVu Sans, which Linux browsers fall back to, is among the widest): a
 * line estimated to fit does fit, with whatever font the browser picks.
 */
function em(ch: string): number {
  if (/\s/.test(ch)) return 0.36;
  if (/[.,:;'’!|()[\]iIjlft\u0627\u0622\u0623\u0625\u0640\u064b-\u065f]/.test(ch)) return 0.45;
  if (/[mwMW@%\u0633-\u0638\u06a9]/.test(ch)) return 1.1;
  if (/[A-Z0-9\u0660-\u0669]/.test(ch)) return 0.84;
  return 0.74;
}
const widthEm = (chars: readonly string[], weight: number) =>
  chars.reduce((sum, ch) => sum + em(ch), 0) * (weight >= 600 ? 1 : 0.9);

/** The room a line of text has across the picture. */
const TEXT_WIDTH = 216;
/** Below this a line is not shrunk further but cut, with an ellipsis. */
const MIN_FONT_PX = 11;

/**
 * A line's font size and text so that it fits the picture's width: its own
 * size when it fits, else shrunk (to MIN_FONT_PX at the least), else cut.
 * A long house once overflowed both edges ("illage Demo Atelie").
 */
export function fitLine(s: string, px: number, weight: number, max: number): { px: number; chars: string[] } {
  let chars = points(s, max);
  const fits = (size: number) => widthEm(chars, weight) * size <= TEXT_WIDTH;
  if (fits(px)) return { px, chars };
  const shrunk = Math.floor(TEXT_WIDTH / widthEm(chars, weight));
  if (shrunk >= MIN_FONT_PX) return { px: shrunk, chars };
  while (chars.length > 1 && !fits(MIN_FONT_PX)) chars = [...chars.slice(0, -2), '…'];
  return { px: MIN_FONT_PX, chars };
}

/** Whether a text is written right to left (it holds Arabic letters before any Latin one). */
const rtl = (s: string) => /^[^A-Za-z]*[\u0600-\u06ff\u0750-\u077f\ufb50-\ufdff\ufe70-\ufeff]/.test(s);

/** Dark text on light colours, light text on dark ones. */
function ink(hex: string): string {
  const n = Number.parseInt(hex.slice(1), 16);
  const lum = 0.2126 * ((n >> 16) & 255) + 0.7152 * ((n >> 8) & 255) + 0.0722 * (n & 255);
  return lum > 150 ? '#2b211b' : '#fffaf3';
}

export const SCENT_IMAGE_SIZE = 240;
/**
 * The drawing's version, in every picture's URL: a picture is cached for a year by its URL, so a
 * change to how it is drawn (2: the words shrink to fit the picture) takes a new one.
 */
export const SCENT_IMAGE_VERSION = '2';

/**
 * The picture: bands of the strongest accords' colours, each as wide as its
 * weight, under a veil; the house and the name written across it.
 */
export function scentImageSvg(input: ScentImageInput): string {
  const size = SCENT_IMAGE_SIZE;
  const accords = input.accords.filter((a) => a.weight > 0).slice(0, 4);
  const total = accords.reduce((s, a) => s + a.weight, 0) || 1;
  let y = 0;
  const bands = accords.length
    ? accords.map((a, i) => {
        const h = i === accords.length - 1 ? size - y : Math.round((size * a.weight) / total);
        const band = `<rect x="0" y="${y}" width="${size}" height="${h}" fill="${ACCORD_COLOURS[a.name] ?? FALLBACK}"/>`;
        y += h;
        return band;
      })
    : [`<rect width="${size}" height="${size}" fill="${FALLBACK}"/>`];
  const base = ACCORD_COLOURS[accords[0]?.name ?? ''] ?? FALLBACK;
  const colour = ink(base);
  const line = (s: string, yPos: number, largest: number, weight: number, max: number) => {
    const dir = rtl(s) ? ' direction="rtl"' : '';
    const { px, chars } = fitLine(s, largest, weight, max);
    return `<text x="${size / 2}" y="${yPos}" font-size="${px}" font-weight="${weight}" text-anchor="middle"${dir} fill="${colour}">${escapeXml(chars.join(''))}</text>`;
  };
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}" role="img" aria-label="${text(`${input.house} ${input.name}`, 80)}">` +
    bands.join('') +
    `<rect width="${size}" height="${size}" fill="${base}" opacity="0.55"/>` +
    `<g font-family="system-ui, 'Segoe UI', Tahoma, 'Noto Sans Arabic', sans-serif">` +
    line(input.house, size / 2 - 10, 22, 700, 22) +
    line(input.name, size / 2 + 22, 16, 400, 28) +
    '</g></svg>'
  );
}

/** The query of a product's picture URL (the route is `/widget/v1/scent.svg`); accords as name:weight 0–100, and the drawing's version. */
export function scentImageQuery(input: ScentImageInput): string {
  const a = [...input.accords]
    .filter((x) => x.weight > 0 && x.name in ACCORD_COLOURS)
    .sort((x, y) => y.weight - x.weight)
    .slice(0, 4)
    .map((x) => `${x.name}:${Math.round(Math.min(1, x.weight) * 100)}`)
    .join(',');
  const q = new URLSearchParams({
    a,
    h: input.house.slice(0, 80),
    n: input.name.slice(0, 120),
    v: SCENT_IMAGE_VERSION,
  });
  return q.toString();
}

/** The input a picture URL's query names (bounded: four accords, 80 and 120 characters), or null when malformed. */
export function parseScentImageQuery(a: string, h: string, n: string): ScentImageInput | null {
  const accords: { name: string; weight: number }[] = [];
  if (a) {
    for (const part of a.split(',').slice(0, 4)) {
      const m = /^([a-z][a-z ]{0,30}):(\d{1,3})$/.exec(part);
      if (!m || !((m[1] as string) in ACCORD_COLOURS)) return null;
      accords.push({ name: m[1] as string, weight: Math.min(100, Number(m[2])) / 100 });
    }
  }
  return { accords, house: h.slice(0, 80), name: n.slice(0, 120) };
}
