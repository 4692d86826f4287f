import { Type } from '@sinclair/typebox';
import { EVIDENCE_FACTS, EVIDENCE_KINDS, PROFILE_GRADES } from '../catalog/schema.ts';
import { PRODUCT_KINDS } from '../matching/kind.ts';
import { IsoDateTime, Nullable } from './common.ts';
import { KeyModeSchema, MerchantProductInputSchema, QualitySchema } from './widget.ts';

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
  teaches: Type.Boolean({
    description:
      "Whether what its shelf shows (a barcode's perfume) is learnt for every shop: only derived facts, never its text, prices or name (docs/learning.md). true by default",
  }),
  learns: Type.Boolean({
    description: 'Whether barcodes other shops taught match its products. true by default',
  }),
  created_at: IsoDateTime,
});

export const UpdateMerchantBodySchema = Type.Object(
  {
    teaches: Type.Optional(Type.Boolean()),
    learns: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);

/** A page of a list: its size and where it starts, as a query string gives them. */
const PageFields = {
  limit: Type.Optional(Type.String({ pattern: '^(?:[1-9]\\d{0,2}|1000)$', description: '1–1000, default 100' })),
  offset: Type.Optional(Type.String({ pattern: '^\\d{1,7}$', description: 'default 0' })),
};

export const EraseMerchantBodySchema = Type.Object(
  {
    confirm: Type.Optional(
      Type.String({
        maxLength: 100,
        description: "The merchant's slug, so that an erasure is never an accident (a wrong one erases nothing)",
      }),
    ),
  },
  { additionalProperties: false },
);

export const ErasingMerchantSchema = Type.Object({
  merchant_id: Type.String(),
  status: Type.Literal('erasing', {
    description:
      'Refused everywhere from now on; its rows are deleted in the background, then `GET /api/admin/merchants/:id` answers 404',
  }),
});

export const LearntBarcodesQuerySchema = Type.Object(
  {
    status: Type.Optional(
      Type.Union([Type.Literal('conflict'), Type.Literal('key')], { description: 'default conflict' }),
    ),
    ...PageFields,
  },
  { additionalProperties: false },
);

const LearntPerfume = Type.Object({
  sillage_perfume_id: Type.String(),
  name: Nullable(Type.String({ description: 'null when the perfume has left the catalog' })),
  house: Nullable(Type.String()),
});

export const LearntBarcodeSchema = Type.Object({
  barcode: Type.String({ description: 'Its GTIN-14 (zeros in front of an EAN-13 or a UPC-A)' }),
  status: Type.Union([Type.Literal('key'), Type.Literal('conflict')], {
    description:
      'key: matches its perfume for every shop that learns; conflict: shops put it on different perfumes, so it matches nothing',
  }),
  perfume: Nullable(LearntPerfume),
  shops: Type.Integer({ description: 'How many shops taught it (a key) or carry it (a conflict); never which' }),
  perfumes: Nullable(
    Type.Array(Type.Composite([LearntPerfume, Type.Object({ shops: Type.Integer() })]), {
      description: "A conflict's perfumes, each with how many shops matched a product carrying it to that one",
    }),
  ),
  updated_at: IsoDateTime,
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

export const SyncProductsBodySchema = Type.Object(
  {
    products: Type.Array(Type.Unknown(), {
      maxItems: 50_000,
      description:
        'MerchantProductInput rows (merchant_product_id, name required; house, price, currency, image_url, product_url, accords, notes, description optional: an empty or missing house is read from the name). Each row is validated on its own: bad rows are reported, good rows stored.',
    }),
    replace: Type.Optional(Type.Boolean({ description: 'Remove products absent from this feed', default: false })),
  },
  { additionalProperties: false },
);

/** The feed as published: its rows as MerchantProductInput (each row is still checked on its own). */
export const SyncProductsBodyDocument = Type.Object(
  {
    ...SyncProductsBodySchema.properties,
    products: Type.Array(Type.Ref(MerchantProductInputSchema), {
      maxItems: 50_000,
      description: 'Each row is validated on its own: bad rows are reported in the answer, good rows stored.',
    }),
  },
  { additionalProperties: false },
);

const WithoutProfileCount = Type.Integer({
  description:
    'Of matched: recognised, but with no scent profile from any evidence yet, so never recommended until one comes (see `to_recommend` in the product list)',
});

export const SyncSummarySchema = Type.Object({
  merchant_id: Type.String(),
  received: Type.Integer(),
  upserted: Type.Integer(),
  removed: Type.Integer(),
  matched: Type.Integer({ description: 'Matched to a perfume of our catalog (recognised), with a profile or not' }),
  partial: Type.Integer({ description: "Not matched, with a profile from the shop's own words" }),
  unmatched: Type.Integer(),
  without_profile: WithoutProfileCount,
  rejected: Type.Integer(),
  rejections: Type.Array(
    Type.Object({ index: Type.Integer(), merchant_product_id: Type.Optional(Type.String()), reason: Type.String() }),
    { description: 'The first 1,000 rejected rows: position in the feed and reason' },
  ),
  barcodes_ignored: Type.Integer({
    description:
      "Barcodes sent that were not read (not 8, 12, 13 or 14 digits, a failed check digit, a shop's own in-store code): their products are stored without them, never refused for it",
  }),
  barcode_issues: Type.Array(Type.Object({ merchant_product_id: Type.String(), reason: Type.String() }), {
    description: 'The first 1,000 barcodes ignored: the product and why',
  }),
  catalog_version: Type.Integer(),
});

export const ProductStatusSchema = Type.Union([
  Type.Literal('matched'),
  Type.Literal('partial'),
  Type.Literal('unmatched'),
  Type.Literal('pending'),
]);

export const ListProductsQuerySchema = Type.Object(
  {
    status: Type.Optional(ProductStatusSchema),
    ...PageFields,
  },
  { additionalProperties: false },
);

/** The same query as published: limit and offset are integers on the wire's terms. */
export const ListProductsQueryDocument = Type.Object(
  {
    status: Type.Optional(ProductStatusSchema),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 9_999_999, default: 0 })),
  },
  { additionalProperties: false },
);

const ReasonPerfumeSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  house: Type.String(),
  concentration: Nullable(Type.String()),
});
const why = <K extends string, P extends Parameters<typeof Type.Object>[0]>(kind: K, props: P, description: string) =>
  Type.Object({ kind: Type.Literal(kind), ...props }, { description });
/** matching/reason.ts MatchWhy: the matcher's decision as data, what `reason` is written from */
export const MatchWhySchema = Type.Union(
  [
    why('not_perfume', { what: Type.String() }, 'a product that carries a perfume’s name but is not one'),
    why(
      'house_unknown',
      { house: Type.String() },
      'the house field names a house the catalog lacks; or it is a placeholder or empty ("": no house given) and the listing names no perfume',
    ),
    why('house_unknown_no_name', { house: Type.String() }, '…and no perfume of the catalog is named like the listing'),
    why(
      'name_alone_unsure',
      { house: Type.String(), closest: ReasonPerfumeSchema },
      '…and the name alone does not say which perfume',
    ),
    why('house_only', {}, 'the listing names a house and no perfume'),
    why('none_in_house', { house: Type.String() }, 'no perfume of this house of the catalog is named like the listing'),
    why(
      'concentration_missing',
      { perfume: ReasonPerfumeSchema, held: Type.Array(Nullable(Type.String())), stated: Type.String() },
      'the line exists in other concentrations than the one stated',
    ),
    why('elixir_only', { perfume: ReasonPerfumeSchema }, 'the line is held as an elixir only; none is stated'),
    why('oil_only', { perfume: ReasonPerfumeSchema }, 'the line is held as an oil only; the listing is a spray'),
    why(
      'too_far',
      { perfume: ReasonPerfumeSchema, listing: Type.String() },
      'the closest perfume is too far from the listing',
    ),
    why(
      'ambiguous',
      { perfume: ReasonPerfumeSchema, rival: ReasonPerfumeSchema },
      'two perfumes of different lines are as close',
    ),
    why(
      'matched',
      {
        perfume: ReasonPerfumeSchema,
        houseInName: Type.Boolean(),
        nameAlone: Type.Boolean(),
        lineOriginal: Type.Boolean(),
        siblingOf: Nullable(Type.String()),
      },
      'matched; how: the house found in the title, no house given, no concentration stated (the line’s original), or a concentration the catalog lacks (its nearest sibling taken)',
    ),
  ],
  { description: 'The reason as data (by `kind`), for a reader in another language' },
);

