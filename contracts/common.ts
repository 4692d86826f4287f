import { type TSchema, Type } from '@sinclair/typebox';

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const IsoDateTime = Type.String({ format: 'date-time' });
/**
 * A UUID as the database's uuid columns take it. JSON Schema's "uuid" format alone
 * also admits `urn:uuid:…`, which PostgreSQL refuses: such a session id would fail
 * the batched write of every session queued with it.
 */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
export const UuidString = (description?: string) =>
  Type.String({ format: 'uuid', pattern: UUID_PATTERN, ...(description ? { description } : {}) });

/** A widget key in a request body; the format is checked by the key plugin, which answers 401. */
export const ApiKeyField = Type.String({
  maxLength: 200,
  description: 'Widget API key (pk_test_… or pk_live_…). May instead be sent as Authorization: Bearer',
});

export const MerchantSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    slug: Type.String(),
  },
  { $id: 'Merchant', title: 'Merchant', description: 'The shop behind a widget key' },
);
