import fp from 'fastify-plugin';
import { findUnstorableText } from '../../http/storable-text.ts';
import { AppError } from '../../lib/errors.ts';

/**
 * Refuses, on every route, a body, path parameter or query holding text PostgreSQL cannot store (a NUL,
 * an unpaired surrogate): 400 with where it was. See http/storable-text.ts.
 */
export default fp(
  async (app) => {
    app.addHook('preValidation', (request, _reply, done) => {
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
    });
  },
  { name: 'body-guard' },
);
