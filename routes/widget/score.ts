import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { catalogProfile, hintProfile, validateProductInput } from '../../catalog/enrich.ts';
import { matchListing } from '../../catalog/matcher.ts';
import type { CatalogSnapshot } from '../../catalog/store.ts';
import { errorResponses } from '../../contracts/common.ts';
import { ScoreRequestSchema, ScoreResponseSchema } from '../../contracts/widget.ts';
import { AppError, type ErrorDetail } from '../../lib/errors.ts';
import { timeOrderedId } from '../../lib/ids.ts';
import { JsonTemplates } from '../../lib/json-template.ts';
import { type RecordedAnswer, recordedAnswer } from '../../plugins/app/sessions.ts';
import { widgetKeyOf } from '../../plugins/app/widget-key.ts';
import { widgetRateLimit } from '../../plugins/external/rate-limit.ts';
import { poweredBy } from '../../scoring/attribution.ts';
import { CompiledCatalog, lineOf, type ScoredAnswer, type ScoringProduct } from '../../scoring/catalog.ts';
import { normalizeQuizRemembered, type Quiz } from '../../scoring/quiz.ts';
import type { ResolvedKey } from '../../services/keys.ts';

/** Inline products matched recently: a storefront sends the same products on every quiz. */
const INLINE_MATCH_CACHE = 20_000;
const inlineMatches = new Map<string, ReturnType<typeof matchListing>>();
function cachedMatch(snapshot: CatalogSnapshot, name: string, house: string) {
  const key = `${snapshot.version}|${house}|${name}`;
  let hit = inlineMatches.get(key);
  if (!hit) {
    hit = matchListing(snapshot, { name, house });
    if (inlineMatches.size >= INLINE_MATCH_CACHE) {
      const oldest = inlineMatches.keys().next().value;
      if (oldest !== undefined) inlineMatches.delete(oldest);
    }
    inlineMatches.set(key, hit);
  }
  return hit;
}

/** Validates and matches an inline catalog the way a sync would; a bad row fails the request, naming it. */
function compileInline(snapshot: CatalogSnapshot, rows: readonly unknown[]): CompiledCatalog {
  const problems: ErrorDetail[] = [];
  const products: ScoringProduct[] = [];
  const seen = new Set<string>();
  rows.forEach((raw, i) => {
    const v = validateProductInput(raw);
    if (!v.ok) {
      problems.push({ path: `/body/inline_catalog/${i}`, message: v.reason });
      return;
    }
    const p = v.product;
    if (seen.has(p.merchantProductId)) {
      problems.push({ path: `/body/inline_catalog/${i}`, message: 'merchant_product_id appears twice' });
      return;
    }
    seen.add(p.merchantProductId);
    const match = cachedMatch(snapshot, p.name, p.house);
    const perfume = match.perfumeId ? snapshot.byId.get(match.perfumeId) : undefined;
    const profile = perfume ? catalogProfile(perfume) : hintProfile(p);
    if (!profile) return; // neither matched nor hinted: never recommended
    products.push({
      merchantProductId: p.merchantProductId,
      perfumeId: perfume?.id ?? null,
      name: p.name,
      house: p.house,
      price: p.price,
      currency: p.currency,
      productUrl: p.productUrl,
      imageUrl: p.imageUrl ?? perfume?.imageUrl ?? null,
      quality: perfume ? 'full' : 'partial',
      profile,
      line: perfume ? lineOf(perfume.house, perfume.name) : `merchant|${lineOf(p.house, p.name)}`,
      lineHouse: perfume?.house ?? p.house,
    });
  });
  if (problems.length) {
    throw new AppError(
      400,
      'invalid_inline_catalog',
      `Invalid request: inline_catalog ${problems[0]?.path.split('/').pop()}: ${problems[0]?.message}`,
      problems.slice(0, 20),
    );
  }
  return new CompiledCatalog(snapshot.version, products);
}

