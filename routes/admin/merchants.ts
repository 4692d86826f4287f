import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  AdminMerchantSchema,
  CreateMerchantBodySchema,
  EraseMerchantBodySchema,
  ErasingMerchantSchema,
  MerchantIdParams,
  UpdateMerchantBodySchema,
} from '../../contracts/admin.ts';
import { ADMIN_CHANGE, ADMIN_READ, errorResponses, PATH_PARAM, success } from '../../contracts/errors.ts';
import { CatalogReadinessSchema } from '../../contracts/widget.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { createMerchant, findMerchant, listMerchants, merchantView, updateMerchant } from '../../services/merchants.ts';
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
          ...errorResponses([...PATH_PARAM, ...ADMIN_READ, 'merchant_not_found', 'merchant_erasing']),
        },
      },
    },
    async (request) => {
      const m = await findMerchant(app.db, request.params.id, { erasing: true });
      if (!m) throw notFound('merchant_not_found', `No merchant with id or slug "${request.params.id}"`);
      if (m.erasedAt) {
        throw new AppError(410, 'merchant_erasing', 'This merchant is being erased; once its rows are gone, 404');
      }
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

  app.delete(
    '/merchants/:id',
    {
      schema: {
        operationId: 'eraseMerchant',
        tags: ['admin'],
        summary: 'Erases a merchant: everything the service holds about it, and what its shelf taught other shops',
        description:
          "`confirm` must be the merchant's slug. At once, within the request: the merchant is gone for every read, its keys are refused on every instance, its console users sign in no more, its feeds are no longer pulled, its platform installs no longer act for it. Its rows are deleted in the background (`merchants.erase`), then what it taught is learnt again (docs/admin.md, docs/learning.md). Erasing a merchant that is being erased answers 202 again.",
        security,
        params: MerchantIdParams,
        body: EraseMerchantBodySchema,
        response: {
          202: success(ErasingMerchantSchema, 'Refused everywhere from now on; its rows are being deleted'),
          ...errorResponses([...PATH_PARAM, ...ADMIN_CHANGE, 'merchant_not_found', 'confirm_mismatch']),
        },
      },
    },
    async (request, reply) => {
      const { merchant } = await app.erasure.start(request.params.id, request.body?.confirm);
      return reply.status(202).send({ merchant_id: merchant.id, status: 'erasing' as const });
    },
  );
};

export default merchants;
