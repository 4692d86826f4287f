import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, PATH_PARAM, success, WITH_INPUT } from '../../contracts/errors.ts';
import { UNAUTHENTICATED_JSON_LIMITS } from '../../http/json-body.ts';
import { markProvenBeforeBody } from '../../http/large-bodies.ts';
import { AppError } from '../../lib/errors.ts';
import { createWindowCounter } from '../../lib/window-counter.ts';
import { isZidStoreEvent, ZID_STORE_EVENTS, ZID_UNINSTALL, zidAppEvent, zidSecretValid } from '../../platforms/zid.ts';
import { zidSnippet } from '../../platforms/zid-snippet.ts';
import { findInstall, webhookSecretOf } from '../../services/platforms.ts';
import { markProven } from './refusals.ts';
import {
  jsonObjectOf,
  PLATFORM_NOTICE_MAX_BYTES,
  Received,
  STORE_ID,
  StoreParams,
  storeScriptSchema,
  storeWebhook,
  storeWidgetRoute,
  WEBHOOK_ERRORS,
  ZID_WEBHOOK_MAX_BYTES,
} from './shared.ts';

/** App Market notices one address may send a minute, per instance (Zid sends one per store event). */
export const APP_EVENTS_PER_ADDRESS = 60;

/**
 * Zid's side of the app (docs/platforms.md): the store webhooks the app subscribed (each URL
 * carries the store's secret: Zid signs no webhook), the App Market's notices, and the store's
 * storefront script and public widget settings. The install itself is the console's
 * (`/console/zid/install`, `/console/zid/callback`): the merchant lands there signed in.
 */
const zidRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const configured = () => {
    if (!app.config.platforms.zid) {
      throw new AppError(404, 'platform_not_configured', 'The Zid app is not set up on this service');
    }
  };

  app.post(
    '/webhooks/:store',
    {
      bodyLimit: ZID_WEBHOOK_MAX_BYTES,
      // the store and its secret are checked before the body is read: a stranger's body never is
      onRequest: async (request) => {
        configured();
        const { store } = request.params as { store: string };
        // a store id that cannot be one is not looked up
        const install = STORE_ID.test(store) ? await findInstall(app.db, 'zid', store) : null;
        if (install?.status !== 'installed')
          throw new AppError(404, 'unknown_store', 'This store has not installed the app');
        const token = (request.query as { token?: unknown }).token;
        if (!zidSecretValid(token, webhookSecretOf(app.leadCipher, install))) {
          throw new AppError(401, 'invalid_signature', "The URL does not carry this store's webhook secret");
        }
        markProven(request);
        // …so its body, however large, draws on no budget of strangers' bodies
        markProvenBeforeBody(request);
      },
      schema: {
        operationId: 'receiveZidWebhook',
        tags: ['platforms'],
        summary:
          "A Zid store's webhooks, at the URL the app subscribed them with (the event and the store's secret in its query)",
        description:
          "A body of at most 1 MiB. Checked in this order, the first two before the body is read: the store has installed the app (404), `token` is the store's secret (401), `event` is one the app subscribes to (400), the body is a JSON object (400).",
        security: [],
        params: StoreParams,
        querystring: Type.Object({
          event: Type.Optional(Type.String({ maxLength: 100, description: `One of ${ZID_STORE_EVENTS.join(', ')}` })),
          token: Type.Optional(Type.String({ maxLength: 200, description: "The store's webhook secret" })),
        }),
        response: {
          200: success(Received, 'Stored; worked in the background'),
          ...errorResponses([...WEBHOOK_ERRORS, ...WITH_INPUT, ...PATH_PARAM, 'invalid_signature']),
        },
      },
    },
    async (request) => {
      // onRequest found the store and its secret
      const { store } = request.params;
      const event = request.query.event;
      if (!isZidStoreEvent(event)) {
        throw new AppError(400, 'invalid_platform_webhook', `The event is one of ${ZID_STORE_EVENTS.join(', ')}`);
      }
      const raw = request.body as Buffer;
      jsonObjectOf(raw);
      return storeWebhook(app, request.log, {
        platform: 'zid',
        storeId: store,
        event,
        raw,
        scope: `store:${store}|${event}`,
      });
    },
  );

  // unsigned: an address may send at most APP_EVENTS_PER_ADDRESS a minute (per instance)
  const byAddress = createWindowCounter({ name: 'zid-app-events', max: 10_000, windowMs: 60_000 });
  app.post(
    '/app-events',
    {
      bodyLimit: PLATFORM_NOTICE_MAX_BYTES,
      onRequest: (request, reply, done) => {
        const c = byAddress.add(request.ip);
        if (c.count <= APP_EVENTS_PER_ADDRESS) return done();
        reply.header('retry-after', String(c.retryAfter));
        done(new AppError(429, 'rate_limited', 'Too many notices from this address: try again later'));
      },
      schema: {
        operationId: 'receiveZidAppEvent',
        tags: ['platforms'],
        summary:
          "The Zid App Market's notices (`{event_name, store_id, …}`, unsigned): an uninstall is acted on only once Zid refuses the store's tokens",
        security: [],
        response: {
          200: success(Received, 'Stored (an uninstall) and worked in the background, or acknowledged'),
          ...errorResponses([...WEBHOOK_ERRORS, 'too_many_values']),
        },
      },
    },
    async (request) => {
      configured();
      const raw = request.body as Buffer;
      const notice = zidAppEvent(jsonObjectOf(raw, UNAUTHENTICATED_JSON_LIMITS));
      if (typeof notice === 'string') throw new AppError(400, 'invalid_platform_webhook', notice);
      // only the App Market's own notices come here: a store event by this unsigned door is refused
      if (!notice.event.startsWith('app.market.')) {
        throw new AppError(400, 'invalid_platform_webhook', 'Only App Market notices (app.market.*) are received here');
      }
      // the service acts on the uninstall alone: any other notice is acknowledged, nothing kept
      if (notice.event !== ZID_UNINSTALL) return { received: true as const, duplicate: false };
      // the install is the OAuth callback's: a notice about a store that never installed changes nothing
      if (!(await findInstall(app.db, 'zid', notice.storeId))) {
        throw new AppError(404, 'unknown_store', 'This store has not installed the app');
      }
      return storeWebhook(app, request.log, {
        platform: 'zid',
        storeId: notice.storeId,
        event: notice.event,
        raw,
        scope: `market:${notice.storeId}`,
      });
    },
  );

  app.get(
    '/stores/:store/script.js',
    storeScriptSchema(
      'getZidStoreScript',
      "A Zid store's storefront script: the App Script file the app creates in the store",
      "Loads the widget with the store's publishable key and reports purchases (`SillageZid.purchase(order)`, and Zid's `sendPurchaseEvent` when the page has it; docs/platforms.md).",
    ),
    async (request, reply) => {
      configured();
      reply.type('text/javascript; charset=utf-8');
      reply.header('cache-control', 'public, max-age=300');
      return zidSnippet(app.config.publicBaseUrl, request.params.store);
    },
  );

  storeWidgetRoute(app, {
    platform: 'zid',
    path: '/stores/:store/widget',
    operationId: 'getZidStoreWidget',
    summary: "A Zid store's widget settings, read by the app's storefront script",
    configured,
  });
};

export default zidRoutes;
