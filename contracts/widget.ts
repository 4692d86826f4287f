import { type Static, Type } from '@sinclair/typebox';
import { ApiKeyField, IsoDateTime, MerchantSchema, Nullable, UuidString } from './common.ts';

export const KeyModeSchema = Type.Union([Type.Literal('test'), Type.Literal('live')]);

export const VerifyRequestSchema = Type.Object(
  { api_key: Type.Optional(ApiKeyField) },
  { additionalProperties: false },
);

export const CatalogReadinessSchema = Type.Object({
  total: Type.Integer({ description: 'Products synced for the merchant' }),
  matched: Type.Integer({ description: 'Matched to a perfume of our catalog (quality full)' }),
  partial: Type.Integer({ description: 'Unmatched but with merchant accord/note hints (quality partial)' }),
  unmatched: Type.Integer({ description: 'Neither: never recommended' }),
  pending: Type.Integer({ description: 'Stored but not yet matched' }),
  ready: Type.Boolean({ description: 'At least one product can be recommended' }),
  last_synced_at: Nullable(IsoDateTime),
});

export const VerifyResponseSchema = Type.Object({
  valid: Type.Literal(true),
  merchant: MerchantSchema,
  test_mode: Type.Boolean(),
  key: Type.Object({
    id: Type.String(),
    prefix: Type.String(),
    mode: KeyModeSchema,
    allowed_origins: Type.Array(Type.String()),
  }),
  catalog: CatalogReadinessSchema,
});

export type VerifyResponse = Static<typeof VerifyResponseSchema>;
export type CatalogReadiness = Static<typeof CatalogReadinessSchema>;

export const LOOKUP_MAX_LIMIT = 50;
export const LOOKUP_MAX_QUERY = 200;
export const LOOKUP_MAX_IDS = 50;

export const LookupRequestSchema = Type.Object(
  {
    api_key: Type.Optional(ApiKeyField),
    query: Type.Optional(
      Type.String({
        maxLength: LOOKUP_MAX_QUERY,
        description: 'Name to search, in Latin or Arabic script; typos, house names and abbreviations are understood',
      }),
    ),
    house: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Restrict to one house (name, Arabic name or abbreviation)',
      }),
    ),
    ids: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 120 }), {
        minItems: 1,
        maxItems: LOOKUP_MAX_IDS,
        description: 'Fetch these perfumes exactly, in this order',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LOOKUP_MAX_LIMIT, default: 10 })),
  },
  { additionalProperties: false },
);

const NotesSchema = Type.Object({
  top: Type.Array(Type.String()),
  heart: Type.Array(Type.String()),
  base: Type.Array(Type.String()),
});

export const PerfumeResultSchema = Type.Object({
  sillage_perfume_id: Type.String(),
  name: Type.String(),
  name_ar: Nullable(Type.String()),
  house: Type.String(),
  house_ar: Nullable(Type.String()),
  concentration: Nullable(Type.String()),
  year: Nullable(Type.Integer()),
  gender: Nullable(Type.String()),
  families: Type.Array(Type.String()),
  accords: Type.Array(Type.Object({ name: Type.String(), weight: Type.Number({ minimum: 0, maximum: 1 }) })),
  notes: NotesSchema,
  seasons: Type.Array(Type.String()),
  times: Type.Array(Type.String()),
  occasions: Type.Array(Type.String()),
  image_url: Nullable(Type.String()),
  score: Type.Number({ minimum: 0, maximum: 1, description: 'Relevance to the query, 0–1 (1 for exact id fetches)' }),
});

export const LookupResponseSchema = Type.Object({
  results: Type.Array(PerfumeResultSchema),
  not_found: Type.Array(Type.String(), { description: 'Requested ids that are not in the catalog' }),
  catalog_version: Type.Integer(),
});

export type LookupRequest = Static<typeof LookupRequestSchema>;
export type PerfumeResult = Static<typeof PerfumeResultSchema>;

export const SCORE_MAX_LIMIT = 24;
export const INLINE_MAX_PRODUCTS = 200;

