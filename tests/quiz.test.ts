import { describe, expect, it } from 'vitest';
import { normalizeQuiz, normalizeQuizRemembered, quizKey } from '../scoring/quiz.ts';

/** The quiz's rules, each path and message as a storefront developer reads them in a 400. */
const refused = (input: Parameters<typeof normalizeQuiz>[0]) => {
  const r = normalizeQuiz(input);
  if (r.ok) throw new Error('accepted');
  return r.problems;
};
const accepted = (input: Parameters<typeof normalizeQuiz>[0]) => {
  const r = normalizeQuiz(input);
  if (!r.ok) throw new Error(`refused: ${JSON.stringify(r.problems)}`);
  return r.quiz;
};

describe('normalizeQuiz', () => {
  it('resolves aliases and Arabic names, drops a family named twice, and puts families and ratings in one order', () => {
    expect(
      accepted({
        families: ['oriental', 'عود', 'amber'],
        accord_ratings: { vanilla: 'like', citrus: 'avoid' },
        season: 'fall',
        occasion: 'office',
      }),
    ).toEqual({
      families: ['amber', 'oud'],
      ratings: [
        ['citrus', 'avoid'],
        ['vanilla', 'like'],
      ],
      season: 'autumn',
      occasion: 'office',
    });
  });

  it('an empty season or occasion is no season or occasion', () => {
    expect(accepted({ families: ['oud'], season: '', occasion: '' })).toMatchObject({ season: null, occasion: null });
    expect(accepted({ families: ['oud'] })).toMatchObject({ season: null, occasion: null });
  });

  it('equal answers in any order make one quiz key; different answers another', () => {
    const a = accepted({ families: ['oud', 'amber'], accord_ratings: { rose: 'love', citrus: 'avoid' } });
    const b = accepted({ families: ['amber', 'oud'], accord_ratings: { citrus: 'avoid', rose: 'love' } });
    const c = accepted({ families: ['amber'], accord_ratings: { citrus: 'avoid', rose: 'love' } });
    expect(quizKey(a)).toBe(quizKey(b));
    expect(quizKey(a)).not.toBe(quizKey(c));
    expect(quizKey(a)).toBe(JSON.stringify(a));
  });

  it('for whom: men or women in English or Arabic; any, or nothing, is no preference and leaves the quiz as it was', () => {
    expect(accepted({ families: ['oud'], gender: 'Women' }).gender).toBe('women');
    expect(accepted({ families: ['oud'], gender: 'نسائي' }).gender).toBe('women');
    expect(accepted({ families: ['oud'], gender: 'رجالي' }).gender).toBe('men');
    expect(accepted({ families: ['oud'], gender: 'pour homme' }).gender).toBe('men');
    expect(accepted({ families: ['oud'], gender: '  Women ' }).gender).toBe('women');
    const none = accepted({ families: ['oud'] });
    for (const g of [
      'any',
      'anyone',
      'all',
      'both',
      'no preference',
      'الكل',
      'لا يهم',
      'أي',
      'للجميع',
      '',
      'No preference',
    ])
      expect(quizKey(accepted({ families: ['oud'], gender: g })), g).toBe(quizKey(none));
    expect(quizKey(accepted({ families: ['oud'], gender: 'men' }))).not.toBe(quizKey(none));
    expect(refused({ families: ['oud'], gender: 'unisex' })).toEqual([
      { path: '/body/quiz/gender', message: 'unknown gender "unisex"; allowed: men, women, any' },
    ]);
    expect(refused({ families: ['oud'], gender: 'x'.repeat(60) })[0]?.message).toContain(`"${'x'.repeat(40)}"`);
  });

  it('names an unknown family by its position, at most 40 of its characters, with the allowed ones', () => {
    const [p] = refused({ families: ['oud', 'x'.repeat(60)] });
    expect(p?.path).toBe('/body/quiz/families/1');
    expect(p?.message).toMatch(new RegExp(`^unknown family "${'x'.repeat(40)}"; allowed: .*\\boud\\b`));
  });

  it('names an unknown accord, and an unknown rating of a known one, at the accord', () => {
    expect(refused({ accord_ratings: { nope: 'love' } })).toEqual([
      {
        path: '/body/quiz/accord_ratings/nope',
        message: expect.stringMatching(/^unknown accord "nope"; allowed: .*\bcitrus\b/),
      },
    ]);
    expect(refused({ accord_ratings: { citrus: 'adore' } })).toEqual([
      {
        path: '/body/quiz/accord_ratings/citrus',
        message: expect.stringMatching(/^unknown rating "adore"; allowed: love, like, neutral, dislike, avoid$/),
      },
    ]);
    // a rating that is not text at all
    expect(refused({ accord_ratings: { citrus: 5 as unknown as string } })[0]?.message).toMatch(/^unknown rating "5"/);
  });

  it('names an unknown season and an unknown occasion', () => {
    expect(refused({ families: ['oud'], season: 'monsoon' })).toEqual([
      {
        path: '/body/quiz/season',
        message: expect.stringMatching(/^unknown season "monsoon"; allowed: spring, summer, autumn, winter$/),
      },
    ]);
    expect(refused({ families: ['oud'], occasion: 'funeral' })).toEqual([
      { path: '/body/quiz/occasion', message: expect.stringMatching(/^unknown occasion "funeral"; allowed: daily, /) },
    ]);
  });

  it('echoes at most 40 characters of an unknown name (20 of a rating), in the path and the message', () => {
    const long = 'q'.repeat(60);
    const [accord] = refused({ accord_ratings: { [long]: 'love' } });
    expect(accord?.path).toBe(`/body/quiz/accord_ratings/${'q'.repeat(40)}`);
    expect(accord?.message).toMatch(new RegExp(`^unknown accord "${'q'.repeat(40)}"; `));
    expect(refused({ accord_ratings: { citrus: long } })[0]?.message).toMatch(
      new RegExp(`^unknown rating "${'q'.repeat(20)}"; `),
    );
    expect(refused({ families: ['oud'], season: long })[0]?.message).toMatch(
      new RegExp(`^unknown season "${'q'.repeat(40)}"; `),
    );
    expect(refused({ families: ['oud'], occasion: long })[0]?.message).toMatch(
      new RegExp(`^unknown occasion "${'q'.repeat(40)}"; `),
    );
  });

  it('lists every problem at once', () => {
    expect(
      refused({ families: ['x'], accord_ratings: { y: 'love' }, season: 'z', occasion: 'w' }).map((p) => p.path),
    ).toEqual(['/body/quiz/families/0', '/body/quiz/accord_ratings/y', '/body/quiz/season', '/body/quiz/occasion']);
  });

  it('needs a family or a rated accord; a season or occasion alone is not a quiz', () => {
    const choose = [
      { path: '/body/quiz', message: 'choose at least one family, rate at least one accord, or name a loved perfume' },
    ];
    expect(refused({})).toEqual(choose);
    expect(refused({ season: 'summer', occasion: 'daily' })).toEqual(choose);
    expect(accepted({ accord_ratings: { rose: 'love' } }).families).toEqual([]);
  });
});

