import cors from '@fastify/cors';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../lib/errors.ts';
import { addressFloodGuard } from '../../plugins/external/rate-limit.ts';
import event from './event.ts';
import lookup from './lookup.ts';
import score from './score.ts';
import verify from './verify.ts';

export const SUPPORTED_WIDGET_VERSIONS = ['v1'] as const;

/**
 * The widget operations: one encapsulated scope with the browser-facing rules
 * (CORS, version header, key and origin check). Rate limits are per route.
 */
const widget: FastifyPluginAsyncTypebox = async (app) => {
  // Any origin may call (no cookies are ever involved, so "*" is allowed): the
  // key travels in the body, invisible to a preflight, and the key plugin then
  // checks the request's Origin against the key's allowed origins.
  await app.register(cors, {
    origin: '*',
    methods: ['POST', 'OPTIONS'],
    allowedHeaders: ['Content-Type', 'X-Widget-Version', 'Authorization', 'X-Request-Id'],
    exposedHeaders: ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Request-Id'],
    credentials: false,
    maxAge: 600,
  });

  // the flood guard per address runs first, before the body is read (plugins/external/rate-limit.ts)
  if (app.config.addressRateLimit > 0) app.addHook('onRequest', addressFloodGuard(app.config.addressRateLimit));

  app.addHook('onRequest', (request, _reply, done) => {
    const version = request.headers['x-widget-version'];
    // absent means v1; a preflight carries no version
    if (version === undefined || request.method === 'OPTIONS') return done();
    const value = Array.isArray(version) ? version.join(',') : version.trim();
    if ((SUPPORTED_WIDGET_VERSIONS as readonly string[]).includes(value)) return done();
    done(
      new AppError(
        400,
        'unsupported_widget_version',
        `Unsupported X-Widget-Version "${value.slice(0, 40)}"; supported: ${SUPPORTED_WIDGET_VERSIONS.join(', ')}`,
      ),
    );
  });

  // a large body with a key found real in its headers draws on the keys' lane, not the strangers' (http/large-bodies.ts)
  app.addHook('onRequest', app.widgetKeyInHeaders);
  // before the per-key rate limit (a route's own preValidation hook) hashes the key
  app.addHook('preValidation', app.widgetKeyGuard);
  app.addHook('preHandler', app.authenticateWidgetKey);

  await app.register(verify);
  await app.register(lookup);
  await app.register(score);
  await app.register(event);
};

export default widget;
