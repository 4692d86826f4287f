import { type Static, Type } from '@sinclair/typebox';
import { PRODUCT_KINDS } from '../matching/kind.ts';
import { slugsOf } from '../vocabulary/index.ts';
import { ApiKeyField, IsoDateTime, MerchantSchema, Nullable, UuidString } from './common.ts';
import { MAX_REFERENCE_PERFUMES } from './limits.ts';

export const KeyModeSchema = Type.Union([Type.Literal('test'), Type.Literal('live')]);

export const VerifyRequestSchema = Type.Object(
  { api_key: Type.Optional(ApiKeyField) },
  { additionalProperties: false },
);

export const CatalogReadinessSchema = Type.Object(
  {
    total: Type.Integer({ description: 'Products synced for the merchant' }),
    matched: Type.Integer({
      description:
        'Matched to a perfume of our catalog (recognised), with a scent profile or not (see without_profile)',
    }),
    partial: Type.Integer({
      description: "Not matched, with a profile from the shop's own words (quality partial, or guessed from the name)",
    }),
    without_profile: Type.Integer({
      description:
        'Of matched (an extension of the interface): recognised, but no scent profile from any evidence yet, so not recommended until one comes (a description with its notes, or the perfume it is inspired by)',
    }),
    unmatched: Type.Integer({ description: 'Neither: never recommended' }),
    pending: Type.Integer({ description: 'Stored but not yet matched' }),
    ready: Type.Boolean({ description: 'At least one product has a scent profile, so it can be recommended' }),
    last_synced_at: Nullable(IsoDateTime),
  },
  {
    $id: 'CatalogReadiness',
    title: 'CatalogReadiness',
    description: "How much of a merchant's synced catalog can be recommended",
  },
);

export const WidgetKeySchema = Type.Object(
  {
    id: Type.String(),
    prefix: Type.String({ description: 'The first characters of the key, to tell keys apart (never the whole key)' }),
    mode: KeyModeSchema,
    allowed_origins: Type.Array(Type.String()),
  },
  { $id: 'WidgetKey', title: 'WidgetKey', description: 'A publishable widget key, as verify describes it' },
);

export const VerifyResponseSchema = Type.Object({
  valid: Type.Literal(true),
  merchant: Type.Ref(MerchantSchema),
  test_mode: Type.Boolean(),
  key: Type.Ref(WidgetKeySchema),
  catalog: Type.Ref(CatalogReadinessSchema),
  leads: Type.Object(
    {
      email_picks: Type.Boolean({
        description:
          'true: a lead with an email is sent its picks by email (the operator configured SMTP); false: the shop contacts the shopper itself (its webhook or export)',
      }),
    },
    { description: 'What the lead form leads to (an extension of the interface: docs/widget-api.md)' },
  ),
});

export type VerifyResponse = Static<typeof VerifyResponseSchema>;
export type CatalogReadiness = Static<typeof CatalogReadinessSchema>;

export const LOOKUP_MAX_LIMIT = 50;
export const LOOKUP_MAX_QUERY = 200;
export const LOOKUP_MAX_IDS = 50;

/**
 * The bytes each widget operation's body may weigh (413 `payload_too_large` past them, before the
 * body is read), fitted to the largest body its schema allows, written as JSON.stringify writes it
 * with every character of every field three bytes long (Arabic takes two; a key and a catalog id
 * are ASCII): verify holds a key (200 characters, 0.6 KB); lookup a key, a query (200), a house
 * (100) and 50 ids of 120 characters (19.7 KB); score keeps 1 MiB for its inline catalog of up to
 * 200 products (tests/security/body-limits.test.ts); event's 64 KB is events/validate.ts's.
 */
export const VERIFY_MAX_BYTES = 4 * 1024;
export const LOOKUP_MAX_BYTES = 32 * 1024;
export const SCORE_MAX_BYTES = 1024 * 1024;

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

export const PerfumeResultSchema = Type.Object(
  {
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
  },
  { $id: 'Perfume', title: 'Perfume', description: "A perfume of the service's catalog" },
);

export const LookupResponseSchema = Type.Object({
  results: Type.Array(Type.Ref(PerfumeResultSchema)),
  not_found: Type.Array(Type.String(), { description: 'Requested ids that are not in the catalog' }),
  catalog_version: Type.Integer(),
});

