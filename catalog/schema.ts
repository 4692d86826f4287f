import { type Static, Type } from '@sinclair/typebox';

/**
 * The shipped catalog's file format (catalog/data). Also the JSON import
 * format; the CSV import format maps onto it (docs/catalog.md).
 */
export const ID_PATTERN = '^[a-z0-9]+(-[a-z0-9]+)*$';

export const HouseRecordSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    name_ar: Type.String({ minLength: 1, maxLength: 100 }),
    aliases: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
    abbreviations: Type.Array(Type.String({ minLength: 1, maxLength: 10 }), { default: [] }),
    region: Type.Union([Type.Literal('middle-east'), Type.Literal('global')]),
    country: Type.String({ pattern: '^[A-Z]{2}$' }),
  },
  { additionalProperties: false },
);
export type HouseRecord = Static<typeof HouseRecordSchema>;

const NoteList = Type.Array(Type.String({ minLength: 1, maxLength: 60 }), { maxItems: 12 });

export const PerfumeRecordSchema = Type.Object(
  {
    id: Type.String({ pattern: ID_PATTERN, maxLength: 120 }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    name_ar: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    house: Type.String({ minLength: 1, maxLength: 100 }),
    house_ar: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    concentration: Type.String({ minLength: 1 }),
    year: Type.Optional(Type.Integer({ minimum: 1700, maximum: 2100 })),
    gender: Type.String({ minLength: 1 }),
    families: Type.Array(Type.String(), { minItems: 1, maxItems: 3 }),
    /** accord → weight 1–100, strongest first; 4 to 8 accords */
    accords: Type.Record(Type.String(), Type.Integer({ minimum: 1, maximum: 100 })),
    notes: Type.Object(
      { top: Type.Optional(NoteList), heart: Type.Optional(NoteList), base: Type.Optional(NoteList) },
      { additionalProperties: false },
    ),
    seasons: Type.Array(Type.String(), { minItems: 1, maxItems: 4 }),
    times: Type.Array(Type.String(), { minItems: 1, maxItems: 2 }),
    occasions: Type.Array(Type.String(), { minItems: 1, maxItems: 6 }),
    aliases: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 10 })),
    image_url: Type.Optional(Type.String({ pattern: '^https://' })),
  },
  { additionalProperties: false },
);
export type PerfumeRecord = Static<typeof PerfumeRecordSchema>;
