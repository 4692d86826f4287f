import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { KeyIdParams, MerchantIdParams } from '../../contracts/admin.ts';
import { Nullable } from '../../contracts/common.ts';
import { ADMIN_CHANGE, ADMIN_READ, errorResponses, PATH_PARAM, success } from '../../contracts/errors.ts';
import {
  confirmRemoval,
  createSource,
  deleteSource,
  FEED_KINDS,
  FEED_LIMITS,
  listPulls,
  listSources,
  sourceWithLastPull,
  testSource,
  updateSource,
} from '../../services/feeds.ts';

const security = [{ adminToken: [] }];

const Kind = Type.Union(
  FEED_KINDS.map((k) => Type.Literal(k)),
  {
    description:
      'shopify (the public /products.json), shopify_admin (the Admin REST API, with `token`), shopify_graphql (the Admin GraphQL API, with `token`), woocommerce (the Store API), salla (the Salla Merchant API, with `token`), google (Google Merchant Center XML or TSV, as Salla, Zid, Shopify and WooCommerce export), csv, json (a file at a URL, with `mapping`)',
  },
);
const Interval = Type.Integer({
  minimum: FEED_LIMITS.minIntervalMinutes,
  maximum: FEED_LIMITS.maxIntervalMinutes,
  description: 'Minutes between pulls (60 by default)',
});
const Share = Type.Number({
  minimum: 0,
  maximum: 1,
  description:
    'A pull that would remove more than this share of the source’s products is held for confirmation (0.2 by default)',
});
const Mapping = Type.Record(Type.String({ maxLength: 60 }), Type.String({ maxLength: 120 }), {
  description:
    'csv, json: our field → the feed’s column, where the feed names it otherwise ({"name": "Product Title"})',
});

export const FeedPullSchema = Type.Object({
  id: Type.String(),
  status: Type.Union(
    ['applied', 'not_modified', 'held', 'failed', 'running'].map((s) => Type.Literal(s)),
    {
      description:
        'applied: stored; not_modified: the feed answered 304 (one conditional request); held: it would remove too many products, nothing changed; failed: nothing changed (error says why)',
    },
  ),
  started_at: Type.String(),
  finished_at: Nullable(Type.String()),
  pages: Type.Integer(),
  bytes: Type.Integer(),
  received: Type.Integer(),
  added: Type.Integer(),
  changed: Type.Integer(),
  removed: Type.Integer({ description: 'Removed, or (held) that would have been' }),
  rejected: Type.Integer(),
  rejections: Type.Array(Type.Object({ id: Type.Optional(Type.String()), reason: Type.String() }), {
    description: 'The first 50 rows not read, with why',
  }),
  error: Nullable(Type.String()),
  error_code: Nullable(Type.String()),
});

export const FeedSourceSchema = Type.Object({
  id: Type.String(),
  merchant_id: Type.String(),
  kind: Kind,
  url: Type.String(),
  mapping: Nullable(Type.Record(Type.String(), Type.String())),
  currency: Nullable(Type.String()),
  token_set: Type.Boolean({ description: 'An access token is stored (encrypted); it is never shown' }),
  interval_minutes: Type.Integer(),
  paused: Type.Boolean(),
  max_removal_share: Type.Number(),
  next_pull_at: Type.String(),
  created_at: Type.String(),
  last_pull: Nullable(FeedPullSchema),
});

const PullBody = Type.Object(
  {
    confirm: Type.Optional(
      Type.Boolean({ description: 'Apply it even when it removes more than the share (after a held pull)' }),
    ),
    force: Type.Optional(Type.Boolean({ description: 'Read the whole feed even when it says it has not changed' })),
  },
  { additionalProperties: false },
);