describe('normalizeQuiz: kinds of product, alcohol-free, budget', () => {
  const base = { families: ['oud'] };
  it('resolves kinds in English or Arabic, each once, sorted; none or empty is any kind', () => {
    expect(accepted({ ...base, kinds: ['دهن', 'bakhoor', 'oil', 'Gift sets'] }).kinds).toEqual([
      'bakhoor',
      'gift_set',
      'oil',
    ]);
    expect(accepted({ ...base, kinds: [] })).toEqual(accepted(base));
    expect(accepted(base)).not.toHaveProperty('kinds');
  });

  it('refuses an unknown kind at its place in the list', () => {
    const problems = refused({ ...base, kinds: ['oil', 'lotion'] });
    expect(problems).toEqual([{ path: '/body/quiz/kinds/1', message: expect.stringContaining('"lotion"') }]);
    expect(problems[0]?.message).toContain('spray, oil, bakhoor, oud_wood, mist, gift_set, sample');
  });

  it('alcohol-free only when said true', () => {
    expect(accepted({ ...base, alcohol_free: true }).alcoholFree).toBe(true);
    expect(accepted({ ...base, alcohol_free: false })).toEqual(accepted(base));
  });

  it('a budget: an absent bound is open; a range upside down, a negative floor or a top of 0 is refused', () => {
    expect(accepted({ ...base, budget: { max: 300 } }).budget).toEqual({ min: 0, max: 300 });
    expect(accepted({ ...base, budget: { min: 100 } }).budget).toEqual({ min: 100, max: Number.POSITIVE_INFINITY });
    expect(accepted({ ...base, budget: { min: 0, max: 0.5 } }).budget).toEqual({ min: 0, max: 0.5 });
    expect(accepted({ ...base, budget: { min: 200, max: 200 } }).budget).toEqual({ min: 200, max: 200 });
    expect(accepted({ ...base, budget: {} })).toEqual(accepted(base));
    expect(refused({ ...base, budget: { min: 300, max: 100 } })).toEqual([
      { path: '/body/quiz/budget', message: 'min must not be above max' },
    ]);
    expect(refused({ ...base, budget: { min: -1 } })).toEqual([
      { path: '/body/quiz/budget/min', message: 'must be a price of 0 or more' },
    ]);
    expect(refused({ ...base, budget: { max: 0 } })).toEqual([
      { path: '/body/quiz/budget/max', message: 'must be a price above 0' },
    ]);
    expect(refused({ ...base, budget: { max: Number.NaN } })).toHaveLength(1);
  });

  it('kinds, alcohol-free and a budget alone are no taste: a family, an accord or a loved perfume is still asked for', () => {
    expect(refused({ kinds: ['oil'], alcohol_free: true, budget: { max: 100 } })).toEqual([
      { path: '/body/quiz', message: expect.stringContaining('choose at least one family') },
    ]);
  });
});

