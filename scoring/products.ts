/**
 * A merchant's recommendable products, compiled for the engine, with an LRU of
 * answers for quizzes it has already scored: the same quiz on the same catalog
 * version is answered without scoring again.
 */

import type { CatalogPerfume, ProductProfile, ProfileQuality } from '../catalog/types.ts';
import type { AlsoExplore, Alternatives, LayeringPairView, Recommendation } from '../contracts/widget.ts';
import { Cache } from '../lib/cache.ts';
import { normalizeText } from '../lib/text.ts';
import type { ProductKind } from '../matching/kind.ts';
import { noteKey, resolveNote } from '../vocabulary/notes.ts';
import {
  buildProductMatrix,
  buildTaste,
  CLOSE_SIMILARITY,
  fitOf,
  KIND_BIT,
  keepBest,
  matchAccords,
  NEVER_LIKE_A_PERFUME,
  type ProductMatrix,
  REL_DISLIKED,
  REL_NONE,
  REL_SAME,
  REL_VERSION,
  type ReferencePerfume,
  type References,
  type Relations,
  rank,
  type Scored,
  TIER_NEVER_SHOWN,
  tasteSummary,
  WEAK_FLOOR,
} from './engine.ts';
import { estimateHeat, type HeatEstimate, LASTING_LEVEL } from './heat.ts';
import { layeringPairs } from './layering.ts';
import { type Quiz, quizKey } from './quiz.ts';
import { scentImageQuery } from './scent-image.ts';

export interface ScoringProduct {
  merchantProductId: string;
  perfumeId: string | null;
  name: string;
  house: string;
  price: number | null;
  currency: string;
  productUrl: string | null;
  imageUrl: string | null;
  /** what its profile rests on (catalog/types.ts ProfileQuality) */
  quality: ProfileQuality;
  /**
   * Matched as a concentration sibling of our perfume (the listing names a concentration the catalog
   * lacks): a version of it, never the perfume itself, whatever its profile rests on.
   */
  sibling?: boolean;
  /** for whom it is made: our perfume's, else what the listing says ("for men", "نسائي"); null when not known */
  gender?: 'men' | 'women' | 'unisex' | null;
  /** what kind of product it is, read from its listing (matching/kind.ts); a spray when not given */
  kind?: ProductKind;
  /** its listing says it holds no alcohol */
  alcoholFree?: boolean;
  /** its concentration: the listing's words, else our perfume's (edp, edt, parfum…); null when not known */
  concentration?: string | null;
  profile: ProductProfile;
  /** perfume line (house + perfume name) for diversity; the product's own name when unmatched */
  line: string;
  lineHouse: string;
  /**
   * The product is a perfume of ours (matched, not a sibling, whatever its profile rests on): our
   * perfume's name and house in each language (null where the catalog has none). A shopper reading
   * the other language than the listing's sees these (CompiledProducts.inLocale).
   */
  names?: PerfumeNames;
  /** quality inspired: the perfume whose profile it takes, by id and its names in each language */
  inspiredBy?: { id: string } & PerfumeNames;
  /** quality shops: how many independent shop descriptions its profile rests on */
  shops?: number;
}

/** A perfume's name and house in each language (null where the catalog has none in Arabic). */
export interface PerfumeNames {
  en: { name: string; house: string };
  ar: { name: string | null; house: string | null };
}

/** Whether a listing is written in Arabic script (Arabic, its supplement and extended-A letters). */
const inArabic = (s: string) => /[\u0600-\u06FF\u0750-\u077F\u08A0-\u08FF]/.test(s);

// Stryker disable next-line StringLiteral: the cache registry's description, read by people
const NOTE_KEYS_KEPT = 'never: a pure function of the note name and the shipped notes vocabulary';
// names come from a bounded catalog and merchants' synced products; the cache is capped all the same
// Stryker disable next-line ObjectLiteral,StringLiteral: the cache registry's label, bound and description, read by people
const noteKeys = new Cache<string, string>({ name: 'canonical-note', max: 50_000, invalidatedBy: NOTE_KEYS_KEPT });
/** A note as the engine compares it: the notes knowledge base's name ("برغموت" is bergamot's), else its own key. */
function canonicalNote(name: string): string {
  const known = noteKeys.get(name);
  // Stryker disable next-line ConditionalExpression: a memo; without it the same key is computed again
  if (known !== undefined) return known;
  const key = resolveNote(name)?.slug ?? noteKey(name);
  noteKeys.set(name, key);
  return key;
}

