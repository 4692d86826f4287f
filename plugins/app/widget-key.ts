import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { createKeyStore, type KeyStore } from '../../auth/key-store.ts';
import { parseKey } from '../../auth/keys.ts';
import { originAllowed } from '../../auth/origins.ts';
import { AppError } from '../../lib/errors.ts';
import type { ResolvedKey } from '../../services/keys.ts';
import { requestApiKey } from '../external/rate-limit.ts';

declare module 'fastify' {
  interface FastifyInstance {
    keyStore: KeyStore;
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

    // A callback hook: a key this instance knows (nearly every request) is checked without a
    // promise; only a key not yet cached waits for the database.
    app.decorate(
      'authenticateWidgetKey',
      (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
        try {
          const key = requestApiKey(request);
          if (!key) {
            throw new AppError(
              401,
              'missing_api_key',
              'An api_key is required: send it in the JSON body or as "Authorization: Bearer <key>"',
            );
          }
          const parsed = key.length <= MAX_KEY_LENGTH ? parseKey(key) : ({ ok: false } as const);
          if (!parsed.ok) throw new AppError(401, 'invalid_api_key', 'The api_key is not a valid widget key');
          const known = keyStore.cached(parsed.hash);
          if (known !== undefined) {
            admit(request, known);
            return done();
          }
          keyStore
            .resolve(parsed.hash)
            .then((resolved) => admit(request, resolved))
            .then(() => done(), done);
        } catch (err) {
          done(err as Error);
        }
      },
    );
  },
  { name: 'widget-key', dependencies: ['database', 'redis'] },
);
