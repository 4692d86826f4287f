import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ANY_OPERATION, errorResponses, REQUEST_ID_HEADER, success } from '../../contracts/errors.ts';
import { AppError } from '../../lib/errors.ts';
import { INSTALL_EVENTS, sallaEnvelope, sallaSignatureShaped, sallaSignatureValid } from '../../platforms/salla.ts';
import { sallaSnippet } from '../../platforms/salla-snippet.ts';
import { findInstall } from '../../services/platforms.ts';
import { markProven, refusedPostGuard } from './refusals.ts';
import { PLATFORM_WEBHOOK_MAX_BYTES, Received, rawBody, storeWebhook, storeWidgetRoute } from './shared.ts';
import shopifyRoutes from './shopify.ts';
import wooRoutes from './woocommerce.ts';
import zidRoutes from './zid.ts';

export { PLATFORM_WEBHOOK_MAX_BYTES } from './shared.ts';

/**
 * The platforms' side of the apps (docs/platforms.md; Zid's in zid.ts): Salla's webhooks, each checked against its
 * signature on the raw body, stored and answered at once (the work is the background runner's),
 * and the public widget settings the app's storefront script reads.
 */
/** The end of each delivery being received (plugins/app/platforms.ts `receiving`). */
const receipts = new WeakMap<object, () => void>();

const platforms: FastifyPluginAsyncTypebox = async (app) => {
  // an address that sent too many refused posts this minute is refused before its body is read (refusals.ts)
  const refused = refusedPostGuard();
  app.addHook('onRequest', refused.onRequest);
  app.addHook('onResponse', refused.onResponse);
  // the raw body: a signature is of the bytes as sent, not of JSON parsed and written again
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, rawBody);

  // a delivery being received holds the webhooks' background work until it is answered
  app.addHook('onRequest', async (request) => {
    if (request.method === 'POST') receipts.set(request, app.platforms.receiving());
  });
  app.addHook('onResponse', async (request) => {
    receipts.get(request)?.();
  });
  app.addHook('onRequestAbort', async (request) => {
    receipts.get(request)?.();
  });

  const sallaOff = () => new AppError(404, 'platform_not_configured', 'The Salla app is not set up on this service');
  const unsigned = () =>
    new AppError(401, 'invalid_signature', "The signature is not the body's HMAC with the app's secret");
  app.post(
    '/salla/webhook',
    {
      bodyLimit: PLATFORM_WEBHOOK_MAX_BYTES,
      // what is refused whatever the body holds is refused before it is read
      onRequest: (request, _reply, done) => {
        if (!app.config.platforms.salla) return done(sallaOff());
        if (!sallaSignatureShaped(request.headers['x-salla-signature'])) return done(unsigned());
        done();
      },
      schema: {
        operationId: 'receiveSallaWebhook',
        tags: ['platforms'],
        summary: "Salla's webhooks (`X-Salla-Signature`: hex HMAC-SHA256 of the body with the app's webhook secret)",
        description:
          'A body of at most 256 KiB. Refused before the body is read: the app not set up here (404), no `X-Salla-Signature` of 64 hex digits (401).',
        security: [],
        response: {
          200: success(Received, 'Stored; worked in the background'),
          ...errorResponses([
            ...ANY_OPERATION,
            'invalid_content_length',
            'client_closed_request',
            'payload_too_large',
            'unsupported_media_type',
            'invalid_signature',
            'invalid_platform_webhook',
            'platform_not_configured',
            'unknown_store',
            'database_unavailable',
            'rate_limited',
            'overloaded',
          ]),
        },
      },
    },
    async (request) => {
      const salla = app.config.platforms.salla;
      if (!salla) throw sallaOff();
      const raw = request.body as Buffer;
      if (
        !Buffer.isBuffer(raw) ||
        !sallaSignatureValid(raw, request.headers['x-salla-signature'] as string, salla.webhookSecret)
      ) {
        throw unsigned();
      }
      markProven(request);
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        throw new AppError(400, 'invalid_platform_webhook', 'The body is not JSON');
      }
      const envelope = sallaEnvelope(body);
      if (typeof envelope === 'string') throw new AppError(400, 'invalid_platform_webhook', envelope);
      // a store that never installed the app has nothing here to change: refused, nothing kept
      if (!INSTALL_EVENTS.has(envelope.event) && !(await findInstall(app.db, 'salla', envelope.storeId))) {
        throw new AppError(404, 'unknown_store', 'This store has not installed the app');
      }
      return storeWebhook(app, request.log, {
        platform: 'salla',
        storeId: envelope.storeId,
        event: envelope.event,
        raw,
      });
    },
  );

  app.get(
    '/salla/snippet.js',
    {
      schema: {
        operationId: 'getSallaSnippet',
        tags: ['platforms'],
        summary: "The Salla app's storefront script, for the operator to paste into the Partner Portal's App Snippets",
        description:
          "Pure JavaScript, the same for every store: it reads the store id from Salla's storefront SDK, loads the widget with the store's publishable key, and reports `Order Completed` as a purchase (docs/platforms.md).",
        security: [],
        response: {
          200: {
            description: 'The script',
            headers: { ...REQUEST_ID_HEADER },
            content: { 'text/javascript': { schema: Type.String() } },
          },
          ...errorResponses([...ANY_OPERATION, 'platform_not_configured']),
        },
      },
    },
    async (_request, reply) => {
      if (!app.config.platforms.salla) {
        throw new AppError(404, 'platform_not_configured', 'The Salla app is not set up on this service');
      }
      reply.type('text/javascript; charset=utf-8');
      return sallaSnippet(app.config.publicBaseUrl);
    },
  );

  storeWidgetRoute(app, {
    platform: 'salla',
    path: '/salla/stores/:store/widget',
    operationId: 'getSallaStoreWidget',
    summary: "A Salla store's widget settings, read by the app's storefront script (public: the key is publishable)",
    configured: () => {
      if (!app.config.platforms.salla) {
        throw new AppError(404, 'platform_not_configured', 'The Salla app is not set up on this service');
      }
    },
  });

  await app.register(zidRoutes, { prefix: '/zid' });
  await app.register(shopifyRoutes, { prefix: '/shopify' });
  await app.register(wooRoutes, { prefix: '/woocommerce' });
};

export default platforms;