/** A profile's notes (every tier), canonical and each once. */
export function notesOf(notes: { top?: readonly string[]; heart?: readonly string[]; base?: readonly string[] }) {
  return [...new Set([...(notes.top ?? []), ...(notes.heart ?? []), ...(notes.base ?? [])].map(canonicalNote))];
}

const references = new WeakMap<CatalogPerfume, ReferencePerfume>();
/** A perfume of our catalog as a loved or disliked one (computed once per catalog record). */
export function referenceOf(p: CatalogPerfume): ReferencePerfume {
  let r = references.get(p);
  if (!r) {
    r = { id: p.id, name: p.name, house: p.house, families: p.families, accords: p.accords, notes: notesOf(p.notes) };
    references.set(p, r);
  }
  return r;
}

/** The perfumes a quiz names, resolved from our catalog. */
export interface QuizReferences {
  loved: readonly ReferencePerfume[];
  disliked: readonly ReferencePerfume[];
}

/** Names of one line: the same name (another concentration), or one the start of the other (a flanker: "Sauvage" and "Sauvage Elixir"). */
const sameLine = (a: string, b: string) => a === b || a.startsWith(`${b} `) || b.startsWith(`${a} `);

export interface ScoredAnswer {
  recommendations: Recommendation[];
  also_explore: AlsoExplore[];
  taste_summary: ReturnType<typeof tasteSummary> & { gift?: { recipient: 'him' | 'her' | 'anyone' } };
  /** with quiz.layering: pairs of an oil or bakhoor and a spray from the shop's stock */
  layering?: LayeringPairView[];
  /** with loved perfumes: per loved perfume, the shop's bottles closest to it */
  alternatives?: Alternatives;
}

/** Alternatives to each loved perfume: at most this many products. */
export const ALTERNATIVES_PER_LOVED = 3;

const ANSWER_CACHE = 500;
// Stryker disable next-line StringLiteral: the cache registry's description, read by people
const ANSWERS_KEPT =
  "goes with its compiled products (a new version of the merchant's products or of our catalog compiles new ones)";

export class CompiledProducts {
  readonly matrix: ProductMatrix;
  /** answers for quizzes already scored against these products (none for products scored once) */
  private readonly answers: Cache<string, ScoredAnswer> | null;

  readonly products: readonly ScoringProduct[];
  /** each product's estimate of how it lasts and projects in heat (scoring/heat.ts) */
  private readonly heat: readonly HeatEstimate[];
  private readonly imageBase: string | null;

  constructor(
    readonly version: number,
    products: readonly ScoringProduct[],
    opts: {
      rememberAnswers?: boolean;
      /** the service's public URL: a product with no picture gets its scent's (/widget/v1/scent.svg) */
      imageBase?: string;
    } = {},
  ) {
    this.imageBase = opts.imageBase ?? null;
    this.answers =
      opts.rememberAnswers === false
        ? null
        : new Cache({
            // Stryker disable next-line StringLiteral: the cache registry's label, read by people
            name: 'product-answers',
            max: ANSWER_CACHE,
            invalidatedBy: ANSWERS_KEPT,
          });
    // equal scores rank by product id, not by the order the products came in: a
    // synced feed (read back by id) and the same rows inline then rank alike
    // (a merchant's product ids are unique: two are never equal)
    this.products = [...products].sort((a, b) => (a.merchantProductId < b.merchantProductId ? -1 : 1));
    this.heat = this.products.map((p) =>
      estimateHeat({ kind: p.kind ?? 'spray', concentration: p.concentration ?? null, accords: p.profile.accords }),
    );
    this.matrix = buildProductMatrix(
      this.products.map((p, i) => ({
        profile: p.profile,
        line: p.line,
        house: p.lineHouse,
        gender: p.gender,
        kind: p.kind ?? 'spray',
        alcoholFree: p.alcoholFree === true,
        price: p.price,
        lasting: LASTING_LEVEL[(this.heat[i] as HeatEstimate).lasting],
        notes: notesOf(p.profile.notes),
      })),
    );
    for (const p of this.products) {
      this.namesOf.set(p.merchantProductId, p.names);
      if (p.inspiredBy) this.inspiredOf.set(p.merchantProductId, p.inspiredBy);
    }
    // products matched to our catalog, by their perfume's house: where a loved perfume's versions are
    this.products.forEach((p, i) => {
      if (!p.perfumeId) return;
      const { house, name } = splitLine(p.line);
      const list = this.byHouse.get(house);
      if (list) list.push(i);
      else this.byHouse.set(house, [i]);
      this.lineName[i] = name;
    });
    const currencies = new Map<string, number>();
    for (const p of this.products) currencies.set(p.currency, (currencies.get(p.currency) ?? 0) + 1);
    this.mainCurrency = [...currencies].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'SAR';
  }

