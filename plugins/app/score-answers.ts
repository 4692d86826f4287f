import fp from 'fastify-plugin';
import { JsonTemplates } from '../../http/json-template.ts';
import { AppError } from '../../lib/errors.ts';
import { scoringProductOf } from '../../matching/recognise.ts';
import { poweredBy } from '../../scoring/powered-by.ts';
import {
  CompiledProducts,
  type QuizReferences,
  type ScoredAnswer,
  type ScoringProduct,
} from '../../scoring/products.ts';
import type { Quiz } from '../../scoring/quiz.ts';
import type { ResolvedKey } from '../../services/keys.ts';
import { withLearnt } from '../../services/learnt.ts';
import { type RecordedAnswer, recordedAnswer } from './sessions.ts';

/** What a score request asks, once validated. */
export interface ScoreCall {
  key: ResolvedKey;
  quiz: Quiz;
  /** the loved and disliked perfumes the quiz names, resolved from our catalog */
  references?: QuizReferences;
  mode: 'synced' | 'inline';
  limit: number;
  locale: 'ar' | 'en';
  sessionId: string;
}

/** The score answer's body, as the route's response schema declares it. */
export type ScoreAnswerBody = ReturnType<typeof answerBody>;

declare module 'fastify' {
  interface FastifyInstance {
    scoreAnswers: {
      /**
       * The products a call is scored against: the inline ones (validated and
       * recognised; a bad row is a 400 naming it), or the merchant's compiled
       * products — at once when loaded here, else once they are.
       */
      productsFor(
        call: ScoreCall,
        inline: readonly unknown[] | undefined,
      ): CompiledProducts | Promise<CompiledProducts>;
      /**
       * Scores the call, records its session, and gives the answer: its bytes,
       * rendered by `serialize` once per cached answer and variant and then
       * spliced with the session id, or (inline, or a session id that cannot be
       * spliced) the body for the route to serialise.
       */
      answer(
        call: ScoreCall,
        products: CompiledProducts,
        serialize: ((body: ScoreAnswerBody) => string) | undefined,
      ): Buffer | ScoreAnswerBody;
    };
  }
}

/** At most this many row problems are listed in a 400 (the first names the row in its message). */
const MAX_PROBLEMS = 20;

/**
 * Turns a validated score request into its answer: the products it is scored
 * against, the scoring, the session record and the response bytes. The three
 * memos below are side tables keyed by objects the caches already hold (a
 * cached answer, a cached key), so they go when their owner is evicted.
 */
/** The characters of all the descriptions of one inline catalog together. */
export const MAX_INLINE_DESCRIPTION_CHARS = 200_000;

