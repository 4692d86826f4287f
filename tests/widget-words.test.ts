import { describe, expect, it } from 'vitest';
import { formatCount, formatPercent, formatPrice, MESSAGES } from '../widget/i18n.ts';

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
