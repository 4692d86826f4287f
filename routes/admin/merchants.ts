import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  AdminMerchantSchema,
  CreateMerchantBodySchema,
  MerchantIdParams,
  UpdateMerchantBodySchema,
} from '../../contracts/admin.ts';
import { ADMIN_CHANGE, ADMIN_READ, errorResponses, PATH_PARAM, success } from '../../contracts/errors.ts';
import { CatalogReadinessSchema } from '../../contracts/widget.ts';
import { createMerchant, getMerchant, listMerchants, merchantView, updateMerchant } from '../../services/merchants.ts';
import { catalogReadiness } from '../../services/readiness.ts';

const security = [{ adminToken: [] }];

const merchants: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/merchants',
    {
      schema: {
        operationId: 'createMerchant',
        tags: ['admin'],
        summary: 'Creates a merchant',
        security,
        body: CreateMerchantBodySchema,
        response: {
          201: success(AdminMerchantSchema, 'The merchant created'),
          ...errorResponses([...ADMIN_CHANGE, 'invalid_merchant', 'slug_taken']),
        },
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
        operationId: 'listMerchants',
        tags: ['admin'],
        summary: 'Lists merchants',
        security,
        response: {
          200: success(Type.Object({ merchants: Type.Array(AdminMerchantSchema) }), 'Every merchant'),
          ...errorResponses(ADMIN_READ),
        },
      },
    },
    async () => ({ merchants: (await listMerchants(app.db)).map(merchantView) }),
  );

  app.get(
    '/merchants/:id',
    {
      schema: {
        operationId: 'getMerchant',
        tags: ['admin'],
        summary: 'One merchant, with its catalog readiness',
        security,
        params: MerchantIdParams,
        response: {
          200: success(
            Type.Composite([AdminMerchantSchema, Type.Object({ catalog: Type.Ref(CatalogReadinessSchema) })]),
            'The merchant and its catalog readiness',
          ),
          ...errorResponses([...PATH_PARAM, ...ADMIN_READ, 'merchant_not_found']),
        },
      },
    },
    async (request) => {
      const m = await getMerchant(app.db, request.params.id);
      return { ...merchantView(m), catalog: await catalogReadiness(app.db, m.id) };
    },
  );

  app.patch(
    '/merchants/:id',
    {
      schema: {
        operationId: 'updateMerchant',
        tags: ['admin'],
        summary: "Sets whether a merchant's shelf teaches every shop, and whether it learns from theirs",
        description:
          'Both are on by default. A merchant that does not teach is never read by learning, and what it taught goes at the next learning run (within about a minute); one that does not learn has none of its products matched by a barcode other shops taught (docs/learning.md).',
        security,
        params: MerchantIdParams,
        body: UpdateMerchantBodySchema,
        response: {
          200: success(AdminMerchantSchema, 'The merchant as it is now'),
          ...errorResponses([...PATH_PARAM, ...ADMIN_CHANGE, 'merchant_not_found']),
        },
      },
    },
    async (request) => {
      const m = await updateMerchant(app.db, request.params.id, request.body);
      app.learning.soon(m.id);
      return merchantView(m);
    },
  );
};

export default merchants;
