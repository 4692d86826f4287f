import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import {
  ANY_OPERATION,
  errorResponses,
  PATH_PARAM,
  REQUEST_ID_HEADER,
  success,
  WITH_INPUT,
} from '../../contracts/errors.ts';
import { type JsonLimits, jsonLimitError } from '../../http/json-body.ts';
import { AppError } from '../../lib/errors.ts';
import { type Platform, recordWebhook, storeWidget } from '../../services/platforms.ts';

/**
 * The bytes a platform post may weigh (413 `payload_too_large` past them, before the body is read),
 * fitted to what each platform sends (docs/platforms.md, "Body limits"):
 *
 * - Shopify's webhooks, 1 MiB: Shopify states no limit for HTTPS deliveries, and its own staff say
 *   a body can be upwards of a megabyte (an order of hundreds of lines, a product of up to 2,048
 *   variants); it sends bodies up to 1,000,000 bytes in full to its other destinations, and a stub
 *   past them. One address takes every topic, so the largest is the limit.
 * - Salla's and WooCommerce's webhooks, 256 KiB: an order or a product of a perfume shop weighs a
 *   few KB (WooCommerce's order of two lines about 2 KB, a product with its description 3 to 10 KB;
 *   Salla's order with its items, customer and amounts about 5 to 20 KB); 256 KiB holds an order of
 *   a hundred lines or a product with a hundred variants and a long description.
 * - Zid's store webhooks keep 1 MiB: their URL carries the store's secret, checked before the body
 *   is read, so only Zid (or whoever holds the secret) sends one, and a product of Zid's, whose
 *   variants are products of their own, is the largest of the four.
 * - The unsigned posts (WooCommerce's keys and the plugin's claim, Zid's App Market notices),
 *   16 KiB: each is a few hundred bytes of fields.
 */
export const SHOPIFY_WEBHOOK_MAX_BYTES = 1024 * 1024;
export const PLATFORM_WEBHOOK_MAX_BYTES = 256 * 1024;
export const ZID_WEBHOOK_MAX_BYTES = 1024 * 1024;
export const PLATFORM_NOTICE_MAX_BYTES = 16 * 1024;

/** Platform bodies read (each a parser's call), for the tests that show a throttled post's body is never read. */
export const platformBodyReads = { bodies: 0, bytes: 0 };

/** A body parser that keeps the bytes as sent: a signature is of them, not of JSON parsed and written again. */
export function rawBody(_request: unknown, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) {
  platformBodyReads.bodies++;
  platformBodyReads.bytes += body.length;
  done(null, body);
}

/** What a platform's webhook receiver may answer besides its own checks' codes. */
export const WEBHOOK_ERRORS = [
  ...ANY_OPERATION,
  'invalid_content_length',
  'client_closed_request',
  'payload_too_large',
  'unsupported_media_type',
  'invalid_platform_webhook',
  'platform_not_configured',
  'unknown_store',
  'database_unavailable',
  'rate_limited',
  'overloaded',
] as const;

/**
 * A raw body as a JSON object, else `400 invalid_platform_webhook`. A body read before its sender
 * is proven (an unsigned post) is parsed only within `limits` (`400 too_many_values`); a signed
 * one is the platform's, parsed as it came.
 */
export function jsonObjectOf(raw: unknown, limits?: JsonLimits): Record<string, unknown> {
  const text = Buffer.isBuffer(raw) ? raw.toString('utf8') : null;
  const refused = text !== null && limits ? jsonLimitError(text, limits) : null;
  if (refused) {
    throw refused.code === 'too_many_values' ? refused : new AppError(400, 'invalid_platform_webhook', refused.message);
  }
  let body: unknown;
  try {
    body = text === null ? null : JSON.parse(text);
  } catch {
    body = null;
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new AppError(400, 'invalid_platform_webhook', 'The body is not a JSON object');
  }
  return body as Record<string, unknown>;
}

/** The route options of a store's storefront script (text/javascript; nothing secret in it). */
export const storeScriptSchema = <P extends TSchema = typeof StoreParams>(
  operationId: string,
  summary: string,
  description: string,
  params: P = StoreParams as unknown as P,
) => ({
  schema: {
    operationId,
    tags: ['platforms'],
    summary,
    description,
    security: [],
    params,
    response: {
      200: {
        description: 'The script',
        headers: { ...REQUEST_ID_HEADER },
        content: { 'text/javascript': { schema: Type.String() } },
      },
      ...errorResponses([...ANY_OPERATION, ...WITH_INPUT, ...PATH_PARAM, 'platform_not_configured']),
    },
  },
});

export const Received = Type.Object({
  received: Type.Literal(true),
  duplicate: Type.Boolean({ description: 'the same delivery arrived before: it is worked once' }),
});

/** A store's id on Salla and Zid (the `:store` of their routes). */
export const STORE_ID = /^[0-9]{1,20}$/;

export const StoreParams = Type.Object({
  store: Type.String({ pattern: STORE_ID.source, description: "The platform's id of the store" }),
});

/**
 * A store's public widget settings, what its storefront script reads (`GET {path}`): the live
 * publishable key of a store that installed the app, readable from any storefront (the key is
 * public by design) and cached five minutes; `404 unknown_store` for any other store, and `404
 * platform_not_configured` while the platform's app is off.
 */
export function storeWidgetRoute(
  app: FastifyInstance,
  o: {
    platform: Platform;
    path: string;
    operationId: string;
    summary: string;
    /** the store parameter's schema when not StoreParams's (Shopify's shop handle) */
    params?: TSchema;
    /** the app is set up on this service (else it throws `platform_not_configured`) */
    configured: () => void;
    /** what the platform calls a store, in the refusal */
    storeWord?: string;
  },
) {
  app.get(
    o.path,
    {
      schema: {
        operationId: o.operationId,
        tags: ['platforms'],
        summary: o.summary,
        security: [],
        params: o.params ?? StoreParams,
        response: {
          200: success(
            Type.Object({ publishable_key: Type.String({ description: "The store's live publishable key" }) }),
            'The store has installed the app',
          ),
          ...errorResponses([
            ...ANY_OPERATION,
            ...WITH_INPUT,
            ...PATH_PARAM,
            'platform_not_configured',
            'unknown_store',
            'database_unavailable',
          ]),
        },
      },
    },
    async (request, reply) => {
      o.configured();
      reply.header('access-control-allow-origin', '*');
      reply.header('cache-control', 'public, max-age=300');
      const widget = await storeWidget(app.db, o.platform, (request.params as { store: string }).store);
      if (!widget) throw new AppError(404, 'unknown_store', `This ${o.storeWord ?? 'store'} has not installed the app`);
      return widget;
    },
  );
}

/**
 * A checked webhook stored (its body encrypted) and its work queued, answered at once; a delivery
 * sent again is answered as a duplicate and not worked twice. When the work cannot be queued now,
 * the dispatch of stored webhooks sends it later.
 */
export async function storeWebhook(
  app: FastifyInstance,
  log: FastifyBaseLogger,
  input: Parameters<typeof recordWebhook>[2],
): Promise<{ received: true; duplicate: boolean }> {
  const { id, duplicate } = await recordWebhook(app.db, app.leadCipher, input);
  if (!duplicate) {
    await app.platforms.workWebhook(id).catch((err) => {
      log.warn({ err, webhook: id }, 'platform webhook stored, its work not queued yet');
    });
  }
  return { received: true, duplicate };
}
