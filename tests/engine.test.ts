import { describe, expect, it } from 'vitest';
import { buildProductMatrix, buildTaste, matchAccords, tasteSummary } from '../scoring/engine.ts';
import type { Quiz } from '../scoring/quiz.ts';

/**
 * What a shopper reads beside the ranking: why a product matched
 * (`match_accords`) and their taste summary, each held exactly.
 */
const quiz = (q: Partial<Quiz>): Quiz => ({ families: [], ratings: [], season: null, occasion: null, ...q });

describe('matchAccords: the accords that drove a product’s score', () => {
  const product = buildProductMatrix([
    {
      profile: {
        families: ['floral'],
        accords: [
          { name: 'citrus', weight: 1 },
          { name: 'rose', weight: 0.9 },
          { name: 'oud', weight: 0.8 },
          { name: 'woody', weight: 0.5 },
          { name: 'leather', weight: 0.5 },
          { name: 'vanilla', weight: 0.3 },
        ],
        seasons: [],
        times: [],
        occasions: [],
      },
      line: 'a',
      house: 'h',
    },
  ]);
  const taste = buildTaste(
    quiz({
      ratings: [
        ['rose', 'love'],
        ['oud', 'like'],
        ['citrus', 'avoid'],
        ['vanilla', 'dislike'],
        ['woody', 'like'],
        ['leather', 'like'],
      ],
    }),
  );

  it('names only the accords the shopper likes, strongest contribution first, equal ones by name, at most three', () => {
    // citrus (avoided) and vanilla (disliked) are the product's too, but never a reason it matched
    expect(matchAccords(product, taste, 0)).toEqual(['rose', 'oud', 'leather']);
    expect(matchAccords(product, taste, 0, 2)).toEqual(['rose', 'oud']);
    expect(matchAccords(product, taste, 0, 10)).toEqual(['rose', 'oud', 'leather', 'woody']);
  });

  it('names nothing for a product with nothing the shopper likes', () => {
    const other = buildTaste(quiz({ ratings: [['citrus', 'avoid']] }));
    expect(matchAccords(product, other, 0)).toEqual([]);
  });
});

describe('tasteSummary', () => {
  it('rated accords only: top accords liked most first, avoided before disliked (each by name), neutral in neither', () => {
    const q = quiz({
      ratings: [
        ['rose', 'love'],
        ['oud', 'like'],
        ['citrus', 'avoid'],
        ['vanilla', 'dislike'],
        ['amber', 'avoid'],
        ['musky', 'neutral'],
      ],
    });
    expect(tasteSummary(q, buildTaste(q))).toEqual({
      dominant_families: ['oud'],
      top_accords: ['rose', 'oud'],
      avoid_accords: ['amber', 'citrus', 'vanilla'],
    });
  });

  it('fewer than three families chosen: the chosen first, then the families whose accord the answers lean to most', () => {
    const q = quiz({ families: ['oud'], ratings: [['rose', 'love']], season: 'summer' });
    expect(tasteSummary(q, buildTaste(q))).toEqual({
      dominant_families: ['oud', 'woody', 'citrus'],
      top_accords: ['rose', 'oud', 'woody', 'citrus', 'fresh'],
      avoid_accords: [],
    });
  });

  it('more than three families chosen: the first three; at most five top accords, equal ones by name', () => {
    const q = quiz({ families: ['oud', 'floral', 'citrus', 'woody'] });
    expect(tasteSummary(q, buildTaste(q))).toEqual({
      dominant_families: ['oud', 'floral', 'citrus'],
      top_accords: ['citrus', 'floral', 'oud', 'woody', 'orange blossom'],
      avoid_accords: [],
    });
  });
});
