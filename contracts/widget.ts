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
