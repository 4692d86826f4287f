import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { LARGE_BODY_CHARS } from '../../http/json-body.ts';
import { findUnstorableText } from '../../http/storable-text.ts';
import { AppError } from '../../lib/errors.ts';

/** a JSON body parsed from more than LARGE_BODY_CHARS (a raw one, bytes, is one value to the guard) */
function largeJson(request: FastifyRequest): boolean {
  const length = Number(request.headers['content-length']);
  return length > LARGE_BODY_CHARS && typeof request.body === 'object' && !Buffer.isBuffer(request.body);
}

/**
 * Refuses, on every route, a body, path parameter or query holding text PostgreSQL cannot store (a NUL,
 * an unpaired surrogate): 400 with where it was. See http/storable-text.ts.
 */
export default fp(
  async (app) => {
    const guard = (request: FastifyRequest, done: (err?: Error) => void) => {
      const at =
        findUnstorableText(request.body ?? null) ??
        findUnstorableText(request.params ?? null) ??
        findUnstorableText(request.query ?? null);
      if (at === null) return done();
      done(
        new AppError(
          400,
          'unstorable_text',
          `Text at ${at.slice(0, 200)} holds a NUL character or an unpaired UTF-16 surrogate, which cannot be stored`,
        ),
      );
    };
    app.addHook('preValidation', (request, _reply, done) => {
      // a large body is walked in a turn of its own, as it was parsed (http/json-body.ts)
      if (largeJson(request)) setImmediate(guard, request, done);
      else guard(request, done);
    });
  },
  { name: 'body-guard' },
);
