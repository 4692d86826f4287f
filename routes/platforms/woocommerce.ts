import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ANY_OPERATION, errorResponses, PATH_PARAM, success, WITH_INPUT } from '../../contracts/errors.ts';
import { UNAUTHENTICATED_JSON_LIMITS } from '../../http/json-body.ts';
import { AppError } from '../../lib/errors.ts';
import { isWooTopic, WOO_DISCONNECTED, WOO_TOPICS, wooSignatureValid } from '../../platforms/woocommerce.ts';
import { NEW_STORES_PER_ADDRESS_PER_HOUR, NEW_STORES_PER_HOUR } from '../../plugins/app/woocommerce.ts';
import { findInstall, webhookSecretOf } from '../../services/platforms.ts';
import { markProven } from './refusals.ts';
import {
  jsonObjectOf,
  PLATFORM_NOTICE_MAX_BYTES,
  PLATFORM_WEBHOOK_MAX_BYTES,
  Received,
  rawBody,
  storeWebhook,
  WEBHOOK_ERRORS,
} from './shared.ts';

/** A store's id here (the `:store` of its routes). */
const STORE_ID = /^[a-z0-9][a-z0-9-]{0,59}$/;

const StoreParams = Type.Object({
  store: Type.String({
    pattern: STORE_ID.source,
    description: "The store's id here: its host and path as letters, digits and dashes",
  }),
});

type Install = NonNullable<Awaited<ReturnType<typeof findInstall>>>;

const BODY_ERRORS = [
  ...ANY_OPERATION,
  ...WITH_INPUT,
  'invalid_content_length',
  'client_closed_request',
  'payload_too_large',
  'unsupported_media_type',
  'platform_not_configured',
  'database_unavailable',
  'too_many_values',
  'rate_limited',
] as const;

/**
 * WooCommerce's side of the app (docs/platforms.md): the keys WooCommerce posts when a store's
 * admin approves them, the plugin's claim of its key and webhook secret, and the webhooks the
 * plugin registers in the store, each signed with the store's secret. The connection itself
 * starts in the console (`/console/woocommerce/connect`).
 */
const wooRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const woo = () => {
    if (!app.woocommerce) {
      throw new AppError(404, 'platform_not_configured', 'The WooCommerce app is not set up on this service');
    }
    return app.woocommerce;
  };
  // WooCommerce's ping when a webhook is saved with a delivery URL is a form: read as bytes too
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, rawBody);

  app.post(
    '/keys',
    {
      bodyLimit: PLATFORM_NOTICE_MAX_BYTES,
      schema: {
        operationId: 'receiveWooCommerceKeys',
        tags: ['platforms'],
        summary:
          "WooCommerce's post of a store's new REST keys (`callback_url` of `/wc-auth/v1/authorize`), its `user_id` the service's connect token",
        description: `The keys are tried against the store's REST API before the store is installed (a merchant, keys, the first import); the token names the store's address and the installation of its plugin that confirmed the connection. Refused: a token that is forged or ended (401), keys that are not WooCommerce's or do not open the store (400), another installation of the plugin still connected at the address (409 \`store_connected\`), a new store past ${NEW_STORES_PER_ADDRESS_PER_HOUR} an hour from the posting address or ${NEW_STORES_PER_HOUR} an hour in all (429).`,
        security: [],
        response: {
          200: success(Received, 'The store is installed'),
          ...errorResponses([
            ...BODY_ERRORS,
            'invalid_platform_webhook',
            'invalid_signature',
            'store_connected',
            'rate_limited',
          ]),
        },
      },
    },
    async (request) => {
      const flow = woo();
      await flow.keys(jsonObjectOf(request.body, UNAUTHENTICATED_JSON_LIMITS), request.ip);
      return { received: true as const, duplicate: false };
    },
  );

  app.post(
    '/connections/claim',
    {
      bodyLimit: PLATFORM_NOTICE_MAX_BYTES,
      schema: {
        operationId: 'claimWooCommerceConnection',
        tags: ['platforms'],
        summary: "The store's plugin claims its connection: its publishable key and its webhooks' secret",
        description:
          '`{token, secret}`: the connect token the admin came back with and the secret whose hash the plugin sent when it started. Answered while the token lasts (30 minutes), the same each time; 409 while WooCommerce has not posted the keys yet.',
        security: [],
        response: {
          200: success(
            Type.Object({
              store_id: Type.String(),
              publishable_key: Type.String(),
              webhook_secret: Type.String({ description: 'WooCommerce signs each delivery with it' }),
              webhook_url: Type.String(),
              console_url: Type.String({ description: "The merchant's console, where the admin is signed in" }),
            }),
            'The connection is this plugin’s',
          ),
          ...errorResponses([...BODY_ERRORS, 'invalid_platform_webhook', 'invalid_signature', 'store_not_installed']),
        },
      },
    },
    async (request, reply) => {
      const flow = woo();
      const body = jsonObjectOf(request.body, UNAUTHENTICATED_JSON_LIMITS);
      reply.header('cache-control', 'no-store');
      return flow.claim(body.token, body.secret);
    },
  );

  // the store's install, read before its body
  const installs = new WeakMap<object, Install>();
  app.post(
    '/webhooks/:store',
    {
      bodyLimit: PLATFORM_WEBHOOK_MAX_BYTES,
      // a store that has not connected is refused before its body is read
      onRequest: async (request) => {
        woo();
        const { store } = request.params as { store: string };
        // a store id that cannot be one is not looked up
        const install = STORE_ID.test(store) ? await findInstall(app.db, 'woocommerce', store) : null;
        if (install?.status !== 'installed') {
          throw new AppError(404, 'unknown_store', 'This store has not connected the app');
        }
        installs.set(request, install);
      },
      schema: {
        operationId: 'receiveWooCommerceWebhook',
        tags: ['platforms'],
        summary: "A WooCommerce store's webhooks, signed with the store's secret (`X-WC-Webhook-Signature`)",
        description: `Topics (\`X-WC-Webhook-Topic\`): ${[...WOO_TOPICS, WOO_DISCONNECTED].join(', ')}. A body of at most 256 KiB. Checked in this order: the store (404, before the body is read), WooCommerce's ping when a webhook is saved (a form \`webhook_id=…\`, answered and not kept), the signature (401), the topic (400), the body (400).`,
        security: [],
        params: StoreParams,
        headers: Type.Object({
          'x-wc-webhook-signature': Type.Optional(Type.String({ maxLength: 200 })),
          'x-wc-webhook-topic': Type.Optional(Type.String({ maxLength: 100 })),
        }),
        response: {
          200: success(Received, 'Stored; worked in the background (or a ping, acknowledged)'),
          ...errorResponses([...WEBHOOK_ERRORS, ...WITH_INPUT, ...PATH_PARAM, 'invalid_signature']),
        },
      },
    },
    async (request) => {
      woo();
      const { store } = request.params;
      const install = installs.get(request) as Install;
      const raw = request.body;
      // the ping WooCommerce sends to a new delivery URL: acknowledged, nothing kept
      if (
        Buffer.isBuffer(raw) &&
        request.headers['content-type']?.startsWith('application/x-www-form-urlencoded') &&
        /^webhook_id=\d{1,20}$/.test(raw.toString('utf8'))
      ) {
        return { received: true as const, duplicate: false };
      }
      if (
        !wooSignatureValid(raw, request.headers['x-wc-webhook-signature'], webhookSecretOf(app.leadCipher, install))
      ) {
        throw new AppError(401, 'invalid_signature', 'The webhook signature does not match');
      }
      markProven(request);
      const topic = request.headers['x-wc-webhook-topic'];
      if (!isWooTopic(topic)) {
        throw new AppError(
          400,
          'invalid_platform_webhook',
          `The topic is one of ${[...WOO_TOPICS, WOO_DISCONNECTED].join(', ')}`,
        );
      }
      jsonObjectOf(raw);
      return storeWebhook(app, request.log, {
        platform: 'woocommerce',
        storeId: store,
        event: topic,
        raw: raw as Buffer,
        scope: `${store}|${topic}`,
      });
    },
  );
};

export default wooRoutes;
