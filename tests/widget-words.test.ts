import { describe, expect, it } from 'vitest';
import { PRODUCT_KINDS } from '../matching/kind.ts';
import { budgetBands, formatCount, formatPercent, formatPrice, MESSAGES } from '../widget/i18n.ts';

const { ar, en } = MESSAGES;

describe('the widget’s numbers: one rule per locale', () => {
  it('Arabic writes every number in Arabic-Indic digits, as its prices and percentages; English in Western digits', () => {
    expect(ar.step(1, 7)).toBe('الخطوة ١ من ٧');
    expect(formatPercent(83, 'ar')).toMatch(/^٨٣/);
    expect(formatPrice(250, 'SAR', 'ar')).toContain('٢٥٠');
    expect(formatCount(12, 'ar')).toBe('١٢');
    expect(en.step(1, 7)).toBe('Step 1 of 7');
    expect(formatCount(12, 'en')).toBe('12');
    // no Western digit in any Arabic sentence that carries a number
    for (const n of [0, 1, 2, 3, 10, 11, 99, 100, 101, 1000])
      for (const line of [ar.resultsCount(n), ar.found(n), ar.fewFit(n), ar.step(n, n + 1)])
        expect(line, line).not.toMatch(/[0-9]/);
  });
});

describe('counts read as the language says them', () => {
  it('Arabic: no count of zero with a plural noun; the dual; 3–10 with the plural; 11–99 with the singular accusative', () => {
    expect(ar.resultsCount(0)).toBe('لم نجد ترشيحات');
    expect(ar.resultsCount(1)).toBe('وجدنا ترشيحاً واحداً');
    expect(ar.resultsCount(2)).toBe('وجدنا ترشيحين');
    expect(ar.resultsCount(6)).toBe('وجدنا ٦ ترشيحات');
    expect(ar.resultsCount(12)).toBe('وجدنا ١٢ ترشيحاً');
    expect(ar.resultsCount(100)).toBe('وجدنا ١٠٠ ترشيح');
    expect(ar.found(2)).toBe('عطران');
    expect(ar.found(5)).toBe('٥ عطور');
    expect(ar.fewFit(2)).toBe('منتجان فقط في هذا المتجر يناسبان إجاباتك.');
    expect(ar.fewFit(4)).toBe('٤ منتجات فقط في هذا المتجر تناسب إجاباتك.');
  });

  it('English: none, one, many', () => {
    expect(en.resultsCount(0)).toBe('No recommendations found');
    expect(en.resultsCount(1)).toBe('1 recommendation');
    expect(en.resultsCount(6)).toBe('6 recommendations');
  });
});

describe("the Gulf shopper's words: every one in both languages", () => {
  /** the keys of a message object, nested ones as paths; functions are called with a sample */
  const shape = (o: object, at = ''): string[] =>
    Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' ? shape(v, `${at}${k}.`) : [`${at}${k}`]));
  const text = (v: unknown) => (typeof v === 'function' ? (v as (x: string) => string)('X') : v);

  it('Arabic and English hold the same keys, nested ones too (gift, kind, heat, how, extras), none empty', () => {
    expect(shape(en).sort()).toEqual(shape(ar).sort());
    for (const m of [ar, en])
      for (const k of ['gifts', 'gift', 'kind', 'heat', 'how', 'extras'] as const)
        for (const v of Object.values(m[k]))
          for (const line of typeof v === 'object' ? Object.values(v) : [v])
            expect(String(text(line)).trim()).not.toBe('');
  });

  it('names every kind the cards show (all but a spray), every heat estimate as an estimate, every step of layering', () => {
    for (const m of [ar, en]) {
      expect(Object.keys(m.kind).sort()).toEqual(PRODUCT_KINDS.filter((k) => k !== 'spray' && k !== 'other').sort());
      expect(Object.keys(m.heat).sort()).toEqual(['long', 'moderate', 'short']);
      expect(Object.keys(m.how).sort()).toEqual(['oil_on_skin', 'smoke_clothes', 'spray_over']);
      expect(Object.keys(m.gift).sort()).toEqual(['anyone', 'her', 'him']);
      expect(Object.keys(m.gifts).sort()).toEqual(['anyone', 'her', 'him']);
    }
    for (const line of Object.values(ar.heat)) expect(line).toMatch(/— تقدير$/);
    for (const line of Object.values(en.heat)) expect(line).toMatch(/— estimated$/);
    expect(ar.gift.her?.resultsTitle).toBe('اختيارات لها');
    expect(en.gift.him?.familiesQ).toBe('What does he like?');
    expect(ar.gift.him?.familiesQ).toBe('ماذا يحب؟');
  });
});

describe('the budget step’s bands, in the shop’s currency', () => {
  it('buy alike in every currency: 200 and 500 riyals or dirhams, 20 and 50 dinars, 50 and 125 dollars', () => {
    expect(budgetBands('SAR')).toEqual(['-200', '200-500', '500-']);
    expect(budgetBands('AED')).toEqual(['-200', '200-500', '500-']);
    for (const c of ['KWD', 'BHD', 'OMR']) expect(budgetBands(c)).toEqual(['-20', '20-50', '50-']);
    expect(budgetBands('JOD')).toEqual(['-40', '40-100', '100-']);
    expect(budgetBands('GBP')).toEqual(['-40', '40-100', '100-']);
    for (const c of ['USD', 'EUR', 'CHF']) expect(budgetBands(c)).toEqual(['-50', '50-125', '125-']);
    // a currency it does not know: as written
    expect(budgetBands('EGP')).toEqual(['-200', '200-500', '500-']);
  });
});
