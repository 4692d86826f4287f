import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  AdminProductSchema,
  ListProductsQueryDocument,
  ListProductsQuerySchema,
  MerchantIdParams,
  PinMatchBodySchema,
  ProductAnswerBodySchema,
  ProductKindBodyDocument,
  ProductKindBodySchema,
  ProductParams,
  RematchSummarySchema,
  SyncProductsBodyDocument,
  SyncProductsBodySchema,
  SyncSummarySchema,
} from '../../contracts/admin.ts';
import { ADMIN_CHANGE, ADMIN_READ, errorResponses, PATH_PARAM, success } from '../../contracts/errors.ts';
import { documentAs } from '../../plugins/external/swagger.ts';
import {
  answerProduct,
  listProducts,
  pinMatch,
  productView,
  rematchProducts,
  setProductKind,
  syncProducts,
  unpinMatch,
} from '../../services/products.ts';

const security = [{ adminToken: [] }];
/** 50,000 products of a few hundred bytes each */
const FEED_BODY_LIMIT = 64 * 1024 * 1024;

const products: FastifyPluginAsyncTypebox = async (app) => {
  app.put(
    '/merchants/:id/products',
    {
      bodyLimit: FEED_BODY_LIMIT,
      config: { swaggerTransform: documentAs({ body: SyncProductsBodyDocument }) },
      schema: {
        operationId: 'syncProducts',
        tags: ['admin'],
        summary: "Syncs a merchant's product feed; answers once stored and matched",
        description:
          'Upserts by merchant_product_id and matches every product to our catalog. Bad rows are reported in `rejections` and skipped; the good ones are stored in one transaction. A product pinned by hand keeps its pin. `replace: true` removes products absent from the feed.',
        security,
        params: MerchantIdParams,
        body: SyncProductsBodySchema,
        response: {
          200: success(SyncSummarySchema, 'Stored and matched: how many products of each kind'),
          ...errorResponses([...PATH_PARAM, ...ADMIN_CHANGE, 'merchant_not_found']),
        },
      },
    },
    async (request) => {
      const summary = await syncProducts(app.db, app.catalog.current(), request.params.id, request.body.products, {
        replace: request.body.replace ?? false,
        // matched on the matcher's worker thread, a slice at a time, never on the event loop
        match: app.inlineMatcher,
      });
      app.merchantProducts.invalidate(summary.merchant_id);
      // what the shelf teaches is learnt in the background (docs/learning.md)
      app.learning.soon(summary.merchant_id);
      return summary;
    },
  );

  app.post(
    '/merchants/:id/products/rematch',
    {
      schema: {
        operationId: 'rematchProducts',
        tags: ['admin'],
        summary: "Matches a merchant's products again after our catalog changed (pins are kept)",
        security,
        params: MerchantIdParams,
        response: {
          200: success(RematchSummarySchema, 'Matched again: what changed'),
          ...errorResponses([...PATH_PARAM, ...ADMIN_CHANGE, 'merchant_not_found']),
        },
      },
    },
    async (request) => {
      const snapshot = await app.catalog.refresh();
      const summary = await rematchProducts(app.db, snapshot, request.params.id, app.inlineMatcher);
      app.merchantProducts.invalidate(summary.merchant_id);
      return summary;
    },
  );

  app.get(
    '/merchants/:id/products',
    {
      config: { swaggerTransform: documentAs({ querystring: ListProductsQueryDocument }) },
      schema: {
        operationId: 'listProducts',
        tags: ['admin'],
        summary: "Lists a merchant's products with their match status, confidence and reason",
        security,
        params: MerchantIdParams,
        querystring: ListProductsQuerySchema,
        response: {
          200: success(
            Type.Object({ products: Type.Array(AdminProductSchema), total: Type.Integer() }),
            'A page of products and the total',
          ),
          ...errorResponses([...PATH_PARAM, ...ADMIN_READ, 'merchant_not_found']),
        },
      },
    },
    async (request) => {
      const { rows, total } = await listProducts(app.db, request.params.id, {
        status: request.query.status,
        limit: Number(request.query.limit ?? 100),
        offset: Number(request.query.offset ?? 0),
      });
      const snapshot = app.catalog.current();
      // explained on the matcher's worker thread: a page of up to 1,000 listings is never matched on the event loop
      const explained = await app.inlineMatcher.explain(request.params.id, rows);
      return { products: rows.map((r, i) => productView(r, snapshot, explained[i])), total };
    },
  );

  app.put(
    '/merchants/:id/products/:merchant_product_id/match',
    {
      schema: {
        operationId: 'pinProduct',
        tags: ['admin'],
        summary: 'Pins a product to a perfume by hand (kept across re-syncs)',
        security,
        params: ProductParams,
        body: PinMatchBodySchema,
        response: {
          200: success(AdminProductSchema, 'The product, pinned'),
          ...errorResponses([
            ...PATH_PARAM,
            ...ADMIN_CHANGE,
            'merchant_not_found',
            'product_not_found',
            'perfume_not_found',
          ]),
        },
      },
    },
    async (request) => {
      const row = await pinMatch(
        app.db,
        app.catalog.current(),
        request.params.id,
        request.params.merchant_product_id,
        request.body.sillage_perfume_id,
      );
      app.merchantProducts.invalidate(row.merchantId);
      return productView(row, app.catalog.current());
    },
  );

  app.put(
    '/merchants/:id/products/:merchant_product_id/answer',
    {
      schema: {
        operationId: 'setProductAnswer',
        tags: ['admin'],
        summary:
          "Sets the merchant's own answer for a product: its main notes and accords, or the perfume it is inspired by",
        description:
          'For a product recognised but with no scent profile (`to_recommend`): the answer gives it one at once (quality described, or inspired), is kept through re-syncs, and is proposed to every shop (listProposals, docs/learning.md). An answer naming nothing clears it.',
        security,
        params: ProductParams,
        body: ProductAnswerBodySchema,
        response: {
          200: success(AdminProductSchema, 'The product, with its answer'),
          ...errorResponses([
            ...PATH_PARAM,
            ...ADMIN_CHANGE,
            'merchant_not_found',
            'product_not_found',
            'invalid_answer',
          ]),
        },
      },
    },
    async (request) => {
      const row = await answerProduct(
        app.db,
        app.catalog.current(),
        request.params.id,
        request.params.merchant_product_id,
        request.body,
      );
      app.merchantProducts.invalidate(row.merchantId);
      app.learning.soon(row.merchantId);
      return productView(row, app.catalog.current());
    },
  );

  app.put(
    '/merchants/:id/products/:merchant_product_id/kind',
    {
      config: { swaggerTransform: documentAs({ body: ProductKindBodyDocument }) },
      schema: {
        operationId: 'setProductKind',
        tags: ['admin'],
        summary: "Corrects the kind of product read from a product's listing (kept across re-syncs); null clears it",
        description:
          'The kind is read from the listing\'s words (`explanation.parsed.kind`, docs/gulf-shelf.md); the merchant\'s correction (`kind_override`) is the kind the product is scored, filtered and shown as from the next score on (`product_kind`, and `alcohol_free` for an oil, bakhoor or oud wood), and survives every sync. `{"kind": null}` reads it from the listing again.',
        security,
        params: ProductParams,
        body: ProductKindBodySchema,
        response: {
          200: success(AdminProductSchema, 'The product, with its kind corrected (or read from the listing again)'),
          ...errorResponses([
            ...PATH_PARAM,
            ...ADMIN_CHANGE,
            'merchant_not_found',
            'product_not_found',
            'invalid_kind',
          ]),
        },
      },
    },
    async (request) => {
      const row = await setProductKind(
        app.db,
        app.catalog.current(),
        request.params.id,
        request.params.merchant_product_id,
        request.body.kind,
      );
      app.merchantProducts.invalidate(row.merchantId);
      return productView(row, app.catalog.current());
    },
  );

  app.delete(
    '/merchants/:id/products/:merchant_product_id/match',
    {
      schema: {
        operationId: 'unpinProduct',
        tags: ['admin'],
        summary: 'Removes a hand-made pin; the matcher decides again',
        security,
        params: ProductParams,
        response: {
          200: success(AdminProductSchema, 'The product, matched again'),
          ...errorResponses([...PATH_PARAM, ...ADMIN_CHANGE, 'merchant_not_found', 'product_not_found']),
        },
      },
    },
    async (request) => {
      const row = await unpinMatch(
        app.db,
        app.catalog.current(),
        request.params.id,
        request.params.merchant_product_id,
      );
      app.merchantProducts.invalidate(row.merchantId);
      return productView(row, app.catalog.current());
    },
  );
};

export default products;
