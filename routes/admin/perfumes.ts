import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AdminPerfumeSchema, PerfumeIdParams } from '../../contracts/admin.ts';
import { ADMIN_READ, errorResponses, PATH_PARAM, success } from '../../contracts/errors.ts';
import { notFound } from '../../lib/errors.ts';
import { perfumeRecord } from '../../services/catalog.ts';

const security = [{ adminToken: [] }];

/** Our catalog's records as an operator checks them: identity, grade and sources. */
const perfumes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/perfumes/:id',
    {
      schema: {
        operationId: 'getPerfume',
        tags: ['admin'],
        summary: 'One perfume of our catalog with its grade and its sources',
        description:
          'The record as the catalog stores it: its identity, its scent profile\'s grade (null for an identity without a profile), the perfume it is inspired by, and the evidence behind each fact (docs/catalog.md "Evidence"). One row read by its key.',
        security,
        params: PerfumeIdParams,
        response: {
          200: success(AdminPerfumeSchema, 'The record and its sources'),
          ...errorResponses([...PATH_PARAM, ...ADMIN_READ, 'perfume_not_found']),
        },
      },
    },
    async (request) => {
      const record = await perfumeRecord(app.db, request.params.id);
      if (!record) {
        throw notFound('perfume_not_found', `No perfume "${request.params.id}" in the catalog (find it with lookup)`);
      }
      return record;
    },
  );
};

export default perfumes;
