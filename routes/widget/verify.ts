import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../contracts/common.ts';
import { VerifyRequestSchema, VerifyResponseSchema } from '../../contracts/widget.ts';
import { widgetKeyOf } from '../../plugins/app/widget-key.ts';
import { widgetRateLimit } from '../../plugins/external/rate-limit.ts';
import { catalogReadiness } from '../../services/readiness.ts';

const verify: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/verify',
    {
      config: { rateLimit: widgetRateLimit('verify') },
      schema: {
        tags: ['widget'],
        summary: 'Validates a key and returns catalog readiness',
        description:
          'Answers the merchant behind the key, whether it is a test key, the origins it allows and how much of the synced catalog can be recommended. 60 requests a minute per key and client address.',
        security: [{ widgetKey: [] }],
        body: VerifyRequestSchema,
        response: { 200: VerifyResponseSchema, ...errorResponses },
      },
    },
    async (request) => {
      const key = widgetKeyOf(request);
      const catalog = await catalogReadiness(app.db, key.merchant.id);
      return {
        valid: true as const,
        merchant: key.merchant,
        test_mode: key.mode === 'test',
        key: { id: key.id, prefix: key.prefix, mode: key.mode, allowed_origins: key.allowedOrigins },
        catalog,
      };
    },
  );
};

export default verify;
