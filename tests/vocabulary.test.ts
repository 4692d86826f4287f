import { describe, expect, it } from 'vitest';
import { cacheInventory } from '../lib/cache.ts';
import { normalizeText } from '../lib/text.ts';
import {
  ACCORDS,
  FAMILIES,
  familyAccords,
  labelOf,
  OCCASIONS,
  RATINGS,
  resolveTerm,
  slugsOf,
  type Term,
  VOCABULARY,
  type VocabularyKind,
} from '../vocabulary/index.ts';

describe('vocabulary', () => {
  it('has the families the quiz needs and 60–90 accords', () => {
    for (const f of [
      'floral',
      'woody',
      'amber',
      'fresh',
      'citrus',
      'gourmand',
      'oud',
      'aromatic',
      'leather',
      'musky',
      'aquatic',
      'spicy',
      'fruity',
      'green',
      'powdery',
    ]) {
      expect(slugsOf('family')).toContain(f);
    }
    expect(ACCORDS.length).toBeGreaterThanOrEqual(60);
    expect(ACCORDS.length).toBeLessThanOrEqual(90);
    for (const a of [
      'rose',
      'oud',
      'amber',
      'vanilla',
      'musky',
      'citrus',
      'fresh spicy',
      'warm spicy',
      'white floral',
      'leather',
      'saffron',
      'tobacco',
      'coffee',
      'iris',
      'patchouli',
      'lavender',
      'aquatic',
      'smoky',
    ]) {
      expect(slugsOf('accord')).toContain(a);
    }
    expect(slugsOf('rating')).toEqual(['love', 'like', 'neutral', 'dislike', 'avoid']);
    for (const o of ['daily', 'office', 'evening', 'date-night', 'special-occasion', 'sport'])
      expect(slugsOf('occasion')).toContain(o);
  });

  it('every term has an English and an Arabic label', () => {
    for (const kind of Object.keys(VOCABULARY) as VocabularyKind[]) {
      for (const t of VOCABULARY[kind] as readonly Term[]) {
        expect(t.en.trim(), `${kind} ${t.slug}`).not.toBe('');
        expect(t.ar, `${kind} ${t.slug}`).toMatch(/[\u0600-\u06FF]/);
      }
    }
    expect(labelOf('accord', 'warm spicy', 'ar')).toBe('توابل دافئة');
    expect(labelOf('season', 'autumn', 'en')).toBe('Autumn');
  });

  it('resolves aliases, other spellings and Arabic names to the canonical slug', () => {
    expect(resolveTerm('family', 'oriental')).toBe('amber');
    expect(resolveTerm('family', 'شرقي')).toBe('amber');
    expect(resolveTerm('accord', 'oriental')).toBe('amber');
    expect(resolveTerm('season', 'fall')).toBe('autumn');
    expect(resolveTerm('season', 'خريف')).toBe('autumn');
    expect(resolveTerm('accord', 'warm-spicy')).toBe('warm spicy');
    expect(resolveTerm('accord', 'Warm_Spicy')).toBe('warm spicy');
    expect(resolveTerm('accord', 'عود')).toBe('oud');
    expect(resolveTerm('accord', 'Oudh')).toBe('oud');
    expect(resolveTerm('occasion', 'date night')).toBe('date-night');
    expect(resolveTerm('occasion', 'مجلس')).toBe('gathering');
    expect(resolveTerm('rating', 'hate')).toBe('avoid');
    expect(resolveTerm('concentration', 'Eau de Parfum')).toBe('edp');
    expect(resolveTerm('concentration', 'أو دو بارفان')).toBe('edp');
    expect(resolveTerm('accord', 'unicorn')).toBeNull();
  });

  it('remembers at most 5,000 names, however many unknown ones are sent, and keeps answering', () => {
    for (let i = 0; i < 12_000; i++) {
      expect(resolveTerm('accord', `unknown ${i}`)).toBeNull();
      if (i % 500 === 0) expect(resolveTerm('family', 'oriental')).toBe('amber');
    }
    expect(resolveTerm('family', 'oriental')).toBe('amber');
    expect(cacheInventory().find((c) => c.name === 'vocabulary-resolve')?.entries).toBe(5000);
  });

  it('no alias means two different terms of one kind', () => {
    for (const kind of Object.keys(VOCABULARY) as VocabularyKind[]) {
      const owner = new Map<string, string>();
      for (const t of VOCABULARY[kind] as readonly Term[]) {
        for (const name of [t.slug, t.en, t.ar, ...(t.aliases ?? [])]) {
          const key = normalizeText(name);
          const prev = owner.get(key);
          expect(prev === undefined || prev === t.slug, `${kind}: "${name}" names both ${prev} and ${t.slug}`).toBe(
            true,
          );
          owner.set(key, t.slug);
        }
      }
    }
  });

  it('every family implies known accords, its own first at full weight', () => {
    const accords = new Set(slugsOf('accord'));
    for (const f of FAMILIES) {
      const implied = familyAccords(f.slug);
      expect(implied.length).toBeGreaterThanOrEqual(3);
      expect(implied[0]?.[1]).toBe(1);
      for (const [a, w] of implied) {
        expect(accords.has(a), `${f.slug} → ${a}`).toBe(true);
        expect(w).toBeGreaterThan(0);
        expect(w).toBeLessThanOrEqual(1);
      }
    }
  });

  it('ratings weigh in both directions, love above like above neutral above dislike above avoid', () => {
    const w = RATINGS.map((r) => r.weight);
    expect([...w].sort((a, b) => b - a)).toEqual(w);
    expect(w[0]).toBeGreaterThan(0);
    expect(w[4]).toBeLessThan(0);
    expect(OCCASIONS.every((o) => /^[a-z]+(-[a-z]+)*$/.test(o.slug))).toBe(true);
  });
});