export type LookupRequest = Static<typeof LookupRequestSchema>;
export type PerfumeResult = Static<typeof PerfumeResultSchema>;

/** the rules of matching/listing.ts that the schema publishes (tests/openapi.test.ts holds them equal) */
export const PUBLISHED_LISTING_RULES = { maxDescriptionLength: 4000, defaultCurrency: 'SAR' } as const;

/** a barcode as a shop sends it: read by its check digit at sync, ignored with a reason when malformed (lib/gtin.ts) */
const BarcodeInput = Type.Union([Type.String({ maxLength: 40 }), Type.Integer({ minimum: 0 })], {
  description:
    "The bottle's barcode (GTIN-8, UPC-A, EAN-13 or GTIN-14; spaces and hyphens are dropped). Checked by its check digit; a malformed one, or a shop's own in-store code (prefix 2), is ignored with a reason (`barcode_issues` of the sync), never refusing the product. A barcode that products of two shops or more carry, matched to one perfume, matches it for every shop (docs/learning.md)",
  examples: ['3348901250146'],
});

const NoteList = Type.Array(Type.String({ maxLength: 80 }), { maxItems: 30 });

/**
 * One product of a merchant, as a feed or an inline catalog sends it. Rows are
 * checked one by one (matching/listing.ts), so that one bad row does not
 * refuse the others: the operations' own schemas take any row, and this named
 * schema is what the document publishes for them. Fields it does not name are
 * ignored.
 */
export const MerchantProductInputSchema = Type.Object(
  {
    merchant_product_id: Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Integer({ minimum: 0 })], {
      description: "The shop's own id of the product (an integer is read as its digits)",
    }),
    name: Type.String({
      minLength: 1,
      maxLength: 300,
      description: 'The listing as the shop writes it, in Arabic or English: "Sauvage EDP 100ml", "عطر خمرة لطافة"',
    }),
    house: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 200,
          description:
            'The brand as the shop writes it. Empty or left out, the house is read from the name, as for a placeholder such as "N/A"',
        }),
      ),
    ),
    price: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1e9 }))),
    currency: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z]{3}$',
        description: `ISO 4217 (${PUBLISHED_LISTING_RULES.defaultCurrency} when omitted)`,
        examples: ['SAR', 'AED', 'USD'],
      }),
    ),
    image_url: Type.Optional(Nullable(Type.String({ format: 'uri', maxLength: 2000 }))),
    product_url: Type.Optional(Nullable(Type.String({ format: 'uri', maxLength: 2000 }))),
    accords: Type.Optional(
      Nullable(Type.Array(Type.String({ maxLength: 80 }), { maxItems: 30, description: 'Accord hints: oud, rose…' })),
    ),
    notes: Type.Optional(
      Nullable(
        Type.Object(
          { top: Type.Optional(NoteList), heart: Type.Optional(NoteList), base: Type.Optional(NoteList) },
          { description: 'The note pyramid, in English or Arabic' },
        ),
      ),
    ),
    description: Type.Optional(
      Nullable(
        Type.String({
          maxLength: PUBLISHED_LISTING_RULES.maxDescriptionLength,
          description: "The shop's description, where notes are read from (English or Arabic)",
        }),
      ),
    ),
    available: Type.Optional(
      Nullable(
        Type.Boolean({
          description:
            'false when the shop cannot sell it now (every size sold out): stored, never recommended. true when omitted',
        }),
      ),
    ),
    sale_price: Type.Optional(
      Nullable(
        Type.Number({
          minimum: 0,
          maximum: 1e9,
          description: 'The discounted price now, when there is one: recommendations show it as `price`',
        }),
      ),
    ),
    barcode: Type.Optional(Nullable(BarcodeInput)),
    sizes: Type.Optional(
      Nullable(
        Type.Array(
          Type.Object({
            label: Type.String({ minLength: 1, maxLength: 80, description: '"100 ml", "3.4 oz"' }),
            ml: Type.Optional(Nullable(Type.Number({ exclusiveMinimum: 0, maximum: 10_000 }))),
            price: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1e9 }))),
            sale_price: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1e9 }))),
            available: Type.Optional(Type.Boolean()),
            barcode: Type.Optional(Nullable(BarcodeInput)),
          }),
          {
            maxItems: 20,
            description: "The sizes the shop sells it in (a feed's variants); `price` is the default size's",
          },
        ),
      ),
    ),
  },
  {
    $id: 'MerchantProductInput',
    title: 'MerchantProductInput',
    description: "A merchant's product as its feed lists it",
  },
);

