import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { LearntBarcodeSchema, LearntBarcodesQuerySchema } from '../../contracts/admin.ts';
import { ADMIN_READ, errorResponses, success } from '../../contracts/errors.ts';
import { learntBarcodeView, listLearntBarcodes } from '../../services/learning.ts';

const security = [{ adminToken: [] }];

/** What the shelves taught (docs/learning.md): the barcodes learnt as keys, and those shops disagree on. */
const learning: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/learning/barcodes',
    {
      schema: {
        operationId: 'listLearntBarcodes',
        tags: ['admin'],
        summary: 'Barcodes the shelves taught: conflicts to look at (by default), or keys',
        description:
          'A barcode that products of at least two shops carry, each matched to one perfume, is a key: it matches that perfume for every shop. One that shops put on different perfumes is a conflict and matches nothing; here for the operator to look at. Shops are counted, never named.',
        security,
        querystring: LearntBarcodesQuerySchema,
        response: {
          200: success(
            Type.Object({ barcodes: Type.Array(LearntBarcodeSchema), total: Type.Integer() }),
            'A page of learnt barcodes, most shops first, and the total',
          ),
          ...errorResponses(ADMIN_READ),
        },
      },
    },
    async (request) => {
      const { rows, total } = await listLearntBarcodes(app.db, {
        status: request.query.status ?? 'conflict',
        limit: Number(request.query.limit ?? 100),
        offset: Number(request.query.offset ?? 0),
      });
      const snapshot = app.catalog.current();
      return { barcodes: rows.map((r) => learntBarcodeView(r, snapshot)), total };
    },
  );
};

export default learning;
