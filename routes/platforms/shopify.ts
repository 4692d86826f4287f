import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, success, WITH_INPUT } from '../../contracts/errors.ts';
import { AppError } from '../../lib/errors.ts';
import {
  bodyShop,
  isShopifyTopic,
  ORDER_WEBHOOK_MAX_AGE_MS,
  orderWebhookFresh,
  SHOPIFY_COMPLIANCE_TOPICS,
  SHOPIFY_TOPICS,
  shopHandle,
  shopifyWebhookOrder,
  webhookHmacShaped,
  webhookHmacValid,
} from '../../platforms/shopify.ts';
import { shopifySnippet } from '../../platforms/shopify-snippet.ts';
import { findInstall } from '../../services/platforms.ts';
import { markProven } from './refusals.ts';
import {
  jsonObjectOf,
  Received,
  SHOPIFY_WEBHOOK_MAX_BYTES,
  storeScriptSchema,
  storeWebhook,
  storeWidgetRoute,
  WEBHOOK_ERRORS,
} from './shared.ts';

const ShopParams = Type.Object({
  store: Type.String({
    pattern: '^[a-z0-9][a-z0-9-]{0,59}$',
    description: "The shop's handle: its myshopify.com domain without `.myshopify.com`",
  }),
});

const TOPICS = [...Object.keys(SHOPIFY_TOPICS), ...SHOPIFY_COMPLIANCE_TOPICS];

/**
 * Shopify's side of the app (docs/platforms.md): one address for every webhook, the shops' own
 * (products, orders, uninstall) and the privacy ones every public app must take, each signed with
 * the app's secret (`X-Shopify-Hmac-Sha256`, base64, over the raw body); and the shop's storefront
 * script and public widget settings. The install is the console's (`/console/shopify/install`).
 */
const shopifyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const configured = () => {
    const shopify = app.config.platforms.shopify;
    if (!shopify) throw new AppError(404, 'platform_not_configured', 'The Shopify app is not set up on this service');
    return shopify;
  };

  const unsigned = () => new AppError(401, 'invalid_signature', 'The webhook signature does not match');
  app.post(
    '/webhooks',
    {
      bodyLimit: SHOPIFY_WEBHOOK_MAX_BYTES,
      // what is refused whatever the body holds is refused before it is read
      onRequest: (request, _reply, done) => {
        try {
          configured();
        } catch (err) {
          return done(err as Error);
        }
        if (!webhookHmacShaped(request.headers['x-shopify-hmac-sha256'])) return done(unsigned());
        done();
      },
      schema: {
        operationId: 'receiveShopifyWebhook',
        tags: ['platforms'],
        summary:
          "Shopify's webhooks (a shop's products, orders and uninstall, and the privacy requests), signed with the app's secret",
        description: `Topics (\`X-Shopify-Topic\`): ${TOPICS.join(', ')}. A body of at most 1 MiB. Checked in this order: the app set up here (404) and a signature header that could be one (401) before the body is read, then the signature (401), the topic and the shop (400; a signed body that names another shop, as a privacy request's \`shop_domain\` or an order's \`order_status_url\` on its myshopify.com domain, is refused), the shop's install (404; a privacy request for a shop that never installed is acknowledged, nothing kept), the body (400). A delivery sent again is answered as a duplicate: an order's by the order the signed body names (the unsigned \`X-Shopify-Webhook-Id\` does not make it another), any other topic's by the same \`X-Shopify-Webhook-Id\`. An order dated (\`created_at\`) more than a day ago is acknowledged and not counted; an order is counted only once the shop's own Admin API knows it.`,
        security: [],
        headers: Type.Object({
          'x-shopify-hmac-sha256': Type.Optional(Type.String({ maxLength: 200 })),
          'x-shopify-topic': Type.Optional(Type.String({ maxLength: 100 })),
          'x-shopify-shop-domain': Type.Optional(Type.String({ maxLength: 200 })),
          'x-shopify-webhook-id': Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: {
          200: success(Received, 'Stored; worked in the background (or a privacy request with nothing to erase)'),
          ...errorResponses([...WEBHOOK_ERRORS, ...WITH_INPUT, 'invalid_signature']),
        },
      },
    },
    async (request) => {
      const shopify = configured();
      const raw = request.body as Buffer;
      // nothing of the body is read before its signature is checked
      if (!webhookHmacValid(raw, request.headers['x-shopify-hmac-sha256'], shopify.clientSecret)) {
        throw unsigned();
      }
      markProven(request);
      const topic = request.headers['x-shopify-topic'];
      if (!isShopifyTopic(topic)) {
        throw new AppError(400, 'invalid_platform_webhook', `The topic is one of ${TOPICS.join(', ')}`);
      }
      const handle = shopHandle(request.headers['x-shopify-shop-domain']);
      if (!handle) throw new AppError(400, 'invalid_platform_webhook', 'X-Shopify-Shop-Domain is not a shop');
      const body = jsonObjectOf(raw);
      // the signature covers the body, not the headers: a body that names its shop must name this one
      const named = bodyShop(topic, body);
      if (named !== undefined && named !== handle) {
        throw new AppError(
          400,
          'invalid_platform_webhook',
          'The body is about another shop than X-Shopify-Shop-Domain',
        );
      }
      const install = await findInstall(app.db, 'shopify', handle);
      const privacy = (SHOPIFY_COMPLIANCE_TOPICS as readonly string[]).includes(topic);
      // a privacy request outlives the install (shop/redact comes 48 hours after the uninstall);
      // about a shop that never installed, the service holds nothing: acknowledged, nothing kept
      if (!install && privacy) return { received: true as const, duplicate: false };
      if (!install || (!privacy && install.status !== 'installed')) {
        throw new AppError(404, 'unknown_store', 'This shop has not installed the app');
      }
      // X-Shopify-Webhook-Id is not signed: an order's delivery is known by the order the signed body
      // names, so a copy sent with a new id is the same row; and a copy older than Shopify's own
      // tries is no delivery of Shopify's (acknowledged, nothing kept)
      const order = topic === 'orders/create' ? shopifyWebhookOrder(body) : null;
      if (order && !orderWebhookFresh(body)) {
        request.log.warn(
          { shop: handle, order, maxAgeHours: ORDER_WEBHOOK_MAX_AGE_MS / 3_600_000 },
          'shopify orders/create dated out of the window: acknowledged, not counted',
        );
        return { received: true as const, duplicate: false };
      }
      const id = request.headers['x-shopify-webhook-id'];
      return storeWebhook(app, request.log, {
        platform: 'shopify',
        storeId: handle,
        event: topic,
        raw,
        // Shopify sends a delivery again with the same id: it is the same row
        scope: order ? `${handle}|${topic}|order:${order}` : `${handle}|${topic}|${typeof id === 'string' ? id : ''}`,
      });
    },
  );

  app.get(
    '/shops/:store/script.js',
    storeScriptSchema(
      'getShopifyShopScript',
      "A Shopify shop's storefront script: what the theme's app embed block loads",
      "Loads the widget with the shop's publishable key, in the page's language (docs/platforms.md).",
      ShopParams,
    ),
    async (request, reply) => {
      configured();
      reply.type('text/javascript; charset=utf-8');
      reply.header('cache-control', 'public, max-age=300');
      return shopifySnippet(app.config.publicBaseUrl, request.params.store);
    },
  );

  storeWidgetRoute(app, {
    platform: 'shopify',
    path: '/shops/:store/widget',
    operationId: 'getShopifyShopWidget',
    summary: "A Shopify shop's widget settings, read by the app's storefront script",
    params: ShopParams,
    configured,
    storeWord: 'shop',
  });
};

export default shopifyRoutes;