export const SCORE_MAX_LIMIT = 24;
export const INLINE_MAX_PRODUCTS = 200;

export const QuizSchema = Type.Object(
  {
    families: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 40 }), {
        maxItems: 15,
        description: `Scent families: ${slugsOf('family').join(', ')} (their English or Arabic names and aliases are accepted too: عود, شرقي…)`,
        examples: [
          ['oud', 'amber'],
          ['عود', 'زهري'],
        ],
      }),
    ),
    accord_ratings: Type.Optional(
      Type.Record(Type.String({ maxLength: 40 }), Type.String({ maxLength: 20 }), {
        maxProperties: 90,
        description: `Accord (an accord of the vocabulary, by its slug, English or Arabic name) → rating: ${slugsOf('rating').join(', ')} (or their Arabic words: أعشقه, يعجبني, محايد, لا يعجبني, أتجنبه)`,
        examples: [{ oud: 'love', rose: 'like', citrus: 'avoid' }],
      }),
    ),
    season: Type.Optional(
      Type.String({
        maxLength: 40,
        description: `${slugsOf('season').join(', ')} (or fall, or the Arabic names: الصيف, الشتاء…)`,
        examples: ['summer', 'الشتاء'],
      }),
    ),
    occasion: Type.Optional(
      Type.String({
        maxLength: 40,
        description: `${slugsOf('occasion').join(', ')} (or their Arabic names)`,
        examples: ['evening', 'wedding'],
      }),
    ),
    gender: Type.Optional(
      Type.String({
        maxLength: 40,
        description:
          'For whom (an extension of the interface): men, women or any (no preference; also the Arabic رجالي, نسائي, الكل). With men or women, products made for the other are never shown; unisex products, and those whose wearer is not known, are. Omitted: no preference',
        examples: ['women', 'رجالي', 'any'],
      }),
    ),
    loved_perfumes: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 120 }), {
        maxItems: MAX_REFERENCE_PERFUMES,
        description:
          'Perfumes the shopper loves (an extension of the interface): up to 5 `sillage_perfume_id`s, as lookup returns them; an id not in the catalog is refused with 400 invalid_quiz naming it. Products are scored by their similarity to the closest of them (accords and notes); with at least one, families and accord_ratings may be left out. The loved perfume itself, when the shop sells it, comes first; one other version of it (a concentration or flanker) may follow, labelled as such in `similar_to`',
        examples: [['dior-sauvage-edt'], ['lattafa-khamrah-edp', 'maison-francis-kurkdjian-baccarat-rouge-540-edp']],
      }),
    ),
    disliked_perfumes: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 120 }), {
        maxItems: MAX_REFERENCE_PERFUMES,
        description:
          'Perfumes the shopper dislikes (an extension of the interface): up to 5 `sillage_perfume_id`s. Their distinctive accords (prominent in them, in no loved perfume, not rated by the shopper) count as disliked; the perfumes, their other versions and the products sold as inspired by them are never shown. An id may not be both loved and disliked',
        examples: [['rabanne-1-million-edt']],
      }),
    ),
    for_less_than: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 1_000_000_000,
        description:
          "With loved_perfumes (an extension of the interface): the price, in the shop's currency, that close alternatives in also_explore (reason for_less) must be under. Without it, the shop's own price of a loved perfume it sells is the price to beat",
        examples: [300],
      }),
    ),
    kinds: Type.Optional(
      Type.Array(Type.String({ maxLength: 40 }), {
        maxItems: 7,
        description: `The kinds of product wanted (an extension of the interface): ${slugsOf('product_kind').join(', ')} (or their Arabic names: عطور, دهن, بخور, عود, معطر شعر, طقم, عينة). Products of other kinds are never shown; omitted or empty: any kind. An unknown kind is refused with 400 invalid_quiz`,
        examples: [['oil', 'bakhoor'], ['دهن']],
      }),
    ),
    alcohol_free: Type.Optional(
      Type.Boolean({
        description:
          'Only products without alcohol (an extension of the interface): perfume oils, bakhoor and oud wood, and products whose listing says they are alcohol-free. A spray is shown only when its listing says so',
      }),
    ),
    budget: Type.Optional(
      Type.Object(
        {
          min: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000_000 })),
          max: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000_000 })),
        },
        {
          additionalProperties: false,
          description:
            "A price range in the shop's currency (an extension of the interface), the price the shopper pays (the sale price when there is one): a product outside it, or without a price, is never shown. min above max is refused with 400",
          examples: [{ max: 300 }, { min: 100, max: 500 }],
        },
      ),
    ),
    gift: Type.Optional(
      Type.Boolean({
        description:
          "A gift for someone else (an extension of the interface); `gender` says for him, for her, or either (any). The shop's gift sets gain 5 points of match_score, decants and samples are not shown (unless `kinds` asks for samples), and taste_summary.gift names the recipient so the widget can speak of them",
      }),
    ),
    lasts_in_heat: Type.Optional(
      Type.Boolean({
        description:
          'The shopper wants what lasts in heat (an extension of the interface): a product estimated to last briefly is not shown, one estimated to last long gains 5 points of match_score, and every product carries its `heat` estimate. Estimated from its kind, concentration and the weight of its base accords (docs/gulf-shelf.md), never measured',
      }),
    ),
    layering: Type.Optional(
      Type.Boolean({
        description:
          "The shopper layers (an extension of the interface): the answer's `layering` proposes up to three pairs of a perfume oil, bakhoor or oud wood worn under a spray, both from the shop's stock and both fitting the taste",
      }),
    ),
  },
  { $id: 'Quiz', title: 'Quiz', description: "The shopper's answers", additionalProperties: false },
);

