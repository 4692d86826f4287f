/**
 * Quiz answers: validation against the vocabulary and a canonical form.
 * Pure; shared by the score route and (later) the widget.
 */
import { MAX_REFERENCE_PERFUMES } from '../contracts/limits.ts';
import { Cache } from '../lib/cache.ts';
import {
  type AccordSlug,
  type FamilySlug,
  type OccasionSlug,
  type ProductKindSlug,
  type RatingSlug,
  resolveTerm,
  type SeasonSlug,
  slugsOf,
} from '../vocabulary/index.ts';

export interface QuizInput {
  families?: string[];
  accord_ratings?: Record<string, string>;
  season?: string;
  occasion?: string;
  /** for whom: men, women, or any (no preference); an extension of the interface's quiz */
  gender?: string;
  /** our perfume ids (sillage_perfume_id): perfumes the shopper loves, and dislikes; extensions of the interface */
  loved_perfumes?: string[];
  disliked_perfumes?: string[];
  /** with loved perfumes: the price close alternatives "for less" must be under */
  for_less_than?: number;
  /** the kinds of product wanted (vocabulary product_kind: spray, oil, bakhoor…); none: any */
  kinds?: string[];
  /** only products without alcohol: oils, bakhoor and oud wood, and what the listing says is alcohol-free */
  alcohol_free?: boolean;
  /** a price range, in the shop's currency: nothing outside it (nor without a price) is shown */
  budget?: { min?: number; max?: number };
  /** a gift for someone else (gender says for him or her): gift sets first, no decants or samples */
  gift?: boolean;
  /** the shopper wants what lasts in heat: products estimated to fade fast are left out (scoring/heat.ts) */
  lasts_in_heat?: boolean;
  /** the shopper layers (an oil or bakhoor under a spray): the answer proposes pairs from the shop's stock */
  layering?: boolean;
}

/** For whom the perfume is: a product made for the other is never shown; unisex and unknown always may be. */
export type Wearer = 'men' | 'women';

export interface Quiz {
  families: FamilySlug[];
  ratings: [AccordSlug, RatingSlug][];
  season: SeasonSlug | null;
  occasion: OccasionSlug | null;
  /** present only when the shopper said men or women */
  gender?: Wearer;
  /** perfume ids, in the shopper's order, each once; present only when some are named */
  loved?: string[];
  disliked?: string[];
  forLessThan?: number;
  /** the kinds wanted, sorted; present only when some are named */
  kinds?: ProductKindSlug[];
  alcoholFree?: true;
  /** a price range; present only when a bound is given (an absent bound is 0 or Infinity) */
  budget?: { min: number; max: number };
  gift?: true;
  lastsInHeat?: true;
  layering?: true;
}

/** The words for "no preference" (any is the slug); men and women resolve through the vocabulary's gender terms. */
const ANY_WEARER = new Set(['any', 'anyone', 'all', 'both', 'no preference', 'الكل', 'لا يهم', 'أي', 'للجميع']);

export interface QuizProblem {
  path: string;
  message: string;
}

const list = (xs: readonly string[]) => xs.join(', ');