const ListingExplanationSchema = Type.Object(
  {
    parsed: Type.Object({
      words: Type.Array(Type.String(), { description: 'the words read as naming the perfume' }),
      concentration: Nullable(Type.String({ description: 'a concentration the listing states (edp, edt, parfum…)' })),
      gender: Nullable(Type.Union([Type.Literal('men'), Type.Literal('women')])),
      size: Nullable(Type.Object({ value: Type.Number(), unit: Type.Union([Type.Literal('ml'), Type.Literal('oz')]) })),
      form: Type.Union(
        ['full', 'tester', 'sample', 'mini', 'gift_set', 'refill', 'oil'].map((f) => Type.Literal(f)),
        { description: 'the product form the listing describes' },
      ),
      noise: Type.Array(Type.String(), { description: "the seller's words set aside (New, Sealed, barcodes…)" }),
      not_perfume: Nullable(
        Type.String({ description: 'set when the listing is not a perfume (body mist, deodorant…)' }),
      ),
      kind: Type.Union(
        PRODUCT_KINDS.map((k) => Type.Literal(k)),
        {
          description:
            'what kind of product it is, read from its own words (docs/gulf-shelf.md): a spray, a perfume oil, bakhoor or incense, oud wood, a body or hair mist, a gift set, a decant or sample, or another thing a perfume shop sells',
        },
      ),
      alcohol_free: Nullable(Type.Literal(true, { description: 'true when the listing says it holds no alcohol' })),
      contents: Type.Array(Type.Union(PRODUCT_KINDS.map((k) => Type.Literal(k))), {
        description: "a gift set's kinds, as its listing names them; empty for anything else",
      }),
    }),
    house: Type.Object({
      name: Nullable(Type.String()),
      from: Nullable(
        Type.Union([Type.Literal('house'), Type.Literal('name')], {
          description: 'house: the house field names it; name: found in the title (the field is not a house of ours)',
        }),
      ),
    }),
    matcher: Type.Object({
      perfume_id: Nullable(Type.String()),
      confidence: Type.Number(),
      sibling: Type.Boolean(),
      reason: Type.String(),
      why: MatchWhySchema,
    }),
    candidates: Type.Array(
      Type.Object({
        sillage_perfume_id: Type.String(),
        name: Type.String(),
        concentration: Nullable(Type.String()),
        score: Type.Number(),
      }),
      { description: 'the closest perfumes the matcher examined, best first (at most 3)' },
    ),
  },
  {
    description:
      'How the listing is read now and what the matcher makes of it: its fields, its house, the candidate taken or refused with its confidence, and the closest candidates, so an operator can pin what it missed',
  },
);

