import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { KEY_STALE_AFTER_MS, KEY_STALE_MAX_MS } from '../../auth/key-store.ts';
import { ALWAYS_SENT, errorResponses, success, WIDGET_OPERATION } from '../../contracts/errors.ts';
import { VERIFY_EXAMPLE } from '../../contracts/examples.ts';
import {
  type CatalogReadiness,
  VERIFY_MAX_BYTES,
  VerifyRequestSchema,
  VerifyResponseSchema,
} from '../../contracts/widget.ts';
import { Cache } from '../../lib/cache.ts';
import { databaseTimeout, withDeadline } from '../../lib/deadline.ts';
import { isDatabaseUnavailable } from '../../lib/errors.ts';
import { widgetKeyOf } from '../../plugins/app/widget-key.ts';
import { widgetRateLimit } from '../../plugins/external/rate-limit.ts';
import { documentAs } from '../../plugins/external/swagger.ts';
import { catalogReadiness } from '../../services/readiness.ts';

const verify: FastifyPluginAsyncTypebox = async (app) => {
  // A database that does not answer within KEY_STALE_AFTER_MS gets the merchant's readiness as last
  // read (at most KEY_STALE_MAX_MS old), as the key itself is; one query per merchant at a time.
  const lastRead = new Cache<string, CatalogReadiness>({
    name: 'last-readiness',
    max: 10_000,
    ttlMs: KEY_STALE_MAX_MS,
    invalidatedBy: 'answered only while the database is slow to answer: every verify reads it anew',
  });
  const reading = new Map<string, Promise<CatalogReadiness>>();

  function read(merchantId: string): Promise<CatalogReadiness> {
    let pending = reading.get(merchantId);
    if (!pending) {
      pending = catalogReadiness(app.db, merchantId)
        .then((r) => {
          lastRead.set(merchantId, r);
          return r;
        })
        .finally(() => reading.delete(merchantId));
      reading.set(merchantId, pending);
    }
    return pending;
  }

  async function readiness(merchantId: string): Promise<CatalogReadiness> {
    const fresh = read(merchantId);
    const last = lastRead.get(merchantId);
    if (last)
      // slow, or unreachable (a connection cut while the read waited): the last read answers
      return withDeadline(fresh, KEY_STALE_AFTER_MS, () => null).catch((err) =>
        err === null || isDatabaseUnavailable(err) ? last : Promise.reject(err),
      );
    return withDeadline(fresh, app.config.dbTimeoutMs, () => databaseTimeout('Verify'));
  }

  app.post(
    '/verify',
    {
      bodyLimit: VERIFY_MAX_BYTES,
      config: {
        rateLimit: widgetRateLimit('verify'),
        swaggerTransform: documentAs({ body: { ...VerifyRequestSchema, examples: [VERIFY_EXAMPLE.request] } }),
      },
      schema: {
        operationId: 'verifyKey',
        tags: ['widget'],
        summary: 'Validates a key and returns catalog readiness',
        description:
          'Answers the merchant behind the key, whether it is a test key, the origins it allows and how much of the synced catalog can be recommended. 60 requests a minute per key and client address. A body of at most 4 KiB.',
        security: [{ widgetKey: [] }],
        body: VerifyRequestSchema,
        response: {
          200: success(VerifyResponseSchema, 'The key is valid: its merchant, mode, origins and catalog readiness', {
            rateLimited: true,
            example: VERIFY_EXAMPLE.response,
            headers: {
              'cache-control': {
                type: 'string',
                enum: ['no-store'],
                [ALWAYS_SENT]: true,
                description:
                  'no-store: readiness changes with every product sync. The widget keeps a ready answer for its tab 10 minutes, one not ready 10 seconds (docs/widget.md)',
              },
            },
          }),
          ...errorResponses(WIDGET_OPERATION, { rateLimited: true }),
        },
      },
    },
    async (request, reply) => {
      const key = widgetKeyOf(request);
      const catalog = await readiness(key.merchant.id);
      // no HTTP cache may keep a readiness: the widget decides how long its tab trusts one (widget/runtime.ts)
      reply.header('cache-control', 'no-store');
      return {
        valid: true as const,
        merchant: key.merchant,
        test_mode: key.mode === 'test',
        key: { id: key.id, prefix: key.prefix, mode: key.mode, allowed_origins: key.allowedOrigins },
        catalog,
        leads: { email_picks: app.config.smtp !== null },
      };
    },
  );
};

export default verify;
