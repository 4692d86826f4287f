import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AdminMerchantSchema, CreateMerchantBodySchema, MerchantIdParams } from '../../contracts/admin.ts';
import { errorResponses } from '../../contracts/common.ts';
import { CatalogReadinessSchema } from '../../contracts/widget.ts';
import { createMerchant, getMerchant, listMerchants, merchantView } from '../../services/merchants.ts';
import { catalogReadiness } from '../../services/readiness.ts';

const security = [{ adminToken: [] }];

const merchants: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/merchants',
    {
      schema: {
        tags: ['admin'],
        summary: 'Creates a merchant',
        security,
        body: CreateMerchantBodySchema,
        response: { 201: AdminMerchantSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const m = await createMerchant(app.db, request.body);
      return reply.status(201).send(merchantView(m));
    },
  );

  app.get(
    '/merchants',
    {
      schema: {
        tags: ['admin'],
        summary: 'Lists merchants',
        security,
        response: { 200: Type.Object({ merchants: Type.Array(AdminMerchantSchema) }), ...errorResponses },
      },
    },
    async () => ({ merchants: (await listMerchants(app.db)).map(merchantView) }),
  );

  app.get(
    '/merchants/:id',
    {
      schema: {
        tags: ['admin'],
        summary: 'One merchant, with its catalog readiness',
        security,
        params: MerchantIdParams,
        response: {
          200: Type.Composite([AdminMerchantSchema, Type.Object({ catalog: CatalogReadinessSchema })]),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const m = await getMerchant(app.db, request.params.id);
      return { ...merchantView(m), catalog: await catalogReadiness(app.db, m.id) };
    },
  );
};

export default merchants;
