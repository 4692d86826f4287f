import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { CatalogSnapshot } from '../../catalog/store.ts';
import { errorResponses, success, WIDGET_OPERATION } from '../../contracts/errors.ts';
import { SCORE_EXAMPLE } from '../../contracts/examples.ts';
import {
  SCORE_MAX_BYTES,
  type ScoreRequest,
  ScoreRequestDocument,
  ScoreRequestSchema,
  ScoreResponseSchema,
} from '../../contracts/widget.ts';
import { writeAtEndOfTurn } from '../../http/end-of-turn-writes.ts';
import { AppError } from '../../lib/errors.ts';
import { timeOrderedId } from '../../lib/ids.ts';
import type { ScoreCall } from '../../plugins/app/score-answers.ts';
import { widgetKeyOf } from '../../plugins/app/widget-key.ts';
import { widgetRateLimit } from '../../plugins/external/rate-limit.ts';
import { documentAs } from '../../plugins/external/swagger.ts';
import { type CompiledProducts, type QuizReferences, referenceOf } from '../../scoring/products.ts';
import { normalizeQuizRemembered, type Quiz, type QuizProblem } from '../../scoring/quiz.ts';
import type { ResolvedKey } from '../../services/keys.ts';

const invalidQuiz = (problems: QuizProblem[]) => {
  const first = problems[0];
  return new AppError(
    400,
    'invalid_quiz',
    `Invalid quiz: ${first?.path.replace('/body/quiz', 'quiz').replace(/^quiz\//, '')} ${first?.message}`,
    problems,
  );
};

/** The loved and disliked perfumes a quiz names, from our catalog; ids it lacks are a 400 naming each. */
function referencesOf(quiz: Quiz, catalog: CatalogSnapshot): QuizReferences {
  const problems: QuizProblem[] = [];
  const resolve = (ids: readonly string[] | undefined, field: string) =>
    (ids ?? []).flatMap((id, i) => {
      const p = catalog.byId.get(id);
      if (p) return [referenceOf(p)];
      problems.push({
        path: `/body/quiz/${field}/${i}`,
        message: `unknown perfume "${id.slice(0, 120)}": not in our catalog (lookup gives sillage_perfume_id)`,
      });
      return [];
    });
  const refs = { loved: resolve(quiz.loved, 'loved_perfumes'), disliked: resolve(quiz.disliked, 'disliked_perfumes') };
  if (problems.length) throw invalidQuiz(problems);
  return refs;
}

/** The request, checked beyond its schema: a quiz of known terms and perfumes, and inline products when inline. */
function scoreCallOf(body: ScoreRequest, key: ResolvedKey, catalog: CatalogSnapshot): ScoreCall {
  const normalized = normalizeQuizRemembered(body.quiz);
  if (!normalized.ok) throw invalidQuiz(normalized.problems);
  const mode = body.catalog_mode ?? 'synced';
  if (mode === 'inline' && !body.inline_catalog) {
    throw new AppError(
      400,
      'validation_failed',
      'Invalid request: inline_catalog is required when catalog_mode is inline',
      [{ path: '/body/inline_catalog', message: 'is required when catalog_mode is inline' }],
    );
  }
  return {
    key,
    quiz: normalized.quiz,
    references: normalized.quiz.loved || normalized.quiz.disliked ? referencesOf(normalized.quiz, catalog) : undefined,
    mode,
    limit: body.limit ?? 6,
    locale: body.locale ?? 'ar',
    // time-ordered (UUIDv7): the session log's primary key then grows at its end (docs/decisions.md)
    sessionId: body.session_id ?? timeOrderedId(),
  };
}

const score: FastifyPluginAsyncTypebox = async (app) => {
  /** the answer, or undefined when its bytes were sent (rendered once per cached answer: plugins/app/score-answers.ts) */
  function send(call: ScoreCall, products: CompiledProducts, reply: FastifyReply) {
    const answer = app.scoreAnswers.answer(call, products, reply.getSerializationFunction('200'));
    if (!Buffer.isBuffer(answer)) return answer;
    reply.type('application/json; charset=utf-8').send(answer);
    return undefined;
  }

  app.post(
    '/score',
    {
      bodyLimit: SCORE_MAX_BYTES,
      config: {
        rateLimit: widgetRateLimit('score'),
        swaggerTransform: documentAs({ body: { ...ScoreRequestDocument, examples: [SCORE_EXAMPLE.request] } }),
      },
      // the one route answered often enough for batching its writes to pay (http/end-of-turn-writes.ts)
      onSend: writeAtEndOfTurn,
      schema: {
        operationId: 'scoreQuiz',
        tags: ['widget'],
        summary: "Scores quiz answers against the merchant's catalog",
        description:
          'Ranked recommendations (at most `limit`, default 6, maximum 24), products from families the shopper did not pick in `also_explore`, a taste summary and the attribution block. `catalog_mode` synced (default) uses the products synced for the merchant; inline uses `inline_catalog` (at most 200 products), matched on the fly on a worker thread: at most 2 inline catalogs of one merchant are matched or waiting at once (429 `rate_limited` past that), and 503 `overloaded` when 16 wait. 100 requests a minute per key and client address. A body of at most 1 MiB.',
        security: [{ widgetKey: [] }],
        body: ScoreRequestSchema,
        response: {
          200: success(ScoreResponseSchema, 'Ranked recommendations, also_explore, the taste summary and attribution', {
            rateLimited: true,
            example: SCORE_EXAMPLE.response,
          }),
          ...errorResponses([...WIDGET_OPERATION, 'invalid_quiz', 'invalid_inline_catalog', 'overloaded'], {
            rateLimited: true,
          }),
        },
      },
    },
    // Not an async function: with the merchant's products already compiled here (nearly every
    // request) the answer is sent without a promise; only a first request waits for the load.
    (request, reply) => {
      const call = scoreCallOf(request.body, widgetKeyOf(request), app.catalog.current());
      const products = app.scoreAnswers.productsFor(call, request.body.inline_catalog);
      if (!(products instanceof Promise)) return send(call, products, reply);
      return products.then(async (loaded) => {
        const answer = send(call, loaded, reply);
        // bytes already sent: resolve once they are written, or Fastify would send the reply again
        if (answer === undefined) await reply;
        return answer;
      });
    },
  );
};

export default score;