/** A merchant's feed sources (docs/feeds.md): the service pulls them on their interval. */
const feeds: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/merchants/:id/feeds',
    {
      schema: {
        operationId: 'createFeedSource',
        tags: ['admin'],
        summary: 'Adds a product feed the service pulls on its own',
        security,
        params: MerchantIdParams,
        body: Type.Object(
          {
            kind: Kind,
            url: Type.String({
              minLength: 8,
              maxLength: 2000,
              description:
                'The shop (shopify, woocommerce), the API base (salla: https://api.salla.dev/admin/v2) or the feed',
            }),
            mapping: Type.Optional(Mapping),
            currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$' })),
            token: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 500,
                description: 'shopify_admin, shopify_graphql, salla: the access token',
              }),
            ),
            interval_minutes: Type.Optional(Interval),
            max_removal_share: Type.Optional(Share),
            paused: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: {
          201: success(FeedSourceSchema, 'The source; its first pull is due at once'),
          ...errorResponses([...PATH_PARAM, ...ADMIN_CHANGE, 'merchant_not_found', 'invalid_feed', 'feed_exists']),
        },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createSource(app.db, app.leadCipher, request.params.id, request.body)),
  );

  app.get(
    '/merchants/:id/feeds',
    {
      schema: {
        operationId: 'listFeedSources',
        tags: ['admin'],
        summary: "A merchant's feed sources, each with its last pull",
        security,
        params: MerchantIdParams,
        response: {
          200: success(Type.Object({ feeds: Type.Array(FeedSourceSchema) }), 'The sources'),
          ...errorResponses([...PATH_PARAM, ...ADMIN_READ, 'merchant_not_found']),
        },
      },
    },
    async (request) => ({ feeds: await listSources(app.db, request.params.id) }),
  );

  app.patch(
    '/feeds/:id',
    {
      schema: {
        operationId: 'updateFeedSource',
        tags: ['admin'],
        summary: 'Pauses or resumes a feed, or changes its interval, removal share, mapping or token',
        security,
        params: KeyIdParams,
        body: Type.Object(
          {
            paused: Type.Optional(Type.Boolean()),
            interval_minutes: Type.Optional(Interval),
            max_removal_share: Type.Optional(Share),
            mapping: Type.Optional(Nullable(Mapping)),
            currency: Type.Optional(Nullable(Type.String({ pattern: '^[A-Za-z]{3}$' }))),
            token: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 500 }))),
          },
          { additionalProperties: false },
        ),
        response: {
          200: success(FeedSourceSchema, 'The source'),
          ...errorResponses([...PATH_PARAM, ...ADMIN_CHANGE, 'feed_not_found']),
        },
      },
    },
    async (request) => updateSource(app.db, app.leadCipher, request.params.id, request.body),
  );

  app.delete(
    '/feeds/:id',
    {
      schema: {
        operationId: 'deleteFeedSource',
        tags: ['admin'],
        summary: 'Removes a feed source and its pull records; the products it brought stay',
        security,
        params: KeyIdParams,
        response: {
          200: success(Type.Object({ deleted: Type.Boolean() }), 'Removed'),
          ...errorResponses([...PATH_PARAM, ...ADMIN_CHANGE, 'feed_not_found']),
        },
      },
    },
    async (request) => {
      await deleteSource(app.db, request.params.id);
      return { deleted: true };
    },
  );

  app.post(
    '/feeds/:id/test',
    {
      schema: {
        operationId: 'testFeedSource',
        tags: ['admin'],
        summary: 'Fetches the first page and shows how it would be read and matched; stores nothing',
        security,
        params: KeyIdParams,
        response: {
          200: success(
            Type.Union([
              Type.Object({
                ok: Type.Literal(true),
                rows: Type.Integer({ description: 'Products read from the first page' }),
                rejected: Type.Array(Type.Object({ id: Type.Optional(Type.String()), reason: Type.String() })),
                products: Type.Array(
                  Type.Object({
                    merchant_product_id: Type.String(),
                    name: Type.String(),
                    house: Type.String(),
                    price: Nullable(Type.Number()),
                    sale_price: Nullable(Type.Number()),
                    currency: Type.String(),
                    available: Type.Boolean(),
                    sizes: Nullable(Type.Array(Type.Object({}, { additionalProperties: true }))),
                    status: Type.String(),
                    quality: Nullable(Type.String()),
                    sillage_perfume_id: Nullable(Type.String()),
                  }),
                  { description: 'The first 50, as the matcher reads them' },
                ),
                problems: Type.Array(
                  Type.Object({ merchant_product_id: Nullable(Type.String()), reason: Type.String() }),
                ),
              }),
              Type.Object({ ok: Type.Literal(false), error: Type.String(), code: Type.String() }),
            ]),
            'How the first page reads, or why it could not be fetched',
          ),
          ...errorResponses([
            ...PATH_PARAM,
            ...ADMIN_CHANGE,
            'feed_not_found',
            'store_not_installed',
            'platform_error',
          ]),
        },
      },
    },
    async (request) =>
      testSource(
        app.db,
        app.catalog.current(),
        app.leadCipher,
        request.params.id,
        app.feeds.fetchPage,
        app.platforms.access,
        app.inlineMatcher,
      ),
  );

  app.post(
    '/feeds/:id/pull',
    {
      schema: {
        operationId: 'pullFeedSource',
        tags: ['admin'],
        summary: 'Pulls the feed now and answers the pull’s record (a held pull is applied with `confirm`)',
        security,
        params: KeyIdParams,
        body: Type.Optional(PullBody),
        response: {
          200: success(FeedPullSchema, 'The pull'),
          ...errorResponses([...PATH_PARAM, ...ADMIN_CHANGE, 'feed_not_found', 'feed_busy']),
        },
      },
    },
    async (request) => {
      if (request.body?.confirm) await confirmRemoval(app.db, request.params.id);
      return app.feeds.pullNow(request.params.id, { force: request.body?.force ?? false });
    },
  );

  app.get(
    '/feeds/:id/pulls',
    {
      schema: {
        operationId: 'listFeedPulls',
        tags: ['admin'],
        summary: "A feed's last 50 pulls, newest first",
        security,
        params: KeyIdParams,
        response: {
          200: success(
            Type.Object({ source: FeedSourceSchema, pulls: Type.Array(FeedPullSchema) }),
            'The source and its pulls',
          ),
          ...errorResponses([...PATH_PARAM, ...ADMIN_READ, 'feed_not_found']),
        },
      },
    },
    async (request) => ({
      source: await sourceWithLastPull(app.db, request.params.id),
      pulls: await listPulls(app.db, request.params.id),
    }),
  );
};

export default feeds;
