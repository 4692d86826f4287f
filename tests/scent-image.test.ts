import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ACCORD_COLOURS,
  fitLine,
  parseScentImageQuery,
  SCENT_IMAGE_SIZE,
  scentImageQuery,
  scentImageSvg,
} from '../scoring/scent-image.ts';
import { slugsOf } from '../vocabulary/index.ts';

const bands = (svg: string) =>
  [...svg.matchAll(/<rect x="0" y="(\d+)" width="\d+" height="(\d+)" fill="(#[0-9a-f]{6})"\/>/g)].map((m) => ({
    y: Number(m[1]),
    h: Number(m[2]),
    fill: m[3],
  }));

describe("a product's scent picture", () => {
  it('every accord of the vocabulary has its own colour', () => {
    for (const a of slugsOf('accord')) expect(ACCORD_COLOURS[a], a).toMatch(/^#[0-9a-f]{6}$/);
  });

  it("draws the strongest accords' colours, each band as tall as its weight, filling the picture", () => {
    const svg = scentImageSvg({
      accords: [
        { name: 'oud', weight: 1 },
        { name: 'rose', weight: 0.5 },
        { name: 'saffron', weight: 0.5 },
      ],
      house: 'Lattafa',
      name: 'Oud Mood',
    });
    const b = bands(svg);
    expect(b.map((x) => x.fill)).toEqual([ACCORD_COLOURS.oud, ACCORD_COLOURS.rose, ACCORD_COLOURS.saffron]);
    expect(b.map((x) => x.h)).toEqual([120, 60, 60]);
    expect(b.reduce((s, x) => s + x.h, 0)).toBe(SCENT_IMAGE_SIZE);
    expect(svg).toContain('>Lattafa</text>');
    expect(svg).toContain('>Oud Mood</text>');
  });

  it('sets an Arabic house and name as whole words, right to left', () => {
    const svg = scentImageSvg({ accords: [{ name: 'oud', weight: 1 }], house: 'لطافة', name: 'عود مود' });
    expect(svg).toContain('direction="rtl" fill="#fffaf3">لطافة</text>');
    expect(svg).toContain('>عود مود</text>');
    // a Latin name keeps the default direction
    expect(scentImageSvg({ accords: [], house: 'Dior', name: 'Sauvage' })).not.toContain('direction="rtl"');
  });

  it('shrinks a house or name too wide for the picture, to 11 px at the least, then cuts it (issue 45)', () => {
    // "Sillage Demo Atelier" at 22 px overflowed both edges of the picture ("illage Demo Atelie")
    const long = scentImageSvg({ accords: [{ name: 'oud', weight: 1 }], house: 'Sillage Demo Atelier', name: 'Oud' });
    expect(long).toContain(
      'font-size="16" font-weight="700" text-anchor="middle" fill="#fffaf3">Sillage Demo Atelier</text>',
    );
    expect(long).toContain('font-size="16" font-weight="400" text-anchor="middle" fill="#fffaf3">Oud</text>');
    const short = scentImageSvg({ accords: [{ name: 'oud', weight: 1 }], house: 'Dior', name: 'Sauvage' });
    expect(short).toContain('font-size="22" font-weight="700" text-anchor="middle" fill="#fffaf3">Dior</text>');
    expect(fitLine('ميزون فرانسيس كركدجيان', 22, 700, 22)).toEqual({ px: 13, chars: [...'ميزون فرانسيس كركدجيان'] });
    // wider than the picture even at 11 px: cut, with an ellipsis
    expect(fitLine('W'.repeat(22), 22, 700, 22)).toEqual({ px: 11, chars: [...'W'.repeat(17), '…'] });
    expect(fitLine('Baccarat Rouge 540 Extrait de Parfum 70ml', 16, 400, 28)).toEqual({
      px: 12,
      chars: [...'Baccarat Rouge 540 Extrait …'],
    });
  });

  it('never carries markup from a name: whatever the text, the picture is the same shapes and escaped words', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.string({ maxLength: 300 }), (house, name) => {
        const svg = scentImageSvg({ accords: [{ name: 'rose', weight: 1 }], house, name });
        const tags = [...svg.matchAll(/<\/?([a-z]+)/g)].map((m) => m[1]);
        expect(new Set(tags)).toEqual(new Set(['svg', 'rect', 'g', 'text']));
        expect(svg).not.toMatch(/<script|javascript:|href=|on[a-z]+=/i);
        // bounded: at most 22 + 28 characters of text, whatever was sent
        const words = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1] as string);
        expect(words.length).toBe(2);
      }),
    );
    const svg = scentImageSvg({ accords: [], house: '<script>alert(1)</script>', name: '"&' });
    expect(svg).toContain('&lt;script&gt;');
    expect(svg).toContain('&quot;&amp;');
  });

  it('the same product gives the same bytes; the query names it and reads back the same', () => {
    const input = {
      accords: [
        { name: 'amber', weight: 0.8 },
        { name: 'oud', weight: 1 },
        { name: 'unknown-accord', weight: 0.9 },
        { name: 'vanilla', weight: 0.6 },
        { name: 'rose', weight: 0.5 },
        { name: 'musky', weight: 0.4 },
      ],
      house: 'Arabian Oud',
      name: 'Kalemat',
    };
    const q = new URLSearchParams(scentImageQuery(input));
    expect(q.get('a')).toBe('oud:100,amber:80,vanilla:60,rose:50');
    // the drawing's version: a picture drawn anew is a new URL, not a year-old cached one
    expect(q.get('v')).toBe('2');
    const back = parseScentImageQuery(q.get('a') ?? '', q.get('h') ?? '', q.get('n') ?? '');
    expect(back?.house).toBe('Arabian Oud');
    expect(scentImageSvg(back as NonNullable<typeof back>)).toBe(scentImageSvg(back as NonNullable<typeof back>));
    expect(back?.accords.map((a) => a.name)).toEqual(['oud', 'amber', 'vanilla', 'rose']);
  });

  it('refuses a query that names an accord outside the vocabulary or a malformed weight', () => {
    expect(parseScentImageQuery('oud:100,plutonium:50', 'h', 'n')).toBeNull();
    expect(parseScentImageQuery('oud:1000', 'h', 'n')).toBeNull();
    expect(parseScentImageQuery('oud', 'h', 'n')).toBeNull();
    expect(parseScentImageQuery('', 'h', 'n')).toEqual({ accords: [], house: 'h', name: 'n' });
  });
});
