import { Type } from '@sinclair/typebox';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { ANY_OPERATION, errorResponses, PATH_PARAM, success, WITH_INPUT } from '../../contracts/errors.ts';
import { recordWebhook } from '../../services/platforms.ts';

/** A platform's webhook body is read up to this size (an order with many lines is a few tens of KB). */
export const PLATFORM_WEBHOOK_MAX_BYTES = 1024 * 1024;

export const Received = Type.Object({
  received: Type.Literal(true),
  duplicate: Type.Boolean({ description: 'the same delivery arrived before: it is worked once' }),
});

export const StoreParams = Type.Object({
  store: Type.String({ pattern: '^[0-9]{1,20}$', description: "The platform's id of the store" }),
});

/** The route options of a store's public widget settings (what its storefront script reads). */
export const storeWidgetSchema = (operationId: string, summary: string) => ({
  schema: {
    operationId,
    tags: ['platforms'],
    summary,
    security: [],
    params: StoreParams,
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
});

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