/** What a session records of its quiz and answer (see plugins/app/sessions.ts). */
function sessionAnswer(answer: ScoredAnswer, quiz: Quiz, mode: 'synced' | 'inline', merchantId: string) {
  const shown = (list: 'recommendations' | 'also_explore') =>
    answer[list].map((r, i) => ({
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

/**
 * A cached synced answer belongs to one normalised quiz (its cache key), so the
 * recorded answer (its JSON and id) is computed once, and its response bytes once per
 * locale, key mode and merchant (lib/json-template.ts).
 */
const recorded = new WeakMap<ScoredAnswer, RecordedAnswer>();
function recordedOf(answer: ScoredAnswer, quiz: Quiz, merchantId: string) {
  let r = recorded.get(answer);
  if (!r) {
    r = sessionAnswer(answer, quiz, 'synced', merchantId);
    recorded.set(answer, r);
  }
  return r;
}

/** The score answer (a module function: a closure per request costs more than it reads) */
function answerBody(
  poweredByUrl: string,
  key: ResolvedKey,
  answer: ScoredAnswer,
  locale: 'ar' | 'en',
  session: string,
) {
  return {
    session_id: session,
    merchant: key.merchant,
    recommendations: answer.recommendations,
    also_explore: answer.also_explore,
    taste_summary: answer.taste_summary,
    powered_by: poweredBy(poweredByUrl, locale, key.merchant.slug, session),
    test_mode: key.mode === 'test',
  };
}

/**
 * What else a cached answer's bytes depend on: locale, key mode and the merchant
 * block. Kept per resolved key (the key cache hands out the same object for a
 * second), so a request neither builds nor hashes a new string.
 */
const variants = new WeakMap<ResolvedKey, { ar?: string; en?: string }>();
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

const score: FastifyPluginAsyncTypebox = async (app) => {
  const answers = new JsonTemplates<ScoredAnswer>();
  app.post(
    '/score',
    {
      config: { rateLimit: widgetRateLimit('score') },
      schema: {
        tags: ['widget'],
        summary: "Scores quiz answers against the merchant's catalog",
        description:
          'Ranked recommendations (at most `limit`, default 6, maximum 24), products from families the shopper did not pick in `also_explore`, a taste summary and the attribution block. `catalog_mode` synced (default) uses the products synced for the merchant; inline uses `inline_catalog` (at most 200 products), matched on the fly. 100 requests a minute per key and client address.',
        security: [{ widgetKey: [] }],
        body: ScoreRequestSchema,
        response: { 200: ScoreResponseSchema, ...errorResponses },
      },
    },
    // Not an async function: with the merchant's catalog already compiled here (nearly every
    // request) the answer is sent without a promise; only a first request waits for the load.
    (request, reply) => {
      const key = widgetKeyOf(request);
      const body = request.body;
      const normalized = normalizeQuizRemembered(body.quiz);
      if (!normalized.ok) {
        const first = normalized.problems[0];
        throw new AppError(
          400,
          'invalid_quiz',
          `Invalid quiz: ${first?.path.replace('/body/quiz', 'quiz').replace(/^quiz\//, '')} ${first?.message}`,
          normalized.problems,
        );
      }
      const mode = body.catalog_mode ?? 'synced';
      if (mode === 'inline' && !body.inline_catalog) {
        throw new AppError(
          400,
          'validation_failed',
          'Invalid request: inline_catalog is required when catalog_mode is inline',
          [{ path: '/body/inline_catalog', message: 'is required when catalog_mode is inline' }],
        );
      }
      const call: ScoreCall = {
        key,
        quiz: normalized.quiz,
        mode,
        limit: body.limit ?? 6,
        locale: body.locale ?? 'ar',
        // time-ordered (UUIDv7): the session log's primary key then grows at its end (docs/decisions.md)
        sessionId: body.session_id ?? timeOrderedId(),
      };
      const compiled =
        mode === 'inline'
          ? compileInline(app.catalog.current(), body.inline_catalog ?? [])
          : app.merchantCatalogs.cached(key.merchant.id);
      if (compiled) return respond(call, compiled, reply);
      return app.merchantCatalogs.get(key.merchant.id).then(async (loaded) => {
        const body = respond(call, loaded, reply);
        // bytes already sent: resolve once they are written, or Fastify would send the reply again
        if (body === undefined) await reply;
        return body;
      });
    },
  );

  /** scores, records the session and answers; undefined when the answer's bytes were sent */
  function respond(call: ScoreCall, compiled: CompiledCatalog, reply: FastifyReply) {
    const { key, quiz, mode, limit, locale, sessionId } = call;
    const answer = compiled.score(quiz, limit);

    // a synced answer is shared by every request with the same quiz: so is its record's JSON
    app.sessions.record({
      id: sessionId,
      merchantId: key.merchant.id,
      keyId: key.id,
      test: key.mode === 'test',
      locale,
      answer:
        mode === 'synced'
          ? recordedOf(answer, quiz, key.merchant.id)
          : sessionAnswer(answer, quiz, mode, key.merchant.id),
    });

    const serialize = mode === 'synced' ? reply.getSerializationFunction('200') : undefined;
    const bytes =
      serialize &&
      answers.bytes(answer, variantOf(key, locale), sessionId, (session) =>
        serialize(answerBody(app.config.poweredByUrl, key, answer, locale, session)),
      );
    // bytes the route's serializer produced: sent as they are (the typed reply expects the object)
    if (bytes) {
      reply.type('application/json; charset=utf-8').send(bytes);
      return undefined;
    }
    return answerBody(app.config.poweredByUrl, key, answer, locale, sessionId);
  }
};

/** what a score request asks, once validated */
interface ScoreCall {
  key: ResolvedKey;
  quiz: Quiz;
  mode: 'synced' | 'inline';
  limit: number;
  locale: 'ar' | 'en';
  sessionId: string;
}

export default score;