export default fp(
  async (app) => {
    const templates = new JsonTemplates<ScoredAnswer>();
    /** a cached synced answer belongs to one normalised quiz, so its session record is computed once */
    const recorded = new WeakMap<ScoredAnswer, RecordedAnswer>();
    /** what else a cached answer's bytes depend on: locale, key mode and the merchant block, per resolved key */
    const variants = new WeakMap<ResolvedKey, { ar?: string; en?: string }>();

    function productsFor(call: ScoreCall, inline: readonly unknown[] | undefined) {
      if (call.mode === 'inline') {
        checkInlineSize(inline ?? []);
        return compileInline(call.key.merchant, inline ?? []);
      }
      return app.merchantProducts.cached(call.key.merchant.id) ?? app.merchantProducts.get(call.key.merchant.id);
    }

    function checkInlineSize(rows: readonly unknown[]): void {
      // descriptions are read for their notes: an inline catalog's together are capped, so the
      // largest score request costs what 50 full descriptions do, not 200
      let described = 0;
      for (const r of rows) {
        const d = (r as { description?: unknown } | null)?.description;
        if (typeof d === 'string') described += d.length;
      }
      if (described > MAX_INLINE_DESCRIPTION_CHARS) {
        throw new AppError(
          400,
          'invalid_inline_catalog',
          `Invalid request: inline_catalog descriptions total ${described} characters; at most ${MAX_INLINE_DESCRIPTION_CHARS} (sync the products to send more)`,
        );
      }
    }

    async function compileInline(
      merchant: { id: string; learns: boolean },
      rows: readonly unknown[],
    ): Promise<CompiledProducts> {
      const snapshot = app.catalog.current();
      const version = snapshot.version;
      const found = await app.inlineMatcher.match(merchant.id, rows);
      const { problems } = found;
      const first = problems[0];
      if (first) {
        throw new AppError(
          400,
          'invalid_inline_catalog',
          `Invalid request: inline_catalog ${first.index}: ${first.message}`,
          problems.slice(0, MAX_PROBLEMS).map((p) => ({ path: `/body/inline_catalog/${p.index}`, message: p.message })),
        );
      }
      // a barcode the shelves taught matches what its name does not (one lookup for the catalog's barcodes)
      const recognised = await withLearnt(app.db, snapshot, merchant, found.recognised);
      const products: ScoringProduct[] = [];
      for (const r of recognised) {
        const p = scoringProductOf(r);
        if (p) products.push(p);
      }
      // scored once: nothing to remember answers for
      return new CompiledProducts(version, products, { rememberAnswers: false, imageBase: app.config.publicBaseUrl });
    }

    function answer(
      call: ScoreCall,
      products: CompiledProducts,
      serialize: ((body: ScoreAnswerBody) => string) | undefined,
    ): Buffer | ScoreAnswerBody {
      const { key, quiz, mode, limit, locale, sessionId } = call;
      const scored = products.score(quiz, limit, call.references);
      app.sessions.record({
        id: sessionId,
        merchantId: key.merchant.id,
        keyId: key.id,
        test: key.mode === 'test',
        locale,
        answer:
          mode === 'synced'
            ? recordedOf(scored, quiz, key.merchant.id)
            : sessionAnswer(scored, quiz, mode, key.merchant.id),
      });
      // inline answers are scored afresh for each request: a template would be used once
      const bytes =
        mode === 'synced' && serialize
          ? templates.bytes(scored, variantOf(key, locale), sessionId, (session) =>
              serialize(answerBody(app.config.poweredByUrl, key, products, scored, locale, session)),
            )
          : null;
      return bytes ?? answerBody(app.config.poweredByUrl, key, products, scored, locale, sessionId);
    }

    function recordedOf(scored: ScoredAnswer, quiz: Quiz, merchantId: string) {
      let r = recorded.get(scored);
      if (!r) {
        r = sessionAnswer(scored, quiz, 'synced', merchantId);
        recorded.set(scored, r);
      }
      return r;
    }

    function variantOf(key: ResolvedKey, locale: 'ar' | 'en'): string {
      let v = variants.get(key);
      if (!v) {
        v = {};
        variants.set(key, v);
      }
      let variant = v[locale];
      if (variant === undefined) {
        variant = `${locale}|${key.mode}|${key.merchant.id}|${key.merchant.slug}|${key.merchant.name}`;
        v[locale] = variant;
      }
      return variant;
    }

    app.decorate('scoreAnswers', { productsFor, answer });
  },
  { name: 'score-answers', dependencies: ['sessions', 'catalog', 'merchant-products', 'inline-matcher'] },
);

/** What a session records of its quiz and answer (see plugins/app/sessions.ts). */
function sessionAnswer(scored: ScoredAnswer, quiz: Quiz, mode: 'synced' | 'inline', merchantId: string) {
  const shown = (list: 'recommendations' | 'also_explore') =>
    scored[list].map((r, i) => ({
      merchant_product_id: r.merchant_product_id,
      position: i + 1,
      match_score: r.match_score,
      list,
    }));
  return recordedAnswer(
    merchantId,
    JSON.stringify({ ...quiz, catalog_mode: mode }),
    JSON.stringify([...shown('recommendations'), ...shown('also_explore')]),
  );
}

/** The score answer (a module function: a closure per request costs more than it reads). */
function answerBody(
  poweredByUrl: string,
  key: ResolvedKey,
  products: CompiledProducts,
  scored: ScoredAnswer,
  locale: 'ar' | 'en',
  session: string,
) {
  return {
    session_id: session,
    merchant: key.merchant,
    // each product named in the shopper's language where our catalog has the name
    recommendations: scored.recommendations.map((r) => products.inLocale(r, locale)),
    also_explore: scored.also_explore.map((r) => products.inLocale(r, locale)),
    taste_summary: scored.taste_summary,
    ...(scored.layering
      ? {
          layering: scored.layering.map((pair) => ({
            ...pair,
            base: products.inLocale(pair.base, locale),
            top: products.inLocale(pair.top, locale),
          })),
        }
      : {}),
    ...(scored.alternatives
      ? {
          alternatives: scored.alternatives.map((a) => ({
            ...a,
            products: a.products.map((r) => products.inLocale(r, locale)),
          })),
        }
      : {}),
    powered_by: poweredBy(poweredByUrl, locale, key.merchant.slug, session),
    test_mode: key.mode === 'test',
  };
}