export const AdminProductSchema = Type.Object({
  merchant_product_id: Type.String(),
  name: Type.String(),
  house: Type.String(),
  price: Nullable(Type.Number()),
  currency: Type.String(),
  image_url: Nullable(Type.String({ description: "The merchant's image, else the matched perfume's" })),
  product_url: Nullable(Type.String()),
  accords: Nullable(Type.Array(Type.String())),
  notes: Nullable(
    Type.Object({
      top: Type.Optional(Type.Array(Type.String())),
      heart: Type.Optional(Type.Array(Type.String())),
      base: Type.Optional(Type.Array(Type.String())),
    }),
  ),
  description: Nullable(Type.String({ description: "The shop's description of the product, as sent" })),
  available: Type.Boolean({ description: 'false: sold out, never recommended' }),
  sale_price: Nullable(Type.Number({ description: 'The discounted price now, when there is one' })),
  sizes: Nullable(
    Type.Array(
      Type.Object({
        label: Type.String(),
        ml: Nullable(Type.Number()),
        price: Nullable(Type.Number()),
        sale_price: Nullable(Type.Number()),
        available: Type.Boolean(),
        barcode: Type.Optional(Type.String({ description: "This size's own barcode, as its digits" })),
      }),
    ),
  ),
  barcode: Nullable(
    Type.String({ description: "The product's barcode (GTIN), as its digits, when a valid one was sent" }),
  ),
  status: ProductStatusSchema,
  quality: Nullable(QualitySchema),
  explanation: ListingExplanationSchema,
  profile: Nullable(
    Type.Object(
      {
        basis: Type.Array(
          Type.Union([
            Type.Literal('catalog'),
            Type.Literal('shops'),
            Type.Literal('accords'),
            Type.Literal('notes'),
            Type.Literal('description'),
            Type.Literal('name'),
            Type.Literal('answer'),
          ]),
          {
            description:
              "What the profile was built from: a perfume of our catalog (catalog: the matched one's own, or for quality inspired the original's, named in `inspired_by`); the notes shops' descriptions or answers of the perfume agree on (shops: `described_by_shops` says how many); the merchant's own answer (answer: `answer`, set in the console or with setProductAnswer); or the merchant's accords, notes, description and product name, most trusted first",
          },
        ),
        accords: Type.Array(Type.Object({ name: Type.String(), weight: Type.Number({ minimum: 0, maximum: 1 }) })),
        families: Type.Array(Type.String()),
      },
      { description: 'The scent profile the product is recommended by; null when it is not recommended' },
    ),
  ),
  inspired_by: Nullable(
    Type.Object(
      {
        sillage_perfume_id: Type.String(),
        name: Type.String(),
        house: Type.String(),
        said_by: Type.Union([Type.Literal('catalog'), Type.Literal('merchant'), Type.Literal('shops')], {
          description:
            "Who says so: our catalog record, with its evidence; this merchant's own answer; or merchants' answers for the perfume, in force for every shop (docs/learning.md)",
        }),
      },
      { description: 'For quality inspired: the perfume whose profile the product takes; null otherwise' },
    ),
  ),
  answer: Nullable(
    Type.Object(
      {
        notes: Type.Array(Type.String()),
        accords: Type.Array(Type.String()),
        inspired_by: Nullable(Type.String()),
      },
      {
        description:
          "The merchant's own answer for the product (notes and accords by their vocabulary slugs, or the catalog perfume it is sold as the answer to): kept through syncs, it gives the product a profile at once (docs/learning.md); null when none",
      },
    ),
  ),
  kind_override: Nullable(
    Type.Union(
      PRODUCT_KINDS.map((k) => Type.Literal(k)),
      {
        description:
          "The merchant's correction of the product's kind (set in the console or with setProductKind): kept through syncs, it is the kind the product is scored, filtered and shown as (`product_kind`), and it is alcohol-free as that kind is (an oil, bakhoor or oud wood) or as its listing says; null: the kind read from the listing (`explanation.parsed.kind`, which shows what was read either way)",
      },
    ),
  ),
  described_by_shops: Nullable(
    Type.Integer({
      description:
        'For quality shops: how many independent shop descriptions of the perfume its profile rests on (never which shops); null otherwise',
    }),
  ),
  to_recommend: Nullable(
    Type.Array(Type.Union([Type.Literal('description'), Type.Literal('inspired_by'), Type.Literal('match')]), {
      description:
        "For a product with no scent profile (never recommended): what would give it one. description: the shop's description, accords or notes naming its notes; inspired_by: the matched perfume's catalog record naming, with its evidence, the perfume it is inspired by (one with a profile); match: pinning it to the perfume of our catalog it is. null when it has a profile",
    }),
  ),
  sillage_perfume_id: Nullable(Type.String()),
  matched_perfume: Nullable(
    Type.Object({
      name: Type.String(),
      name_ar: Nullable(Type.String()),
      house: Type.String(),
      concentration: Nullable(Type.String()),
      grade: Nullable(
        Type.Union(
          PROFILE_GRADES.map((g) => Type.Literal(g)),
          {
            description:
              'How sure its own scent profile is (confirmed, referenced, unreviewed: docs/catalog.md); null: an identity without a profile',
          },
        ),
      ),
      inspired_by: Nullable(Type.String({ description: 'The id of the perfume it is sold as the answer to' })),
    }),
  ),
  confidence: Nullable(Type.Number()),
  reason: Nullable(Type.String()),
  pinned: Type.Boolean(),
  matched_by: Nullable(
    Type.Union([Type.Literal('name'), Type.Literal('barcode'), Type.Literal('spelling'), Type.Literal('pin')], {
      description:
        'How it was matched: by its name and house; by a barcode our catalog records or the shelves of at least two shops taught (the reason says which: "matched by barcode …, learnt from N shops"); by its spelling, which two shops pinned to the perfume, or one shop and the operator approved ("matched by its spelling, pinned by N shops"); or pinned by hand. null when not matched',
    }),
  ),
  match_change: Nullable(
    Type.Object(
      {
        previous_perfume_id: Nullable(
          Type.String({ description: 'The perfume it was matched to before, when that changed (or was withdrawn)' }),
        ),
        at: IsoDateTime,
      },
      {
        description:
          'What the last rematch changed: after a release loads a new catalog (on start-up) or an import; null when only a sync or a pin set the match',
      },
    ),
  ),
  updated_at: IsoDateTime,
});

