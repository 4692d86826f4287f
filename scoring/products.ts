/**
 * A merchant's recommendable products, compiled for the engine, with an LRU of
 * answers for quizzes it has already scored: the same quiz on the same catalog
 * version is answered without scoring again.
 */

import type { ProductProfile } from '../catalog/types.ts';
import type { AlsoExplore, Recommendation } from '../contracts/widget.ts';
import { Cache } from '../lib/cache.ts';
import { normalizeText } from '../lib/text.ts';
import {
  buildProductMatrix,
  buildTaste,
  fitOf,
  matchAccords,
  type ProductMatrix,
  rank,
  tasteSummary,
} from './engine.ts';
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
  quality: 'full' | 'sibling' | 'partial';
  /** for whom it is made: our perfume's, else what the listing says ("for men", "نسائي"); null when not known */
  gender?: 'men' | 'women' | 'unisex' | null;
  profile: ProductProfile;
  /** perfume line (house + perfume name) for diversity; the product's own name when unmatched */
  line: string;
  lineHouse: string;
}

export interface ScoredAnswer {
  recommendations: Recommendation[];
  also_explore: AlsoExplore[];
  taste_summary: ReturnType<typeof tasteSummary>;
}

const ANSWER_CACHE = 500;

export class CompiledProducts {
  readonly matrix: ProductMatrix;
  /** answers for quizzes already scored against these products (none for products scored once) */
  private readonly answers: Cache<string, ScoredAnswer> | null;

  readonly products: readonly ScoringProduct[];
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
            name: 'product-answers',
            max: ANSWER_CACHE,
            invalidatedBy:
              "goes with its compiled products (a new version of the merchant's products or of our catalog compiles new ones)",
          });
    // equal scores rank by product id, not by the order the products came in: a
    // synced feed (read back by id) and the same rows inline then rank alike
    this.products = [...products].sort((a, b) =>
      a.merchantProductId < b.merchantProductId ? -1 : a.merchantProductId > b.merchantProductId ? 1 : 0,
    );
    this.matrix = buildProductMatrix(
      this.products.map((p) => ({ profile: p.profile, line: p.line, house: p.lineHouse, gender: p.gender })),
    );
  }

  score(quiz: Quiz, limit: number): ScoredAnswer {
    const key = `${limit}|${quizKey(quiz)}`;
    const hit = this.answers?.get(key);
    if (hit) return hit;
    const taste = buildTaste(quiz);
    const ranking = rank(this.matrix, taste, limit);
    const view = (i: number, score: number): Recommendation => {
      const p = this.products[i] as ScoringProduct;
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
        price: p.price,
        currency: p.currency,
        product_url: p.productUrl,
        image_url:
          p.imageUrl ??
          (this.imageBase
            ? `${this.imageBase}/widget/v1/scent.svg?${scentImageQuery({ accords: p.profile.accords, house: p.house, name: p.name })}`
            : null),
      };
    };
    const answer: ScoredAnswer = {
      recommendations: ranking.recommendations.map((r) => view(r.index, r.score)),
      also_explore: ranking.alsoExplore.map((r) => ({ ...view(r.index, r.score), reason: r.reason })),
      taste_summary: tasteSummary(quiz, taste),
    };
    this.answers?.set(key, answer);
    return answer;
  }
}

export const lineOf = (house: string, name: string) => `${normalizeText(house)}|${normalizeText(name)}`;