export const QuizSchema = Type.Object(
  {
    families: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 40 }), {
        maxItems: 15,
        description: 'Scent families (vocabulary slugs, English or Arabic names and aliases accepted)',
      }),
    ),
    accord_ratings: Type.Optional(
      Type.Record(Type.String({ maxLength: 40 }), Type.String({ maxLength: 20 }), {
        maxProperties: 90,
        description: 'Accord → love | like | neutral | dislike | avoid',
      }),
    ),
    season: Type.Optional(Type.String({ maxLength: 40, description: 'spring | summer | autumn (fall) | winter' })),
    occasion: Type.Optional(
      Type.String({
        maxLength: 40,
        description:
          'daily | office | evening | date-night | special-occasion | wedding | eid | gathering | sport | travel',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ScoreRequestSchema = Type.Object(
  {
    api_key: Type.Optional(ApiKeyField),
    quiz: QuizSchema,
    session_id: Type.Optional(UuidString('Created by the server when omitted')),
    catalog_mode: Type.Optional(Type.Union([Type.Literal('synced'), Type.Literal('inline')], { default: 'synced' })),
    inline_catalog: Type.Optional(
      Type.Array(Type.Unknown(), {
        minItems: 1,
        maxItems: INLINE_MAX_PRODUCTS,
        description: 'MerchantProductInput rows, for catalog_mode inline',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: SCORE_MAX_LIMIT, default: 6 })),
    locale: Type.Optional(Type.Union([Type.Literal('ar'), Type.Literal('en')], { default: 'ar' })),
  },
  { additionalProperties: false },
);

export const QualitySchema = Type.Union([Type.Literal('full'), Type.Literal('sibling'), Type.Literal('partial')], {
  description:
    "What the product's scent profile is known from. full: the product is a perfume of our catalog. sibling: the listing names a concentration of a line the catalog lacks (e.g. an EDP of a line we hold as EDT); the profile is the nearest concentration's, a close version, not the product itself. partial: not matched; the profile comes from the merchant's own accord and note hints.",
});

export const RecommendationSchema = Type.Object({
  merchant_product_id: Type.String(),
  sillage_perfume_id: Nullable(
    Type.String({
      description:
        'The perfume of our catalog whose profile the product is scored by (for quality sibling, the close version); null for quality partial',
    }),
  ),
  name: Type.String(),
  house: Type.String(),
  match_score: Type.Integer({ minimum: 0, maximum: 100 }),
  match_accords: Type.Array(Type.String()),
  quality: QualitySchema,
  price: Nullable(Type.Number()),
  currency: Type.String(),
  product_url: Nullable(Type.String()),
  image_url: Nullable(Type.String()),
});

export const ScoreResponseSchema = Type.Object({
  session_id: Type.String(),
  merchant: MerchantSchema,
  recommendations: Type.Array(RecommendationSchema),
  also_explore: Type.Array(RecommendationSchema),
  taste_summary: Type.Object({
    dominant_families: Type.Array(Type.String()),
    top_accords: Type.Array(Type.String()),
    avoid_accords: Type.Array(Type.String()),
  }),
  powered_by: Type.Object({ label: Type.String(), url: Type.String(), logo_svg: Type.String() }),
  test_mode: Type.Boolean(),
});

export type ScoreRequest = Static<typeof ScoreRequestSchema>;
export type ScoreResponse = Static<typeof ScoreResponseSchema>;
export type Recommendation = Static<typeof RecommendationSchema>;

export const EventRequestSchema = Type.Object(
  {
    api_key: Type.Optional(ApiKeyField),
    session_id: Type.Optional(UuidString('Session of the events that name none')),
    events: Type.Optional(
      Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true }), {
        minItems: 1,
        maxItems: 50,
        description: 'Batch form: 1–50 events. Or send one event inline: its type and fields at the top level.',
      }),
    ),
    type: Type.Optional(Type.String({ description: 'Single form: the event type' })),
  },
  {
    additionalProperties: true,
    description:
      'Types — lifecycle: widget_loaded, widget_opened, quiz_started, quiz_completed, results_viewed, widget_closed (data: at most 20 flat values, text of at most 200 characters), widget_error (message, code); click: recommendation_clicked and also_explore_clicked (merchant_product_id, position), powered_by_clicked; lead: lead_submitted (email and/or phone, consent: true, consent_version); purchase: purchase_completed (order_id, total, currency, items: [{merchant_product_id, quantity, price}], quantity × price adding up to at most 1,000,000,000). Each may carry event_id (dedup key), occurred_at and session_id. Fields a type does not define are dropped, never stored; bodies nest at most 32 levels.',
  },
);

export const EventResponseSchema = Type.Object({
  accepted: Type.Integer({ description: 'Events stored by this request' }),
  duplicates: Type.Integer({
    description: 'Events already stored (same event_id, or a purchase order_id seen before)',
  }),
});