export const ProductParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  merchant_product_id: Type.String({ minLength: 1, maxLength: 200 }),
});

export const PinMatchBodySchema = Type.Object(
  { sillage_perfume_id: Type.String({ minLength: 1, maxLength: 120 }) },
  { additionalProperties: false },
);

export const ProductAnswerBodySchema = Type.Object(
  {
    notes: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 120 }), {
        maxItems: 12,
        description: 'Its main notes, any spelling the vocabulary knows, in English or Arabic (stored by slug)',
      }),
    ),
    accords: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 60 }), {
        maxItems: 8,
        description: 'Its main accords, the strongest first (stored by slug)',
      }),
    ),
    inspired_by: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 120,
          description: 'The catalog perfume it is sold as the answer to: one with a profile of its own',
        }),
      ),
    ),
  },
  {
    additionalProperties: false,
    description: 'An answer naming nothing clears the one the product has',
  },
);

/** Validated as any short text, so that an unknown kind is refused with `invalid_kind` (services/products.ts setProductKind). */
export const ProductKindBodySchema = Type.Object(
  { kind: Nullable(Type.String({ minLength: 1, maxLength: 40 })) },
  { additionalProperties: false },
);

/** The body as published: one of the kinds, or null. */
export const ProductKindBodyDocument = Type.Object(
  {
    kind: Nullable(
      Type.Union(
        PRODUCT_KINDS.map((k) => Type.Literal(k)),
        {
          description:
            'The kind the product is (docs/gulf-shelf.md): a spray, a perfume oil, bakhoor or incense, oud wood to burn, a body or hair mist, a gift set, a decant or sample, or another thing a perfume shop sells; null clears the correction (the kind is read from the listing again)',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

export const ProposalsQuerySchema = Type.Object(
  {
    status: Type.Optional(
      Type.Union([Type.Literal('waiting'), Type.Literal('in_force'), Type.Literal('rejected'), Type.Literal('all')], {
        description:
          'waiting (default): with a fact neither in force nor rejected; in_force: with a fact in force for every shop; rejected: with a fact rejected; all',
      }),
    ),
    ...PageFields,
  },
  { additionalProperties: false },
);

export const ProposalSchema = Type.Object({
  sillage_perfume_id: Type.String({ description: 'The perfume the answers are for' }),
  perfume: Type.Object({
    name: Nullable(Type.String({ description: 'null when the perfume has left the catalog' })),
    house: Nullable(Type.String()),
    concentration: Nullable(Type.String()),
  }),
  shops: Type.Integer({ description: 'How many merchants answered (never which)' }),
  facts: Type.Array(
    Type.Object({
      item: Type.String({
        description:
          "note:<slug>, accord:<slug>, inspired:<perfume id> (a merchant's answer), or spelling:<words|concentration> (a listing's spelling a merchant pinned to the perfume): what a review names",
      }),
      kind: Type.Union([
        Type.Literal('note'),
        Type.Literal('accord'),
        Type.Literal('inspired'),
        Type.Literal('spelling'),
      ]),
      value: Type.String(),
      perfume: Type.Optional(
        Type.Object(
          { name: Nullable(Type.String()), house: Nullable(Type.String()) },
          { description: 'For inspired: the original named' },
        ),
      ),
      shops: Type.Integer({ description: 'How many merchants give it' }),
      state: Type.Union([Type.Literal('in_force'), Type.Literal('waiting'), Type.Literal('rejected')], {
        description:
          'in_force: every shop gets it (two merchants give it, or the operator approved it); waiting: for a second merchant or the operator; rejected: by the operator, whatever merchants agree',
      }),
      approved: Type.Boolean(),
    }),
  ),
  why: Nullable(Type.String({ description: "The operator's reason at the last review" })),
  reviewed_at: Nullable(IsoDateTime),
  updated_at: IsoDateTime,
});

export const ProposalParams = Type.Object({ perfume_id: Type.String({ minLength: 1, maxLength: 120 }) });

export const ReviewProposalBodySchema = Type.Object(
  {
    decision: Type.Union([Type.Literal('approve'), Type.Literal('reject')]),
    items: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
        maxItems: 100,
        description: 'The facts reviewed (their `item`); all those proposed now when absent',
      }),
    ),
    why: Type.String({ minLength: 1, maxLength: 500, description: 'Why: kept with the review' }),
  },
  { additionalProperties: false },
);

export const IdentitiesQuerySchema = Type.Object(
  {
    status: Type.Optional(
      Type.Union([Type.Literal('waiting'), Type.Literal('approved'), Type.Literal('rejected'), Type.Literal('all')], {
        description: 'waiting (default): not reviewed yet; approved: made catalog records; rejected; all',
      }),
    ),
    ...PageFields,
  },
  { additionalProperties: false },
);

export const IdentityProposalSchema = Type.Object({
  id: Type.String({ description: 'The proposal, in the review path' }),
  house: Type.String({ description: "The catalog's house the listings name" }),
  name: Type.String({
    description: "The line, from the listings' words less the house's (a suggestion: the review may correct it)",
  }),
  concentration: Nullable(
    Type.String({ description: 'As the listings state it; null when they state none (the review gives it)' }),
  ),
  gender: Nullable(
    Type.String({
      description: 'men or women when every listing counted states it; null otherwise (the review gives it)',
    }),
  ),
  shops: Type.Integer({ description: 'Independent shops (storefront hosts) whose bottles name it' }),
  evidence: Type.Array(
    Type.Object({
      url: Type.String({ description: "The listing's page" }),
      shop: Type.String({ description: "The page's host" }),
      title: Type.String({ description: "The listing's title as the shop wrote it" }),
    }),
    { description: 'The listings, at most 6 (one a shop): what an approved record cites as its evidence' },
  ),
  status: Type.Union([Type.Literal('waiting'), Type.Literal('approved'), Type.Literal('rejected')]),
  sillage_perfume_id: Nullable(Type.String({ description: 'The catalog record an approval made' })),
  why: Nullable(Type.String()),
  reviewed_at: Nullable(Type.String({ format: 'date-time' })),
  updated_at: Type.String({ format: 'date-time' }),
});

export const IdentityParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 40 }) });

