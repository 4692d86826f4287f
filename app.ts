import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyServerOptions } from 'fastify';
import { type Config, loadConfig } from './config.ts';
import { SHARED_SCHEMAS } from './contracts/widget.ts';
import type { Database } from './db/client.ts';
import { depthLimitedJsonParser } from './http/json-body.ts';
import { rememberedTrust } from './http/trust-proxy.ts';
import { AppError } from './lib/errors.ts';
import { loggableUrl } from './lib/log-url.ts';
import bodyGuardPlugin from './plugins/app/body-guard.ts';
import catalogPlugin from './plugins/app/catalog.ts';
import catalogUpgradePlugin from './plugins/app/catalog-upgrade.ts';
import databasePlugin from './plugins/app/database.ts';
import deliveriesPlugin from './plugins/app/deliveries.ts';
import demoPlugin from './plugins/app/demo.ts';
import erasurePlugin from './plugins/app/erasure.ts';
import errorsPlugin, { clientErrorHandler, frameworkErrors } from './plugins/app/errors.ts';
import eventWriterPlugin from './plugins/app/event-writer.ts';
import feedRunnerPlugin from './plugins/app/feed-runner.ts';
import inlineMatcherPlugin from './plugins/app/inline-matcher.ts';
import jobsPlugin from './plugins/app/jobs.ts';
import largeBodiesPlugin from './plugins/app/large-bodies.ts';
import leadsPlugin from './plugins/app/leads.ts';
import learningPlugin from './plugins/app/learning.ts';
import merchantProductsPlugin from './plugins/app/merchant-products.ts';
import metricsPlugin from './plugins/app/metrics.ts';
import platformsPlugin from './plugins/app/platforms.ts';
import redisPlugin from './plugins/app/redis.ts';
import retentionPlugin from './plugins/app/retention.ts';
import scoreAnswersPlugin from './plugins/app/score-answers.ts';
import sessionsPlugin from './plugins/app/sessions.ts';
import shopifyPlugin from './plugins/app/shopify.ts';
import widgetKeyPlugin from './plugins/app/widget-key.ts';
import woocommercePlugin from './plugins/app/woocommerce.ts';
import zidPlugin from './plugins/app/zid.ts';
import rateLimitPlugin from './plugins/external/rate-limit.ts';
import swaggerPlugin from './plugins/external/swagger.ts';
import adminRoutes from './routes/admin/index.ts';
import consoleRoutes from './routes/console/index.ts';
import demoRoutes from './routes/demo/index.ts';
import healthRoutes from './routes/health.ts';
import platformRoutes from './routes/platforms/index.ts';
import widgetRoutes from './routes/widget/index.ts';
import widgetAssetRoutes from './routes/widget-assets.ts';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
  }
}

export interface BuildAppOptions {
  config?: Config;
  /** an already open database; the app closes it on close */
  database?: Database;
  logger?: FastifyServerOptions['logger'];
  /** production logging (level and redaction) into this stream, for tests that read the log */
  logStream?: { write(line: string): void };
  /** the matcher worker stops after this long without work (plugins/app/inline-matcher.ts MATCHER_IDLE_MS) */
  matcherIdleMs?: number;
}

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,64}$/;

/** Largest body any route accepts unless it says otherwise. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * Builds the whole service, un-listened: server.ts listens, tests use inject.
 */
