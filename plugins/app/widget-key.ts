import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { createKeyGuessGuard, type KeyGuessGuard, keyGuessAddress } from '../../auth/key-guesses.ts';
import { createKeyStore, type KeyStore } from '../../auth/key-store.ts';
import { parseKey } from '../../auth/keys.ts';
import { originAllowed } from '../../auth/origins.ts';
import { LARGE_BODY_BYTES, markKnownKey } from '../../http/large-bodies.ts';
import { AppError } from '../../lib/errors.ts';
import type { ResolvedKey } from '../../services/keys.ts';
import { bearerKey, requestApiKey } from '../external/rate-limit.ts';

declare module 'fastify' {
  interface FastifyInstance {
    keyStore: KeyStore;
    /** refused widget keys per client address (auth/key-guesses.ts) */
    keyGuesses: KeyGuessGuard;
    /**
     * preValidation for widget routes, before the per-key rate limit hashes the key: an address
     * past its refused keys gets 429 for a key this instance has not found real, nothing hashed
     */
    widgetKeyGuard: (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => void;
    /**
     * onRequest for widget routes: a large body whose `Authorization: Bearer` names a key this
     * instance found real (and not revoked) draws on the keys' lane of large bodies, not the
     * strangers' (http/large-bodies.ts); nothing is hashed or looked up
     */
    widgetKeyInHeaders: (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => void;
    /** preHandler for widget routes: resolves the key, refuses with 401/403, sets request.widgetKey */
    authenticateWidgetKey: (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => void;
  }
  interface FastifyRequest {
    /** the authenticated widget key; set by authenticateWidgetKey on widget routes */
    widgetKey: ResolvedKey | null;
  }
}

/** The key of an authenticated widget request (routes in the widget scope always have one). */
export function widgetKeyOf(request: FastifyRequest): ResolvedKey {
  if (!request.widgetKey) throw new AppError(401, 'missing_api_key', 'An api_key is required');
  return request.widgetKey;
}

/** Longer than any key we issue; longer strings are refused before hashing. */
const MAX_KEY_LENGTH = 64;

export default fp(
  async (app) => {
    const keyStore = createKeyStore({ db: app.db, redis: app.redis, log: app.log, timeoutMs: app.config.dbTimeoutMs });
    app.decorate('keyStore', keyStore);
    app.decorateRequest('widgetKey', null);
    app.addHook('onClose', async () => keyStore.close());

    /** the checks on a resolved key; throws the refusal */
    function admit(request: FastifyRequest, resolved: ResolvedKey | null): void {
      if (!resolved) throw new AppError(401, 'invalid_api_key', 'The api_key is not a valid widget key');
      const origin = request.headers.origin;
      const version = request.headers['x-widget-version'];
      const widgetVersion = typeof version === 'string' ? version : undefined;
      if (resolved.revoked) {
        keyStore.sighted(resolved.id, origin, widgetVersion, 'revoked_api_key');
        throw new AppError(403, 'revoked_api_key', 'This api_key has been revoked');
      }
      if (origin !== undefined && !originAllowed(origin, resolved.allowedOrigins)) {
        keyStore.sighted(resolved.id, origin, widgetVersion, 'origin_not_allowed');
        throw new AppError(
          403,
          'origin_not_allowed',
          `Origin ${origin.slice(0, 200)} is not allowed for this api_key; add it to the key's allowed origins`,
        );
      }
      request.widgetKey = resolved;
      keyStore.markUsed(resolved.id);
      keyStore.sighted(resolved.id, origin, widgetVersion, 'ok');
    }

    const guesses = createKeyGuessGuard({ limit: app.config.refusedKeyLimit });
    app.decorate('keyGuesses', guesses);

    app.decorate('widgetKeyGuard', (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
      const key = requestApiKey(request);
      if (key !== undefined && guesses.realKey(key) !== undefined) return done();
      const refused = guesses.refusalFor(keyGuessAddress(request.ip));
      return refused ? done(refused) : done();
    });

    app.decorate('widgetKeyInHeaders', (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
      if (Number(request.headers['content-length'] ?? 0) <= LARGE_BODY_BYTES) return done();
      const key = bearerKey(request.headers.authorization);
      const hash = key === undefined ? undefined : guesses.realKey(key);
      const known = hash === undefined ? undefined : keyStore.cached(hash);
      if (known && !known.revoked) markKnownKey(request);
      done();
    });

    // A callback hook: a key this instance knows (nearly every request) is checked without a
    // promise; only a key not yet cached waits for the database.
    app.decorate(
      'authenticateWidgetKey',
      (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
        try {
          const key = requestApiKey(request);
          const realHash = key === undefined ? undefined : guesses.realKey(key);
          if (key !== undefined && realHash !== undefined) {
            // a key found real before: the ordinary check, nothing counted
            const known = keyStore.cached(realHash);
            if (known !== undefined) {
              admit(request, known);
              return done();
            }
            keyStore
              .resolve(realHash)
              .then((resolved) => {
                if (resolved) guesses.rememberReal(key, realHash);
                else {
                  guesses.forget(key);
                  guesses.refused(keyGuessAddress(request.ip));
                }
                admit(request, resolved);
              })
              .then(() => done(), done);
            return;
          }
          // any other key is counted before it is parsed, hashed or looked up; a real one gives it back
          const check = guesses.startCheck(keyGuessAddress(request.ip));
          if (!check.ok) throw check.error;
          if (!key) {
            throw new AppError(
              401,
              'missing_api_key',
              'An api_key is required: send it in the JSON body or as "Authorization: Bearer <key>"',
            );
          }
          const parsed = key.length <= MAX_KEY_LENGTH ? parseKey(key) : ({ ok: false } as const);
          if (!parsed.ok) throw new AppError(401, 'invalid_api_key', 'The api_key is not a valid widget key');
          const found = (resolved: ResolvedKey | null) => {
            if (resolved) {
              guesses.rememberReal(key, parsed.hash);
              check.release();
            }
            admit(request, resolved);
          };
          const known = keyStore.cached(parsed.hash);
          if (known !== undefined) {
            found(known);
            return done();
          }
          keyStore
            .resolve(parsed.hash)
            .then(found, (err: Error) => {
              // not answered (the database): not a refusal
              check.release();
              throw err;
            })
            .then(() => done(), done);
        } catch (err) {
          done(err as Error);
        }
      },
    );
  },
  { name: 'widget-key', dependencies: ['database', 'redis'] },
);
