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

/** How sure the catalog is of a record's scent profile, most certain first (docs/catalog.md "Evidence"). */
export const PROFILE_GRADES = ['confirmed', 'referenced', 'unreviewed'] as const;
export type ProfileGrade = (typeof PROFILE_GRADES)[number];

/** What kind of source a piece of evidence is; only some kinds count for some facts (catalog/evidence.ts). */
export const EVIDENCE_KINDS = ['house', 'reference', 'launch', 'review', 'shop'] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

/** The facts of a record a source can back. */
export const EVIDENCE_FACTS = ['identity', 'gender', 'year', 'name_ar', 'notes', 'inspired_by', 'barcode'] as const;
export type EvidenceFact = (typeof EVIDENCE_FACTS)[number];

/** A source anyone can re-read: a URL, or a repository, path and commit. */
export const SOURCE_PATTERN = '^(https?://\\S+|github:[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+/\\S+@[0-9a-f]{40})$';

export const EvidenceSchema = Type.Object(
  {
    /** "https://…" (or "http://…" for a page stored only so), or "github:owner/repo/path@<40-hex commit>" */
    source: Type.String({ pattern: SOURCE_PATTERN, maxLength: 600 }),
    kind: Type.Union(EVIDENCE_KINDS.map((k) => Type.Literal(k))),
    /** who publishes it: a shop's owner (its domain or business), so that two listings of one shop count once */
    owner: Type.String({ minLength: 1, maxLength: 120 }),
    /** what the source gave, as it gave it: a listing's title, a note list, a sentence */
    gave: Type.String({ minLength: 1, maxLength: 600 }),
    supports: Type.Array(Type.Union(EVIDENCE_FACTS.map((f) => Type.Literal(f))), { minItems: 1, maxItems: 7 }),
  },
  { additionalProperties: false },
);
export type Evidence = Static<typeof EvidenceSchema>;

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
    aliases: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 10 })),
    /** GTIN-8/12/13/14 barcodes of the bottles sold as this perfume */
    barcodes: Type.Optional(Type.Array(Type.String({ pattern: '^[0-9]{8,14}$' }), { maxItems: 20 })),
    image_url: Type.Optional(Type.String({ pattern: '^https://' })),
    /** the id of the perfume this one is sold as the answer to ("inspired by", "بديل") */
    inspired_by: Type.Optional(Type.String({ pattern: ID_PATTERN, maxLength: 120 })),
    /** the sources of the record's facts; see docs/catalog.md "Evidence" */
    evidence: Type.Optional(Type.Array(EvidenceSchema, { maxItems: 40 })),
    /**
     * The scent profile, when there is one: grade, families, accords, notes,
     * seasons, times and occasions come together or not at all. A record
     * without them is an identity: recognised, and profiled from other evidence.
     */
    grade: Type.Optional(Type.Union(PROFILE_GRADES.map((g) => Type.Literal(g)))),
    families: Type.Optional(Type.Array(Type.String(), { minItems: 1, maxItems: 3 })),
    /** accord → weight 1–100, strongest first; 4 to 8 accords */
    accords: Type.Optional(Type.Record(Type.String(), Type.Integer({ minimum: 1, maximum: 100 }))),
    notes: Type.Optional(
      Type.Object(
        { top: Type.Optional(NoteList), heart: Type.Optional(NoteList), base: Type.Optional(NoteList) },
        { additionalProperties: false },
      ),
    ),
    seasons: Type.Optional(Type.Array(Type.String(), { minItems: 1, maxItems: 4 })),
    times: Type.Optional(Type.Array(Type.String(), { minItems: 1, maxItems: 2 })),
    occasions: Type.Optional(Type.Array(Type.String(), { minItems: 1, maxItems: 6 })),
  },
  { additionalProperties: false },
);
export type PerfumeRecord = Static<typeof PerfumeRecordSchema>;

/** The profile fields, which a record has all of or none of. */
export const PROFILE_FIELDS = ['grade', 'families', 'accords', 'notes', 'seasons', 'times', 'occasions'] as const;

/** A record with its scent profile. */
export type ProfiledRecord = PerfumeRecord & Required<Pick<PerfumeRecord, (typeof PROFILE_FIELDS)[number]>>;

export function hasProfile(r: PerfumeRecord): r is ProfiledRecord {
  return r.grade !== undefined;
}
