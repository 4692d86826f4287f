import { type Static, Type } from '@sinclair/typebox';
import { ApiKeyField, IsoDateTime, MerchantSchema, Nullable } from './common.ts';

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
