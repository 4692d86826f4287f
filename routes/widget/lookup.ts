import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { search } from '../../catalog/search.ts';
import type { CatalogPerfume } from '../../catalog/types.ts';
import { errorResponses, success, WIDGET_OPERATION } from '../../contracts/errors.ts';
import { LOOKUP_EXAMPLE } from '../../contracts/examples.ts';
import {
  LOOKUP_MAX_BYTES,
  LookupRequestSchema,
  LookupResponseSchema,
  type PerfumeResult,
} from '../../contracts/widget.ts';
import { badRequest } from '../../lib/errors.ts';
import { widgetRateLimit } from '../../plugins/external/rate-limit.ts';
import { documentAs } from '../../plugins/external/swagger.ts';

export function perfumeResult(p: CatalogPerfume, score: number): PerfumeResult {
  return {
    sillage_perfume_id: p.id,
    name: p.name,
    name_ar: p.nameAr,
    house: p.house,
    house_ar: p.houseAr,
    concentration: p.concentration,
    year: p.year,
    gender: p.gender,
    families: p.families,
    accords: p.accords,
    notes: { top: p.notes.top ?? [], heart: p.notes.heart ?? [], base: p.notes.base ?? [] },
    seasons: p.seasons,
    times: p.times,
    occasions: p.occasions,
    image_url: p.imageUrl,
    score: Math.round(score * 1000) / 1000,
  };
}

const lookup: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/lookup',
    {
      bodyLimit: LOOKUP_MAX_BYTES,
      config: {
        rateLimit: widgetRateLimit('lookup'),
        swaggerTransform: documentAs({ body: { ...LookupRequestSchema, examples: [LOOKUP_EXAMPLE.request] } }),
      },
      schema: {
        operationId: 'lookupPerfumes',
        tags: ['widget'],
        summary: "Searches the service's perfume catalog",
        description:
          'For catalog tooling: find the perfume a product should be matched to. `query` searches names in both scripts (typos, house names and abbreviations such as YSL or MFK understood); `house` restricts to one house; `ids` fetches exact perfumes. At least one of them is required. 300 requests a minute per key and client address. A body of at most 32 KiB.',
        security: [{ widgetKey: [] }],
        body: LookupRequestSchema,
        response: {
          200: success(
            LookupResponseSchema,
            'The perfumes found, best first, and the requested ids not in the catalog',
            { rateLimited: true, example: LOOKUP_EXAMPLE.response },
          ),
          ...errorResponses([...WIDGET_OPERATION, 'empty_lookup'], { rateLimited: true }),
        },
      },
    },
    async (request) => {
      const { query, house, ids } = request.body;
      const limit = request.body.limit ?? 10;
      const snapshot = app.catalog.current();
      const q = query?.trim() ?? '';

      if (ids) {
        const found = ids.map((id) => snapshot.byId.get(id));
        return {
          results: found.filter((p): p is CatalogPerfume => p !== undefined).map((p) => perfumeResult(p, 1)),
          not_found: ids.filter((_, i) => found[i] === undefined),
          catalog_version: snapshot.version,
        };
      }
      if (!q && !house?.trim()) {
        throw badRequest('empty_lookup', 'Send a non-empty query, a house, or ids to look up');
      }
      const hits = search(snapshot.index, q, { house: house?.trim() || undefined, limit });
      return {
        results: hits.map((h) => perfumeResult(snapshot.perfumes[h.doc] as CatalogPerfume, h.score)),
        not_found: [],
        catalog_version: snapshot.version,
      };
    },
  );
};

export default lookup;