  /**
   * A product as a shopper of `locale` reads it: a listing written in the other script, matched to
   * our perfume (not a sibling), is named as the catalog names it in the shopper's language ("خمرة من
   * لطافة 100 مل" is "Khamrah", "Lattafa" in English); the merchant's own name where the catalog has
   * none, or where the listing is already in the shopper's script (it may say more: a size, an
   * edition). The perfume it is inspired by is named in the shopper's language too.
   */
  inLocale<T extends Recommendation>(r: T, locale: 'ar' | 'en'): T {
    // the perfume it is inspired by, named in the shopper's language where the catalog can
    const inspired = locale === 'ar' && r.inspired_by ? this.inspiredInArabic(r) : r;
    const names = this.namesOf.get(r.merchant_product_id);
    if (!names || inArabic(r.name) === (locale === 'ar')) return inspired;
    const own = names[locale];
    if (!own.name) return inspired;
    return { ...inspired, name: own.name, house: own.house ?? r.house };
  }

  /** `r` with its `inspired_by` named in Arabic (the English names where the catalog has none) */
  private inspiredInArabic<T extends Recommendation>(r: T): T {
    const original = this.inspiredOf.get(r.merchant_product_id) as NonNullable<ScoringProduct['inspiredBy']>;
    const { name, house } = original.ar;
    return {
      ...r,
      inspired_by: {
        sillage_perfume_id: original.id,
        name: name ?? original.en.name,
        house: house ?? original.en.house,
      },
    };
  }

  private readonly namesOf = new Map<string, ScoringProduct['names']>();
  private readonly inspiredOf = new Map<string, ScoringProduct['inspiredBy']>();
  private readonly byHouse = new Map<string, number[]>();
  private readonly lineName: string[] = [];
  private readonly mainCurrency: string;

  /**
   * How each product stands to the perfumes the quiz names: the loved perfume
   * itself (matched to it, whatever its profile rests on), a version of it (a
   * sibling listing, another concentration or a flanker), or a disliked one;
   * and the prices to beat.
   */
  private relationsOf(quiz: Quiz, refs: QuizReferences): Relations | undefined {
    if (!refs.loved.length && !refs.disliked.length) return undefined;
    const n = this.products.length;
    const rel: Relations = { relation: new Uint8Array(n), of: new Uint8Array(n) };
    const mark = (ref: ReferencePerfume, k: number, disliked: boolean) => {
      const { house, name } = splitLine(lineOf(ref.house, ref.name));
      for (const i of this.byHouse.get(house) ?? []) {
        const p = this.products[i] as ScoringProduct;
        const same = p.perfumeId === ref.id;
        if (!same && !sameLine(this.lineName[i] as string, name)) continue;
        if (disliked) rel.relation[i] = REL_DISLIKED;
        // the loved are marked before the disliked: a product the loved perfume itself stays so
        else if (rel.relation[i] !== REL_SAME) {
          // a sibling listing names another concentration than the perfume it is matched to
          rel.relation[i] = same && !p.sibling && p.quality !== 'sibling' ? REL_SAME : REL_VERSION;
          rel.of[i] = k;
        }
      }
    };
    for (const [k, r] of refs.loved.entries()) mark(r, k, false);
    for (const [k, r] of refs.disliked.entries()) mark(r, k, true);
    // one sold as the answer to a disliked perfume is scored by its profile: disliked as well
    if (refs.disliked.length) {
      const disliked = new Set(refs.disliked.map((r) => r.id));
      this.products.forEach((p, i) => {
        if (p.inspiredBy && disliked.has(p.inspiredBy.id)) rel.relation[i] = REL_DISLIKED;
      });
    }
    // the prices to beat: the shop's own price of each loved perfume, and the shopper's, the lower
    let currency: string | null = null;
    const beat = new Float64Array(refs.loved.length).fill(quiz.forLessThan ?? Number.POSITIVE_INFINITY);
    this.products.forEach((p, i) => {
      if (rel.relation[i] !== REL_SAME || p.price === null) return;
      currency ??= p.currency;
      if (p.currency !== currency) return;
      const k = rel.of[i] as number;
      beat[k] = Math.min(beat[k] as number, p.price);
    });
    currency ??= this.mainCurrency;
    if (beat.some(Number.isFinite)) {
      rel.forLessThan = beat.map((b) => (Number.isFinite(b) ? b : Number.NaN));
      rel.price = Float64Array.from(this.products, (p) =>
        p.price !== null && p.currency === currency ? p.price : Number.NaN,
      );
    }
    return rel;
  }

