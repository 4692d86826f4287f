import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { skeleton } from '../catalog/phonetic.ts';
import { foldArabic, foldDigits, normalizeText } from '../lib/text.ts';

describe('Arabic normalisation, rule by rule', () => {
  it('removes diacritics (tashkeel) and the superscript alef', () => {
    expect(foldArabic('خَمْرَةٌ')).toBe('خمره');
    expect(foldArabic('رَحْمٰن')).toBe('رحمن');
  });
  it('removes tatweel', () => expect(foldArabic('عـــود')).toBe('عود'));
  it('folds alef forms أ إ آ ٱ to ا', () => expect(foldArabic('أإآٱ')).toBe('اااا'));
  it('folds alef maqsura ى to ya ي', () => expect(foldArabic('ليلى')).toBe('ليلي'));
  it('folds ta marbuta ة to ha ه', () => expect(foldArabic('قهوة')).toBe('قهوه'));
  it('folds hamza seats ؤ → و and ئ → ي, and drops a lone hamza', () => {
    expect(foldArabic('مؤمن')).toBe('مومن');
    expect(foldArabic('لؤلؤ')).toBe('لولو');
    expect(foldArabic('بائع')).toBe('بايع');
    expect(foldArabic('سماء')).toBe('سما');
  });
  it('folds Persian kaf and ya to Arabic ones', () => expect(foldArabic('کی')).toBe('كي'));
  it('turns Arabic-Indic and Extended Arabic-Indic digits into ASCII', () => {
    expect(foldDigits('٠١٢٣٤٥٦٧٨٩')).toBe('0123456789');
    expect(foldDigits('۰۱۲۳۴۵۶۷۸۹')).toBe('0123456789');
    expect(normalizeText('بكارات روج ٥٤٠')).toBe('بكارات روج 540');
  });
});

describe('Latin folding', () => {
  it('lower-cases, strips accents, spells & as and, drops apostrophes, splits on punctuation', () => {
    expect(normalizeText("L'Homme Idéal")).toBe('lhomme ideal');
    expect(normalizeText('Dolce & Gabbana')).toBe('dolce and gabbana');
    expect(normalizeText('Hermès — Terre d’Hermès')).toBe('hermes terre dhermes');
    expect(normalizeText('  Aventus,   for  Her!! ')).toBe('aventus for her');
    expect(normalizeText('Œillet Bengale')).toBe('oeillet bengale');
  });
  it('property: normalisation is idempotent and leaves no double spaces', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        const n = normalizeText(s);
        expect(normalizeText(n)).toBe(n);
        expect(n).not.toMatch(/\s\s|^\s|\s$/);
      }),
    );
  });
});

describe('cross-script skeleton', () => {
  it.each([
    ['sauvage', 'سوفاج'],
    ['khamrah', 'خمرة'],
    ['chanel', 'شانيل'],
    ['aventus', 'أفينتوس'],
    ['baccarat', 'بكارات'],
    ['layton', 'لايتون'],
    ['supremacy', 'سوبريمسي'],
    ['invictus', 'انفكتوس'],
  ])('%s ↔ %s', (latin, arabic) => {
    expect(skeleton(normalizeText(latin))).toBe(skeleton(normalizeText(arabic)));
  });
  it('different names keep different skeletons', () => {
    expect(skeleton('sauvage')).not.toBe(skeleton('savannah'));
    expect(skeleton(normalizeText('خمرة'))).not.toBe(skeleton(normalizeText('قهوة')));
  });
});
