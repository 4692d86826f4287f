import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses } from '../contracts/common.ts';
import { AppError } from '../lib/errors.ts';

const StatusSchema = Type.Object({ status: Type.Literal('ok') });

const health: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['health'],
        summary: 'The process is up (liveness)',
        response: { 200: StatusSchema, ...errorResponses },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['health'],
        summary: 'The database answers (readiness); 503 when it does not',
        response: { 200: Type.Object({ status: Type.Literal('ok'), database: Type.Literal('ok') }), ...errorResponses },
      },
    },
    async (request) => {
      try {
        await app.database.ping(2000);
      } catch (err) {
        request.log.warn({ err }, 'readiness: database unreachable');
        throw new AppError(503, 'database_unavailable', 'The database is unreachable', undefined, {
          'retry-after': '5',
        });
      }
      return { status: 'ok' as const, database: 'ok' as const };
    },
  );
};

export default health;