  /**
   * For each loved perfume, the shop's bottles closest to it: those sold as inspired by it first
   * (the house's or the shops' word), then those similar to it (CLOSE_SIMILARITY or more, the loved
   * perfume they are closest to), the most similar first. Never the perfume itself nor a version of
   * it (a sibling concentration or flanker is not an alternative), never a product the quiz rules
   * out (its budget, kinds, alcohol, wearer, avoided accords). Each with its price difference to
   * the shop's own price of the loved perfume, when the shop sells it in the same currency.
   */
  private alternativesOf(
    loved: readonly ReferencePerfume[],
    scored: Scored,
    rel: Relations | undefined,
    view: (i: number, score: number) => Recommendation,
  ): Alternatives {
    const byLoved: AlternativeCandidate[][] = loved.map(() => []);
    // the shop's lowest price of each loved perfume, per currency
    const shopPrices: Map<string, number>[] = loved.map(() => new Map());
    const index = new Map(loved.map((r, k) => [r.id, k]));
    for (let i = 0; i < this.products.length; i++) {
      const p = this.products[i] as ScoringProduct;
      const relation = rel?.relation[i] ?? REL_NONE;
      if (relation === REL_SAME) {
        const prices = shopPrices[rel?.of[i] as number] as Map<string, number>;
        if (p.price !== null && !(p.price >= (prices.get(p.currency) ?? Number.POSITIVE_INFINITY)))
          prices.set(p.currency, p.price);
        continue;
      }
      // never the perfume's versions, nothing ruled out, nothing the shopper would dislike, and never
      // bakhoor, oud wood or a mist as the answer to a perfume
      if (
        relation !== REL_NONE ||
        scored.tier[i] === TIER_NEVER_SHOWN ||
        (scored.scores[i] as number) < WEAK_FLOOR ||
        (this.matrix.kindBit[i] as number) & NEVER_LIKE_A_PERFUME
      )
        continue;
      const declared = p.inspiredBy ? index.get(p.inspiredBy.id) : undefined;
      const similarity = scored.similarity[i] as number;
      const k = declared ?? (similarity >= CLOSE_SIMILARITY * 100 ? (scored.closest[i] as number) : undefined);
      if (k === undefined) continue;
      const candidate = {
        index: i,
        inspired: declared !== undefined,
        similarity,
        price: p.price ?? Number.POSITIVE_INFINITY,
      };
      keepBest(byLoved[k] as AlternativeCandidate[], candidate, ALTERNATIVES_PER_LOVED, aheadOf);
    }
    return loved.map((ref, k) => {
      const prices = shopPrices[k] as Map<string, number>;
      // the shop's price in its main currency, else in the one it lists the perfume in
      const currency = prices.has(this.mainCurrency) ? this.mainCurrency : ([...prices.keys()][0] ?? null);
      return {
        to: { sillage_perfume_id: ref.id, name: ref.name, house: ref.house },
        shop_price: currency === null ? null : (prices.get(currency) as number),
        shop_currency: currency,
        products: (byLoved[k] as AlternativeCandidate[]).map((c) => {
          const p = this.products[c.index] as ScoringProduct;
          const theirs = prices.get(p.currency);
          return {
            ...view(c.index, scored.scores[c.index] as number),
            declared_inspired_by: c.inspired,
            // against the shop's price of the loved perfume in the product's own currency
            price_difference:
              theirs !== undefined && p.price !== null ? Math.round((p.price - theirs) * 100) / 100 : null,
          };
        }),
      };
    });
  }