/** Resolves every name (aliases and Arabic names allowed) or names what is wrong. */
export function normalizeQuiz(input: QuizInput): { ok: true; quiz: Quiz } | { ok: false; problems: QuizProblem[] } {
  const problems: QuizProblem[] = [];
  const families: FamilySlug[] = [];
  for (const [i, f] of (input.families ?? []).entries()) {
    const slug = resolveTerm('family', f);
    if (!slug)
      problems.push({
        path: `/body/quiz/families/${i}`,
        message: `unknown family "${f.slice(0, 40)}"; allowed: ${list(slugsOf('family'))}`,
      });
    else if (!families.includes(slug)) families.push(slug);
  }
  const ratings = new Map<AccordSlug, RatingSlug>();
  for (const [accord, rating] of Object.entries(input.accord_ratings ?? {})) {
    const a = resolveTerm('accord', accord);
    const r = typeof rating === 'string' ? resolveTerm('rating', rating) : null;
    const path = `/body/quiz/accord_ratings/${accord.slice(0, 40)}`;
    if (!a)
      problems.push({ path, message: `unknown accord "${accord.slice(0, 40)}"; allowed: ${list(slugsOf('accord'))}` });
    else if (!r)
      problems.push({
        path,
        message: `unknown rating "${String(rating).slice(0, 20)}"; allowed: ${list(slugsOf('rating'))}`,
      });
    else ratings.set(a, r);
  }
  let season: SeasonSlug | null = null;
  if (input.season !== undefined && input.season !== '') {
    season = resolveTerm('season', input.season);
    if (!season)
      problems.push({
        path: '/body/quiz/season',
        message: `unknown season "${input.season.slice(0, 40)}"; allowed: ${list(slugsOf('season'))}`,
      });
  }
  let occasion: OccasionSlug | null = null;
  if (input.occasion !== undefined && input.occasion !== '') {
    occasion = resolveTerm('occasion', input.occasion);
    if (!occasion)
      problems.push({
        path: '/body/quiz/occasion',
        message: `unknown occasion "${input.occasion.slice(0, 40)}"; allowed: ${list(slugsOf('occasion'))}`,
      });
  }
  let gender: Wearer | null = null;
  if (input.gender !== undefined && input.gender !== '') {
    const g = String(input.gender).trim().toLowerCase();
    const slug = ANY_WEARER.has(g) ? 'any' : resolveTerm('gender', g);
    if (slug === 'men' || slug === 'women') gender = slug;
    else if (slug !== 'any')
      problems.push({
        path: '/body/quiz/gender',
        message: `unknown gender "${String(input.gender).slice(0, 40)}"; allowed: men, women, any`,
      });
  }
  const perfumes = (field: 'loved_perfumes' | 'disliked_perfumes') => {
    const ids: string[] = [];
    const given = input[field] ?? [];
    if (given.length > MAX_REFERENCE_PERFUMES)
      problems.push({ path: `/body/quiz/${field}`, message: `at most ${MAX_REFERENCE_PERFUMES} perfumes` });
    for (const id of given.slice(0, MAX_REFERENCE_PERFUMES)) {
      const trimmed = String(id).trim();
      if (trimmed && !ids.includes(trimmed)) ids.push(trimmed);
    }
    return ids;
  };
  const loved = perfumes('loved_perfumes');
  const disliked = perfumes('disliked_perfumes');
  for (const [i, id] of disliked.entries())
    if (loved.includes(id))
      problems.push({
        path: `/body/quiz/disliked_perfumes/${i}`,
        message: `"${id.slice(0, 120)}" is among loved_perfumes too`,
      });
  const forLess = input.for_less_than;
  if (forLess !== undefined && (typeof forLess !== 'number' || !(forLess > 0) || !Number.isFinite(forLess)))
    problems.push({ path: '/body/quiz/for_less_than', message: 'must be a price above 0' });
  else if (forLess !== undefined && loved.length === 0)
    problems.push({ path: '/body/quiz/for_less_than', message: 'applies to loved_perfumes: name at least one' });
  const kinds: ProductKindSlug[] = [];
  if (input.kinds !== undefined) {
    for (const [i, name] of input.kinds.entries()) {
      const slug = typeof name === 'string' ? resolveTerm('product_kind', name) : null;
      if (!slug)
        problems.push({
          path: `/body/quiz/kinds/${i}`,
          message: `unknown kind of product "${String(name).slice(0, 40)}"; allowed: ${list(slugsOf('product_kind'))}`,
        });
      else if (!kinds.includes(slug)) kinds.push(slug);
    }
  }
  const price = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
  const budget = input.budget;
  if (budget !== undefined) {
    if (budget.min !== undefined && !price(budget.min))
      problems.push({ path: '/body/quiz/budget/min', message: 'must be a price of 0 or more' });
    if (budget.max !== undefined && !(price(budget.max) && (budget.max as number) > 0))
      problems.push({ path: '/body/quiz/budget/max', message: 'must be a price above 0' });
    if (budget.min !== undefined && budget.max !== undefined && budget.min > budget.max)
      problems.push({ path: '/body/quiz/budget', message: 'min must not be above max' });
  }
  const bounded = budget !== undefined && (budget.min !== undefined || budget.max !== undefined);
  if (problems.length === 0 && families.length === 0 && ratings.size === 0 && loved.length === 0) {
    problems.push({
      path: '/body/quiz',
      message: 'choose at least one family, rate at least one accord, or name a loved perfume',
    });
  }
  if (problems.length) return { ok: false, problems };
  // canonical order, so equal quizzes are equal keys
  return {
    ok: true,
    quiz: {
      families: [...families].sort(),
      ratings: [...ratings.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)),
      season,
      occasion,
      ...(gender ? { gender } : {}),
      ...(loved.length ? { loved } : {}),
      ...(disliked.length ? { disliked } : {}),
      ...(forLess !== undefined ? { forLessThan: forLess } : {}),
      ...(kinds.length ? { kinds: [...kinds].sort() } : {}),
      ...(input.alcohol_free === true ? { alcoholFree: true as const } : {}),
      ...(bounded ? { budget: { min: budget?.min ?? 0, max: budget?.max ?? Number.POSITIVE_INFINITY } } : {}),
      ...(input.gift === true ? { gift: true as const } : {}),
      ...(input.lasts_in_heat === true ? { lastsInHeat: true as const } : {}),
      ...(input.layering === true ? { layering: true as const } : {}),
    },
  };
}

const keys = new WeakMap<Quiz, string>();
/** The canonical key of a quiz (equal quizzes, equal keys), computed once per quiz object. */
export function quizKey(q: Quiz): string {
  let key = keys.get(q);
  if (key === undefined) {
    key = JSON.stringify(q);
    keys.set(q, key);
  }
  return key;
}

// pure for the bundler: a widget that imports normalizeQuiz alone ships no cache
const recent = /* @__PURE__ */ new Cache<string, Quiz>({
  name: 'quiz-normalized',
  max: 5_000,
  invalidatedBy: "never: a pure function of the answers' JSON (the vocabulary is compiled in)",
});

/**
 * normalizeQuiz, remembered by the answers' own JSON: a shop's shoppers send
 * the same few quizzes again and again. The quiz returned is shared, hence frozen.
 */
export function normalizeQuizRemembered(input: QuizInput): ReturnType<typeof normalizeQuiz> {
  const raw = JSON.stringify(input);
  const hit = recent.get(raw);
  if (hit) return { ok: true, quiz: hit };
  const result = normalizeQuiz(input);
  if (result.ok) {
    const q = result.quiz;
    for (const r of q.ratings) Object.freeze(r);
    Object.freeze(q.ratings);
    Object.freeze(q.families);
    if (q.loved) Object.freeze(q.loved);
    if (q.disliked) Object.freeze(q.disliked);
    Object.freeze(q);
    recent.set(raw, q);
  }
  return result;
}
