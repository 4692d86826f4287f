import { Type } from '@sinclair/typebox';
import { IsoDateTime, Nullable } from './common.ts';
import { KeyModeSchema } from './widget.ts';

export const MerchantIdParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100, description: 'Merchant id (UUID) or slug' }),
});
export const KeyIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

export const CreateMerchantBodySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$' }),
  },
  { additionalProperties: false },
);

export const AdminMerchantSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  created_at: IsoDateTime,
});

const AllowedOrigins = Type.Array(Type.String({ minLength: 1, maxLength: 300 }), {
  maxItems: 50,
  description: 'Exact origins (https://shop.example) or https://*.shop.example; "*" on test keys only',
});

export const CreateKeyBodySchema = Type.Object(
  {
    mode: KeyModeSchema,
    allowed_origins: Type.Optional(AllowedOrigins),
  },
  { additionalProperties: false },
);

export const UpdateKeyBodySchema = Type.Object({ allowed_origins: AllowedOrigins }, { additionalProperties: false });

export const AdminKeySchema = Type.Object({
  id: Type.String(),
  merchant_id: Type.String(),
  prefix: Type.String({ description: 'First characters of the key, to tell keys apart' }),
  mode: KeyModeSchema,
  allowed_origins: Type.Array(Type.String()),
  revoked: Type.Boolean(),
  revoked_at: Nullable(IsoDateTime),
  created_at: IsoDateTime,
  last_used_at: Nullable(IsoDateTime),
});

export const CreatedKeySchema = Type.Composite([
  AdminKeySchema,
  Type.Object({ key: Type.String({ description: 'The plaintext key: shown here once, never again' }) }),
]);