  score(quiz: Quiz, limit: number, refs: QuizReferences = NO_REFERENCES): ScoredAnswer {
    const key = `${limit}|${quizKey(quiz)}`;
    const hit = this.answers?.get(key);
    if (hit) return hit;
    const taste = buildTaste(quiz, refs as References);
    const relations = this.relationsOf(quiz, refs);
    const ranking = rank(this.matrix, taste, limit, relations);
    const view = (i: number, score: number): Recommendation => {
      const p = this.products[i] as ScoringProduct;
      const similar = similarTo(p, i, refs.loved, ranking.scored, relations);
      return {
        merchant_product_id: p.merchantProductId,
        sillage_perfume_id: p.perfumeId,
        name: p.name,
        house: p.house,
        match_score: score,
        fit: fitOf(score),
        match_accords: matchAccords(this.matrix, taste, i),
        quality: p.quality,
        gender: p.gender ?? null,
        product_kind: p.kind ?? 'spray',
        alcohol_free: this.matrix.alcoholFree[i] === 1,
        price: p.price,
        currency: p.currency,
        product_url: p.productUrl,
        image_url:
          p.imageUrl ??
          (this.imageBase
            ? `${this.imageBase}/widget/v1/scent.svg?${scentImageQuery({ accords: p.profile.accords, house: p.house, name: p.name })}`
            : null),
        ...(similar ? { similar_to: similar } : {}),
        ...(p.shops ? { described_by_shops: p.shops } : {}),
        ...(p.inspiredBy
          ? {
              inspired_by: {
                sillage_perfume_id: p.inspiredBy.id,
                name: p.inspiredBy.en.name,
                house: p.inspiredBy.en.house,
              },
            }
          : {}),
        ...(quiz.lastsInHeat ? { heat: { ...(this.heat[i] as HeatEstimate), estimated: true as const } } : {}),
      };
    };
    const summary = tasteSummary(quiz, taste);
    const answer: ScoredAnswer = {
      recommendations: ranking.recommendations.map((r) => view(r.index, r.score)),
      also_explore: ranking.alsoExplore.map((r) => ({ ...view(r.index, r.score), reason: r.reason })),
      taste_summary: quiz.gift
        ? {
            ...summary,
            gift: { recipient: quiz.gender === 'men' ? 'him' : quiz.gender === 'women' ? 'her' : 'anyone' },
          }
        : summary,
      ...(quiz.layering
        ? {
            layering: layeringPairs(this.matrix, taste, ranking.scored).map((pair) => ({
              base: view(pair.base, ranking.scored.scores[pair.base] as number),
              top: view(pair.top, ranking.scored.scores[pair.top] as number),
              match_score: pair.score,
              shared_accords: pair.shared,
              steps: [
                { merchant_product_id: this.products[pair.base]?.merchantProductId as string, how: pair.steps[0] },
                { merchant_product_id: this.products[pair.top]?.merchantProductId as string, how: pair.steps[1] },
              ],
            })),
          }
        : {}),
      ...(refs.loved.length ? { alternatives: this.alternativesOf(refs.loved, ranking.scored, relations, view) } : {}),
    };
    this.answers?.set(key, answer);
    return answer;
  }
}

const NO_REFERENCES: QuizReferences = { loved: [], disliked: [] };

/** A product's place among the alternatives to a loved perfume: declared as inspired by it first, then the closest. */
interface AlternativeCandidate {
  index: number;
  inspired: boolean;
  similarity: number;
  price: number;
}

/** a before b: declared first, then the more similar, the cheaper, the earlier */
const aheadOf = (a: AlternativeCandidate, b: AlternativeCandidate) =>
  a.inspired !== b.inspired
    ? a.inspired
    : a.similarity !== b.similarity
      ? a.similarity > b.similarity
      : a.price !== b.price
        ? a.price < b.price
        : a.index < b.index;

/** What a product shares with the loved perfume it is closest to, when it is that perfume, a version of it, or like it. */
function similarTo(
  p: ScoringProduct,
  i: number,
  loved: readonly ReferencePerfume[],
  scored: Scored,
  rel: Relations | undefined,
): Recommendation['similar_to'] {
  const relation = rel?.relation[i];
  const kind =
    relation === REL_SAME
      ? 'same'
      : relation === REL_VERSION
        ? 'version'
        : // bakhoor, oud wood and a mist are never said to be like a perfume
          (scored.similarity[i] as number) >= CLOSE_SIMILARITY * 100 &&
            (KIND_BIT[p.kind ?? 'spray'] & NEVER_LIKE_A_PERFUME) === 0
          ? 'similar'
          : null;
  if (!kind) return undefined;
  const k = kind === 'similar' || !rel ? (scored.closest[i] as number) : (rel.of[i] as number);
  const ref = loved[k] as ReferencePerfume;
  const theirs = new Map(ref.accords.map((a) => [a.name, a.weight]));
  const shared = p.profile.accords
    .filter((a) => theirs.has(a.name))
    .map((a) => [a.name, Math.min(a.weight, theirs.get(a.name) as number)] as const)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 3)
    .map(([a]) => a);
  return {
    sillage_perfume_id: ref.id,
    name: ref.name,
    house: ref.house,
    relation: kind,
    similarity: scored.similarity[i] as number,
    shared_accords: shared,
  };
}

/** A perfume line's key: its house and name, normalised ("lattafa|khamrah"). */
export function lineOf(house: string, name: string): string {
  return `${normalizeText(house)}|${normalizeText(name)}`;
}

/** A line key's house and name (a line of ours always holds one bar: house and name are normalised text). */
function splitLine(line: string): { house: string; name: string } {
  const bar = line.indexOf('|');
  return { house: line.slice(0, bar), name: line.slice(bar + 1) };
}