export async function buildApp(opts: BuildAppOptions = {}) {
  const config = opts.config ?? loadConfig();
  const app = Fastify({
    logger: opts.logger ?? {
      level: config.logLevel,
      ...(opts.logStream ? { stream: opts.logStream } : {}),
      serializers: {
        // Fastify's request fields, the URL without contact details in it
        req: (request) => ({
          method: request.method,
          url: loggableUrl(request.url),
          host: request.host,
          remoteAddress: request.ip,
          remotePort: request.socket?.remotePort,
        }),
      },
      redact: {
        // contact details and keys never reach a log line
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'body.api_key',
          'body.email',
          'body.phone',
          'body.events[*].email',
          'body.events[*].phone',
          'email',
          'phone',
        ],
        censor: '[redacted]',
      },
    },
    // Behind a proxy, the client address comes only from proxies we trust.
    trustProxy: config.trustProxy.length > 0 ? rememberedTrust(config.trustProxy) : false,
    bodyLimit: DEFAULT_BODY_LIMIT,
    // slow clients are cut off instead of holding a connection forever
    connectionTimeout: 30_000,
    requestTimeout: config.requestTimeoutMs,
    clientErrorHandler,
    frameworkErrors,
    http: {
      // slow-loris: headers must arrive within 10 s (or the request timeout when shorter), and
      // the server checks every second rather than Node's default 30 s
      headersTimeout: Math.min(10_000, config.requestTimeoutMs),
      connectionsCheckingInterval: 1000,
    },
    keepAliveTimeout: 72_000,
    // A caller's own X-Request-Id is kept for correlation when it is a short
    // token; anything else (huge, or with control characters) gets a fresh id.
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID_RE.test(given) ? given : randomUUID();
    },
    ajv: {
      customOptions: {
        // A widget sending "limit": "6" or "families": "oud" has a bug worth a 400, not a silent fix.
        coerceTypes: false,
        allErrors: false,
        // A field the schema does not name is refused, not silently dropped: "limt": 2 is a
        // typo the caller must hear about (400 unknown_field), and a mock or validating proxy
        // built from the published document answers as this server does (docs/decisions.md).
        removeAdditional: false,
      },
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // Migrations run inside the database plugin: one that rewrites a big table (0005 turns
    // widget_sessions' jsonb into json) takes minutes, not Fastify's default 10 s per plugin.
    pluginTimeout: 5 * 60_000,
    // see the onRequest hook below: the same refusal, in our error shape
    return503OnClosing: false,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('config', config);
  // a cap on open connections, idle kept-alive ones included: past it a new one is closed on arrival,
  // before it can hold a file descriptor (docs/operations.md, beside nginx's own)
  app.server.maxConnections = config.maxConnections;
  // every JSON body is read with a nesting limit (http/json-body.ts)
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, depthLimitedJsonParser(app));
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
  // Shutting down (SIGTERM), requests in progress finish; then their connections must be
  // let go. server.close() waits for every connection, and a kept-alive one (a browser's)
  // stays open until keepAliveTimeout (72 s): the process outlived its 10 s grace period
  // and was killed with exit 1 before the onClose hooks (buffered writes, pool) ran.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // A request that reaches a closing instance (pipelined, or on a connection already open)
  // is refused before any work, in the service's own error shape (Fastify's built-in
  // answer for this has another), with Retry-After so the caller tries again elsewhere.
  // (These per-request hooks, like the others on every request, take a callback: an async
  // hook costs a promise and its resolution on each request for nothing asynchronous.)
  app.addHook('onRequest', (_request, _reply, done) => {
    if (!closing) return done();
    done(
      new AppError(503, 'shutting_down', 'This instance is shutting down: retry the request', undefined, {
        'retry-after': '1',
      }),
    );
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  app.addHook('onResponse', (request, _reply, done) => {
    // an answer whose headers were already on their way when closing began
    // (inject()'s stand-in socket has no end(): nothing to let go of there)
    const socket = request.raw.socket;
    if (closing && typeof socket?.end === 'function') socket.end();
    done();
  });

  await app.register(errorsPlugin);
  await app.register(bodyGuardPlugin);
  await app.register(largeBodiesPlugin);
  await app.register(metricsPlugin);
  await app.register(databasePlugin, { database: opts.database });
  await app.register(redisPlugin);
  await app.register(jobsPlugin);
  await app.register(catalogPlugin);
  await app.register(merchantProductsPlugin);
  await app.register(inlineMatcherPlugin, { idleMs: opts.matcherIdleMs });
  await app.register(catalogUpgradePlugin);
  await app.register(sessionsPlugin);
  await app.register(scoreAnswersPlugin);
  await app.register(leadsPlugin);
  await app.register(deliveriesPlugin);
  await app.register(retentionPlugin);
  await app.register(eventWriterPlugin);
  await app.register(rateLimitPlugin);
  await app.register(widgetKeyPlugin);
  await app.register(platformsPlugin);
  await app.register(zidPlugin);
  await app.register(shopifyPlugin);
  await app.register(woocommercePlugin);
  await app.register(feedRunnerPlugin);
  await app.register(learningPlugin);
  await app.register(erasurePlugin);
  await app.register(demoPlugin);
  await app.register(swaggerPlugin);

  await app.register(healthRoutes);
  await app.register(widgetRoutes, { prefix: '/api/widget' });
  await app.register(widgetAssetRoutes);
  await app.register(adminRoutes, { prefix: '/api/admin' });
  await app.register(demoRoutes, { prefix: '/demo' });
  await app.register(consoleRoutes, { prefix: '/console' });
  await app.register(platformRoutes, { prefix: '/api/platforms' });

  return app;
}

export type App = Awaited<ReturnType<typeof buildApp>>;
