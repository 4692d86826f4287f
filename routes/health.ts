import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ANY_OPERATION, errorResponses, success } from '../contracts/errors.ts';
import { AppError } from '../lib/errors.ts';

const StatusSchema = Type.Object({ status: Type.Literal('ok') });

const health: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'getLiveness',
        tags: ['health'],
        // public: no credentials
        security: [],
        summary: 'The process is up (liveness)',
        response: { 200: success(StatusSchema, 'The process is up'), ...errorResponses(ANY_OPERATION) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'getReadiness',
        tags: ['health'],
        // public: no credentials
        security: [],
        summary: 'The database answers (readiness); 503 when it does not',
        response: {
          200: success(
            Type.Object({ status: Type.Literal('ok'), database: Type.Literal('ok') }),
            'The database answers',
          ),
          ...errorResponses([...ANY_OPERATION, 'database_unavailable']),
        },
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