describe('normalizeQuiz: perfumes the shopper loves and dislikes', () => {
  it('keeps the ids in the shopper’s order, trimmed, each once; none named, no field', () => {
    const q = accepted({ loved_perfumes: [' b ', 'a', 'b', ''], disliked_perfumes: ['c'] });
    expect(q.loved).toEqual(['b', 'a']);
    expect(q.disliked).toEqual(['c']);
    expect(q).not.toHaveProperty('forLessThan');
    const plain = accepted({ families: ['oud'], loved_perfumes: [], disliked_perfumes: [] });
    expect(Object.keys(plain)).toEqual(['families', 'ratings', 'season', 'occasion']);
  });

  it('a loved perfume alone is a quiz; a disliked one alone is not', () => {
    expect(accepted({ loved_perfumes: ['a'] }).families).toEqual([]);
    expect(refused({ disliked_perfumes: ['a'] })).toEqual([
      { path: '/body/quiz', message: 'choose at least one family, rate at least one accord, or name a loved perfume' },
    ]);
  });

  it('at most five of each; an id both loved and disliked is named at its place', () => {
    const six = ['a', 'b', 'c', 'd', 'e', 'f'];
    expect(refused({ loved_perfumes: six, disliked_perfumes: six.map((id) => `${id}2`) })).toEqual([
      { path: '/body/quiz/loved_perfumes', message: 'at most 5 perfumes' },
      { path: '/body/quiz/disliked_perfumes', message: 'at most 5 perfumes' },
    ]);
    expect(accepted({ loved_perfumes: ['a', 'b', 'c', 'd', 'e'] }).loved).toHaveLength(5);
    expect(refused({ loved_perfumes: ['a', 'b'], disliked_perfumes: ['c', 'b'] })).toEqual([
      { path: '/body/quiz/disliked_perfumes/1', message: '"b" is among loved_perfumes too' },
    ]);
  });

  it('a price to beat: a number above 0, and only with a loved perfume', () => {
    expect(accepted({ loved_perfumes: ['a'], for_less_than: 300 }).forLessThan).toBe(300);
    const price = [{ path: '/body/quiz/for_less_than', message: 'must be a price above 0' }];
    for (const bad of [0, -1, Number.POSITIVE_INFINITY, Number.NaN, '300' as unknown as number])
      expect(refused({ loved_perfumes: ['a'], for_less_than: bad }), String(bad)).toEqual(price);
    expect(refused({ families: ['oud'], for_less_than: 300 })).toEqual([
      { path: '/body/quiz/for_less_than', message: 'applies to loved_perfumes: name at least one' },
    ]);
  });
});

describe('normalizeQuizRemembered', () => {
  it('freezes the loved and disliked perfumes of the quiz it shares', () => {
    const r = normalizeQuizRemembered({ loved_perfumes: ['a'], disliked_perfumes: ['b'] });
    if (!r.ok) throw new Error('refused');
    expect(Object.isFrozen(r.quiz.loved)).toBe(true);
    expect(Object.isFrozen(r.quiz.disliked)).toBe(true);
  });

  it('answers the same answers with the same frozen quiz, and refusals afresh', () => {
    const input = { families: ['oud'], accord_ratings: { rose: 'love' } };
    const a = normalizeQuizRemembered(input);
    const b = normalizeQuizRemembered({ ...input });
    if (!a.ok || !b.ok) throw new Error('refused');
    expect(b.quiz).toBe(a.quiz);
    expect(Object.isFrozen(a.quiz)).toBe(true);
    expect(Object.isFrozen(a.quiz.families)).toBe(true);
    expect(Object.isFrozen(a.quiz.ratings)).toBe(true);
    expect(Object.isFrozen(a.quiz.ratings[0])).toBe(true);
    expect(normalizeQuizRemembered({ families: ['nope'] }).ok).toBe(false);
    expect(normalizeQuizRemembered({ families: ['nope'] }).ok).toBe(false);
  });
});