export const ReviewIdentityBodySchema = Type.Object(
  {
    decision: Type.Union([Type.Literal('approve'), Type.Literal('reject')]),
    why: Type.String({ minLength: 1, maxLength: 500, description: 'Why: kept with the review' }),
    name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: "The name as the record should read (Latin letters): the proposal's when absent",
      }),
    ),
    name_ar: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Its Arabic name' })),
    concentration: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 40,
        description: 'Required when the listings state none (edp, edt, parfum, …)',
      }),
    ),
    gender: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 20,
        description: 'Required when the listings state none (men, women, unisex)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const RematchSummarySchema = Type.Object({
  merchant_id: Type.String(),
  checked: Type.Integer({ description: 'Products not pinned by hand, matched again' }),
  changed: Type.Integer({ description: 'Products whose match or profile changed' }),
  matched: Type.Integer(),
  partial: Type.Integer(),
  unmatched: Type.Integer(),
  without_profile: WithoutProfileCount,
  catalog_version: Type.Integer(),
});

export const PerfumeIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 120 }) });

export const AdminPerfumeSchema = Type.Object(
  {
    sillage_perfume_id: Type.String(),
    name: Type.String(),
    name_ar: Nullable(Type.String()),
    house: Type.String(),
    house_ar: Nullable(Type.String()),
    concentration: Nullable(Type.String()),
    year: Nullable(Type.Integer()),
    gender: Nullable(Type.String()),
    aliases: Type.Array(Type.String()),
    barcodes: Type.Array(Type.String()),
    grade: Nullable(
      Type.Union(
        PROFILE_GRADES.map((g) => Type.Literal(g)),
        {
          description:
            'How sure its scent profile is; null: an identity without a profile (docs/catalog.md "Evidence")',
        },
      ),
    ),
    inspired_by: Nullable(
      Type.Object(
        {
          sillage_perfume_id: Type.String(),
          name: Nullable(Type.String({ description: 'null when the catalog no longer holds it' })),
          house: Nullable(Type.String()),
          has_profile: Type.Boolean({ description: 'Whether it has a profile of its own to lend' }),
        },
        { description: 'The perfume it is sold as the answer to, where its sources say so' },
      ),
    ),
    families: Type.Array(Type.String()),
    accords: Type.Array(Type.Object({ name: Type.String(), weight: Type.Number({ minimum: 0, maximum: 1 }) })),
    notes: Type.Object({
      top: Type.Array(Type.String()),
      heart: Type.Array(Type.String()),
      base: Type.Array(Type.String()),
    }),
    evidence: Type.Array(
      Type.Object({
        source: Type.String({ description: 'A URL, or github:owner/repo/path@commit' }),
        kind: Type.Union(EVIDENCE_KINDS.map((k) => Type.Literal(k))),
        owner: Type.String({ description: 'Who publishes it (a shop counts once, however many listings)' }),
        gave: Type.String({ description: 'What the source gave, as it gave it' }),
        supports: Type.Array(Type.Union(EVIDENCE_FACTS.map((f) => Type.Literal(f)))),
      }),
      { description: "The record's sources, each with the facts it backs, as the catalog stores them" },
    ),
  },
  { description: 'A perfume of our catalog as an operator checks it: its identity, its grade and its sources' },
);