export const ScoreRequestSchema = Type.Object(
  {
    api_key: Type.Optional(ApiKeyField),
    quiz: Type.Ref(QuizSchema),
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

/** The score request as published: inline_catalog rows as MerchantProductInput (each row is checked on its own). */
export const ScoreRequestDocument = Type.Object(
  {
    ...ScoreRequestSchema.properties,
    inline_catalog: Type.Optional(
      Type.Array(Type.Ref(MerchantProductInputSchema), {
        minItems: 1,
        maxItems: INLINE_MAX_PRODUCTS,
        description:
          'The products to score, for catalog_mode inline; a bad row refuses the request with 400 invalid_inline_catalog naming it',
      }),
    ),
  },
  { additionalProperties: false },
);

/** The values of `quality`, most certain first (catalog/types.ts ProfileQuality). */
export const QUALITIES = [
  'full',
  'unreviewed',
  'sibling',
  'shops',
  'described',
  'partial',
  'inspired',
  'guessed',
] as const;

export const QualitySchema = Type.Union(
  QUALITIES.map((q) => Type.Literal(q)),
  {
    description:
      "What the product's scent profile rests on, most certain first. full: the product is a perfume of our catalog, scored by its own profile, confirmed or referenced. unreviewed: the product is a perfume of our catalog, scored by its own profile from the records not yet reviewed house by house. sibling: the listing names a concentration of a line the catalog lacks; the profile is the nearest concentration's, a close version, not the product itself. shops: the product is a perfume of our catalog that has no profile of its own; it is scored by the notes that the descriptions of at least two shops selling it agree on (`described_by_shops` says how many; which shops is never said). described: the product is a perfume of our catalog that has no profile; it is scored by what the shop says of it (its accords, notes, description). partial: not matched; scored by what the shop says of it. inspired: the product is a perfume of our catalog sold as the answer to another (`inspired_by`), and is scored by that one's profile: the notes are the original's, not its own. guessed: scored by the note and family words of the product's name alone. Only full and unreviewed profiles are the product's own notes; a product with no profile is never recommended.",
  },
);

export const NamedPerfumeSchema = Type.Object(
  { sillage_perfume_id: Type.String(), name: Type.String(), house: Type.String() },
  { $id: 'NamedPerfume', title: 'NamedPerfume', description: 'A perfume of our catalog, by id and name' },
);

export const SimilarToSchema = Type.Object(
  {
    sillage_perfume_id: Type.String({ description: 'The loved perfume' }),
    name: Type.String(),
    house: Type.String(),
    relation: Type.Union([Type.Literal('same'), Type.Literal('version'), Type.Literal('similar')], {
      description:
        'same: this product is the loved perfume; version: another concentration or a flanker of it (near, never the same perfume); similar: a different perfume that shares its character',
    }),
    similarity: Type.Integer({
      minimum: 0,
      maximum: 100,
      description: "How close the product's accords and notes are to the loved perfume's (100: the same profile)",
    }),
    shared_accords: Type.Array(Type.String(), {
      description: 'The accords both carry, strongest in both first (up to three)',
    }),
  },
  {
    $id: 'SimilarTo',
    title: 'SimilarTo',
    description:
      'With loved_perfumes: the loved perfume this product is closest to, and what they share. Present when the product is that perfume, a version of it, or similar to it (similarity 60 or more; never for bakhoor, oud wood or a mist, which are not perfumes like another); absent otherwise',
  },
);

export const HeatSchema = Type.Object(
  {
    lasting: Type.Union([Type.Literal('long'), Type.Literal('moderate'), Type.Literal('short')]),
    projection: Type.Union([Type.Literal('strong'), Type.Literal('moderate'), Type.Literal('soft')], {
      description: 'How far it carries in a warm room: an oil sits close to the skin, bakhoor fills a room',
    }),
    estimated: Type.Literal(true, { description: 'Always true: an estimate from what the product is, never measured' }),
    reasons: Type.Array(
      Type.Union(
        [
          'oil_on_skin',
          'smoke_on_clothes',
          'concentration_high',
          'concentration_edp',
          'concentration_light',
          'concentration_unknown',
          'mist_light',
          'heavy_base',
          'volatile_profile',
        ].map((r) => Type.Literal(r)),
      ),
      {
        description:
          "Why, the kind's reason first: oil_on_skin (a perfume oil, worn undiluted), smoke_on_clothes (bakhoor or oud wood: clothes and hair hold the smoke), concentration_high (extrait, parfum, elixir), concentration_edp, concentration_light (eau de toilette or cologne), concentration_unknown (a spray whose concentration is not stated: counted as an eau de toilette), mist_light (a body or hair mist); then heavy_base (half its accords or more are slow materials: oud, amber, resins, musk, woods…) or volatile_profile (half or more are bright ones: citrus, aquatic, green, herbs)",
      },
    ),
  },
  {
    $id: 'Heat',
    title: 'Heat',
    description:
      'With quiz.lasts_in_heat: how the product is estimated to last and project in heat (docs/gulf-shelf.md "Heat and longevity")',
  },
);

export const RecommendationSchema = Type.Object(
  {
    merchant_product_id: Type.String(),
    sillage_perfume_id: Nullable(
      Type.String({
        description:
          'The perfume of our catalog the product is matched to (for quality sibling, the close version it is scored as; for quality inspired, the product itself, not the original); null when not matched (quality partial, or guessed for an unmatched product)',
      }),
    ),
    name: Type.String({
      description:
        "The product's name as the merchant lists it; for a product matched to a perfume of our catalog (not a sibling), whose listing is written in the other language than `locale`, our perfume's name in the shopper's language where the catalog has it",
    }),
    house: Type.String({ description: 'The house, named as `name` is' }),
    match_score: Type.Integer({ minimum: 0, maximum: 100 }),
    fit: Type.Union([Type.Literal('strong'), Type.Literal('good'), Type.Literal('weak')], {
      description:
        'The band match_score falls in, for the badge and wording: strong from 75, good from 60 (the lowest score of a recommendation), weak below (only in also_explore)',
    }),
    match_accords: Type.Array(Type.String()),
    quality: QualitySchema,
    gender: Nullable(
      Type.Union([Type.Literal('men'), Type.Literal('women'), Type.Literal('unisex')], {
        description:
          'For whom the product is made: our catalog\'s perfume\'s, else what the listing says ("for men", "نسائي"); null when not known',
      }),
    ),
    product_kind: Type.Union(
      PRODUCT_KINDS.map((k) => Type.Literal(k)),
      {
        description:
          'What kind of product it is, read from its listing (docs/gulf-shelf.md): spray, oil (perfume oil), bakhoor, oud_wood, mist (body or hair), gift_set, sample (a decant or sample), other',
      },
    ),
    alcohol_free: Type.Boolean({
      description:
        'The product holds no alcohol: an oil, bakhoor or oud wood by what it is, or a product whose listing says so',
    }),
    price: Nullable(Type.Number()),
    currency: Type.String(),
    product_url: Nullable(Type.String()),
    image_url: Nullable(
      Type.String({
        description:
          "The merchant's picture, else our perfume's, else a picture of the product's scent drawn by the service (`/widget/v1/scent.svg`: its accords' colours, its house and name); null only when the service has no public URL to give",
      }),
    ),
    similar_to: Type.Optional(Type.Ref(SimilarToSchema)),
    described_by_shops: Type.Optional(
      Type.Integer({
        minimum: 2,
        description:
          'With quality shops: how many independent shop descriptions its notes rest on ("as 3 shops describe it"); copies of one text count once',
      }),
    ),
    inspired_by: Type.Optional(
      Type.Object(
        {
          sillage_perfume_id: Type.String(),
          name: Type.String({ description: "The original's name in the shopper's language where the catalog has it" }),
          house: Type.String({ description: 'Its house, named as `name` is' }),
        },
        {
          description:
            'With quality inspired (an extension of the interface): the perfume this product is sold as the answer to, whose profile it is scored by ("inspired by Aventus")',
        },
      ),
    ),
    heat: Type.Optional(Type.Ref(HeatSchema)),
  },
  { $id: 'Recommendation', title: 'Recommendation', description: "A merchant's product, scored for the shopper" },
);

export const AlsoExploreSchema = Type.Object(
  {
    ...RecommendationSchema.properties,
    reason: Type.Union(
      [Type.Literal('for_less'), Type.Literal('other_family'), Type.Literal('weaker_fit'), Type.Literal('closest')],
      {
        description:
          "Why it is shown: for_less, a close alternative (similarity 60 or more, see similar_to) to a loved perfume, priced under it (the shop's price of it, or the quiz's for_less_than), never the perfume or a version of it, never bakhoor, oud wood or a mist; other_family, a fit (60 or more) from a family the shopper did not choose; weaker_fit, below 60 when fewer than `limit` products fit; closest, the shop's closest products when none fits (never a product in which an avoided accord is prominent, never below 50)",
      },
    ),
  },
  {
    $id: 'AlsoExplore',
    title: 'AlsoExplore',
    description: 'A product beside the recommendations, with why it is shown',
  },
);

export const LayeringPairSchema = Type.Object(
  {
    base: Type.Ref(RecommendationSchema, { description: 'A perfume oil, bakhoor or oud wood: worn first' }),
    top: Type.Ref(RecommendationSchema, { description: 'A spray: worn over it' }),
    match_score: Type.Integer({ minimum: 0, maximum: 100, description: 'The mean of the two match scores' }),
    shared_accords: Type.Array(Type.String(), {
      description: "The accords both carry that the shopper's taste leads with, strongest in both first (up to three)",
    }),
    steps: Type.Array(
      Type.Object({
        merchant_product_id: Type.String(),
        how: Type.Union([Type.Literal('oil_on_skin'), Type.Literal('smoke_clothes'), Type.Literal('spray_over')], {
          description:
            'oil_on_skin: dab the oil on the skin (wrists, neck) first; smoke_clothes: perfume clothes and hair with the bakhoor or wood smoke first; spray_over: then spray the perfume over it',
        }),
      }),
      { minItems: 2, maxItems: 2, description: 'The order of use: the base, then the spray' },
    ),
  },
  {
    $id: 'LayeringPair',
    title: 'LayeringPair',
    description:
      'A pair to wear together: both fit the taste (match_score 60 or more, nothing the quiz rules out), both in stock, and they share an accord the taste leads with (docs/gulf-shelf.md "Layering")',
  },
);

export const AlternativeSchema = Type.Object(
  {
    ...RecommendationSchema.properties,
    declared_inspired_by: Type.Boolean({
      description: 'true: sold as inspired by the loved perfume (listed first); false: chosen for its similarity',
    }),
    price_difference: Nullable(
      Type.Number({
        description:
          "Its price minus the shop's own lowest price of the loved perfume in the same currency (negative: cheaper); null when the shop does not sell that perfume in that currency, or either has no price",
      }),
    ),
  },
  { $id: 'Alternative', title: 'Alternative', description: 'A bottle of the shop offered instead of a loved perfume' },
);

export const AlternativesSchema = Type.Object(
  {
    to: Type.Ref(NamedPerfumeSchema),
    shop_price: Nullable(
      Type.Number({
        description:
          "The shop's own price of the loved perfume (its lowest), when it sells it: in the shop's main currency when it lists it so",
      }),
    ),
    shop_currency: Nullable(Type.String({ description: 'The currency of shop_price' })),
    products: Type.Array(Type.Ref(AlternativeSchema), {
      maxItems: 3,
      description:
        'Up to three: those declared as inspired by it first, then the most similar (similarity 60 or more). Never the perfume itself nor a version of it, never bakhoor, oud wood or a mist (burnt or sprayed on hair and body, they are no answer to a perfume), never a product the quiz rules out (budget, kinds, alcohol, wearer, avoided accords), never one scored below 50 (one the shopper would dislike); a weak fit says so in `fit`',
    }),
  },
  {
    $id: 'Alternatives',
    title: 'Alternatives',
    description: "The shop's bottles closest to one loved perfume",
  },
);

export const ScoreResponseSchema = Type.Object({
  session_id: Type.String(),
  merchant: Type.Ref(MerchantSchema),
  recommendations: Type.Array(Type.Ref(RecommendationSchema), {
    description:
      'Only products that fit: match_score 60 or more and no avoided accord prominent in them (among their three strongest, or weighing half the strongest); those carrying a loved accord first. At most `limit`, and fewer — even none — when fewer fit: never filled with products that do not',
  }),
  also_explore: Type.Array(Type.Ref(AlsoExploreSchema)),
  taste_summary: Type.Object({
    dominant_families: Type.Array(Type.String(), { description: 'The families the shopper chose' }),
    top_accords: Type.Array(Type.String(), { description: 'The accords the shopper loved, then liked (up to five)' }),
    avoid_accords: Type.Array(Type.String(), { description: 'The accords the shopper avoided, then disliked' }),
    loved_perfumes: Type.Optional(
      Type.Array(Type.Ref(NamedPerfumeSchema), { description: 'The perfumes the shopper said they love, when any' }),
    ),
    disliked_perfumes: Type.Optional(
      Type.Array(Type.Ref(NamedPerfumeSchema), { description: 'The perfumes the shopper said they dislike, when any' }),
    ),
    gift: Type.Optional(
      Type.Object(
        { recipient: Type.Union([Type.Literal('him'), Type.Literal('her'), Type.Literal('anyone')]) },
        { description: 'With quiz.gift: for whom the gift is (from quiz.gender), for the widget to speak of them' },
      ),
    ),
    inferred: Type.Optional(
      Type.Object(
        {
          families: Type.Array(Type.String()),
          accords: Type.Array(Type.String()),
        },
        {
          description:
            "What the answers only imply, not said: the loved perfumes' families and those the taste leans to, beyond those chosen; the accords the loved perfumes, chosen families, season and occasion lean to. Present only when it holds something",
        },
      ),
    ),
  }),
  layering: Type.Optional(
    Type.Array(Type.Ref(LayeringPairSchema), {
      maxItems: 3,
      description:
        "With quiz.layering: up to three pairs from the shop's stock, the best first, each product in one pair; empty when the shop has no pair that fits",
    }),
  ),
  alternatives: Type.Optional(
    Type.Array(Type.Ref(AlternativesSchema), {
      description: "With loved_perfumes: for each, in the quiz's order, the shop's bottles closest to it",
    }),
  ),
  powered_by: Type.Object({ label: Type.String(), url: Type.String(), logo_svg: Type.String() }),
  test_mode: Type.Boolean(),
});

export type ScoreRequest = Static<typeof ScoreRequestSchema>;
export type ScoreResponse = Static<typeof ScoreResponseSchema>;
export type Recommendation = Static<typeof RecommendationSchema>;
export type AlsoExplore = Static<typeof AlsoExploreSchema>;
export type LayeringPairView = Static<typeof LayeringPairSchema>;
export type Alternatives = Static<typeof AlternativesSchema>[];

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

/** The schemas the document names (components.schemas): registered once with the app, referenced by $id. */
export const SHARED_SCHEMAS = [
  MerchantSchema,
  WidgetKeySchema,
  MerchantProductInputSchema,
  CatalogReadinessSchema,
  PerfumeResultSchema,
  QuizSchema,
  NamedPerfumeSchema,
  SimilarToSchema,
  HeatSchema,
  RecommendationSchema,
  AlsoExploreSchema,
  LayeringPairSchema,
  AlternativeSchema,
  AlternativesSchema,
] as const;
