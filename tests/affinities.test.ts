import { describe, expect, it } from 'vitest';
import { buildProductMatrix, buildTaste, scoreProducts } from '../scoring/engine.ts';
import type { Quiz } from '../scoring/quiz.ts';

/**
 * What a season and an occasion lean towards (scoring/affinities.ts), held
 * by what a shopper sees: for a shopper who names a season or occasion, a
 * product of an accord it leans to scores above a product of an accord
 * nothing leans to. The expectations are written out here, not read from the
 * module, so emptying or changing a lean fails a test.
 */
const SEASONS: Record<string, string[]> = {
  spring: ['floral', 'green', 'fresh', 'fruity', 'citrus', 'white floral', 'powdery'],
  summer: ['citrus', 'fresh', 'aquatic', 'marine', 'ozonic', 'fresh spicy', 'musky', 'green'],
  autumn: ['woody', 'warm spicy', 'amber', 'leather', 'tobacco', 'patchouli', 'vanilla'],
  winter: ['amber', 'vanilla', 'warm spicy', 'oud', 'leather', 'tobacco', 'balsamic', 'sweet'],
};
const OCCASIONS: Record<string, string[]> = {
  daily: ['fresh', 'musky', 'citrus', 'woody', 'aromatic'],
  office: ['fresh', 'citrus', 'musky', 'aromatic', 'powdery', 'green', 'iris'],
  evening: ['amber', 'oud', 'warm spicy', 'sweet', 'leather', 'vanilla'],
  'date-night': ['vanilla', 'amber', 'sweet', 'musky', 'rose', 'white floral'],
  'special-occasion': ['oud', 'amber', 'rose', 'saffron', 'incense', 'musky'],
  wedding: ['oud', 'rose', 'musky', 'saffron', 'white floral', 'amber'],
  eid: ['oud', 'rose', 'saffron', 'amber', 'incense', 'musky'],
  'ramadan-nights': ['oud', 'amber', 'incense', 'rose', 'saffron', 'musky', 'sweet'],
  gathering: ['oud', 'incense', 'saffron', 'amber', 'rose', 'smoky'],
  sport: ['fresh', 'citrus', 'aquatic', 'ozonic', 'marine', 'green'],
  travel: ['fresh', 'citrus', 'aquatic', 'green', 'musky', 'tea'],
};
/** the time of day an occasion implies; eid and gatherings are any time */
const TIMES: Record<string, 'day' | 'night' | null> = {
  daily: 'day',
  office: 'day',
  evening: 'night',
  'date-night': 'night',
  'special-occasion': 'night',
  wedding: 'night',
  eid: null,
  'ramadan-nights': 'night',
  gathering: null,
  sport: 'day',
  travel: 'day',
};

const quiz = (q: Partial<Quiz>): Quiz => ({ families: [], ratings: [], season: null, occasion: null, ...q });
/** one product of this accord alone, declaring no season, time or occasion of its own */
const single = (accord: string, times: string[] = []) =>
  buildProductMatrix([
    {
      profile: { families: [], accords: [{ name: accord, weight: 1 }], seasons: [], times, occasions: [] },
      line: accord,
      house: 'h',
    },
  ]);
const scoreOf = (m: ReturnType<typeof single>, q: Quiz) => scoreProducts(m, buildTaste(q)).scores[0] as number;
/** an accord no season or occasion leans to: the yardstick a leaned-to accord must beat */
const NEUTRAL = 'almond';

describe('season leans', () => {
  it.each(Object.entries(SEASONS).flatMap(([season, accords]) => accords.map((a) => [season, a] as const)))(
    '%s leans to %s: for a shopper who names the season, a product of it scores above one of an accord no season leans to',
    (season, accord) => {
      const q = quiz({ season: season as Quiz['season'] });
      expect(scoreOf(single(accord), q)).toBeGreaterThan(scoreOf(single(NEUTRAL), q));
    },
  );

  it('leans are directional: a citrus product scores higher for summer than for winter, an oud product the other way', () => {
    expect(scoreOf(single('citrus'), quiz({ season: 'summer' }))).toBeGreaterThan(
      scoreOf(single('citrus'), quiz({ season: 'winter' })),
    );
    expect(scoreOf(single('oud'), quiz({ season: 'winter' }))).toBeGreaterThan(
      scoreOf(single('oud'), quiz({ season: 'summer' })),
    );
  });
});

describe('occasion leans', () => {
  it.each(Object.entries(OCCASIONS).flatMap(([occasion, accords]) => accords.map((a) => [occasion, a] as const)))(
    '%s leans to %s: for a shopper who names the occasion, a product of it scores above one of an accord no occasion leans to',
    (occasion, accord) => {
      const q = quiz({ occasion: occasion as Quiz['occasion'] });
      expect(scoreOf(single(accord), q)).toBeGreaterThan(scoreOf(single(NEUTRAL), q));
    },
  );

  it('an oud product scores higher for a wedding than for sport; a citrus one higher for sport than for an evening', () => {
    expect(scoreOf(single('oud'), quiz({ occasion: 'wedding' }))).toBeGreaterThan(
      scoreOf(single('oud'), quiz({ occasion: 'sport' })),
    );
    expect(scoreOf(single('citrus'), quiz({ occasion: 'sport' }))).toBeGreaterThan(
      scoreOf(single('citrus'), quiz({ occasion: 'evening' })),
    );
  });
});

describe('the time of day an occasion implies', () => {
  it.each(Object.entries(TIMES))(
    '%s: a product worn at the other time of day scores lower (none when the occasion is any time)',
    (occasion, time) => {
      const q = quiz({ occasion: occasion as Quiz['occasion'] });
      // an accord no occasion leans to: only the time of day can tell the two apart
      const day = scoreOf(single('leather', ['day']), q);
      const night = scoreOf(single('leather', ['night']), q);
      if (time === 'night') expect(night).toBeGreaterThan(day);
      else if (time === 'day') expect(day).toBeGreaterThan(night);
      else expect(day).toBe(night);
    },
  );
});
