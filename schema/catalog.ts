import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  real,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import type { Evidence } from '../catalog/schema.ts';
import type { AccordWeight, NotePyramid, ProductProfile } from '../catalog/types.ts';
import type { ProductAnswer } from '../matching/answers.ts';
import type { ProductKind } from '../matching/kind.ts';
import type { ProductSize } from '../matching/listing.ts';
import type { ShopNotes } from '../matching/shop-notes.ts';
import { merchants } from './merchants.ts';

export type { AccordWeight, NotePyramid, ProductProfile };

/** Perfume houses: their names in both scripts, aliases and the abbreviations shops use. */
export const houses = pgTable('houses', {
  name: text('name').primaryKey(),
  nameAr: text('name_ar'),
  aliases: text('aliases').array().notNull().default(sql`'{}'::text[]`),
  abbreviations: text('abbreviations').array().notNull().default(sql`'{}'::text[]`),
  region: text('region'),
  country: text('country'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * One row: the catalog's version, bumped by every change to perfumes or
 * houses, so each instance knows when to rebuild its in-memory index; and the
 * hash of the catalog shipped with the code, so a new release loads its data once.
 */
export const catalogState = pgTable('catalog_state', {
  id: integer('id').primaryKey(),
  version: bigint('version', { mode: 'number' }).notNull().default(0),
  bundledHash: text('bundled_hash'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Our own perfume catalog: the reference every merchant product is matched to. */
export const perfumes = pgTable(
  'perfumes',
  {
    /** stable, human-readable id, e.g. dior-sauvage-edt */
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    nameAr: text('name_ar'),
    house: text('house').notNull(),
    houseAr: text('house_ar'),
    concentration: text('concentration'),
    year: integer('year'),
    gender: text('gender'),
    families: text('families').array().notNull().default(sql`'{}'::text[]`),
    accords: jsonb('accords').$type<AccordWeight[]>().notNull().default([]),
    notes: jsonb('notes').$type<NotePyramid>().notNull().default({}),
    seasons: text('seasons').array().notNull().default(sql`'{}'::text[]`),
    /** day, night or both */
    times: text('times').array().notNull().default(sql`'{}'::text[]`),
    /** further descriptors that later versions add without a migration */
    profile: jsonb('profile').$type<Record<string, unknown>>().notNull().default({}),
    occasions: text('occasions').array().notNull().default(sql`'{}'::text[]`),
    aliases: text('aliases').array().notNull().default(sql`'{}'::text[]`),
    imageUrl: text('image_url'),
    /** how sure the scent profile is (confirmed, referenced, unreviewed); null: an identity without a profile */
    grade: text('grade'),
    /** the perfume this one is sold as the answer to, with its evidence */
    inspiredBy: text('inspired_by'),
    barcodes: text('barcodes').array().notNull().default(sql`'{}'::text[]`),
    /** the sources of the record's facts (catalog/schema.ts EvidenceSchema); read by the admin view, never by scoring */
    evidence: jsonb('evidence').$type<Evidence[]>().notNull().default([]),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('perfumes_house_idx').on(t.house)],
);

export const MATCH_STATUSES = ['pending', 'matched', 'partial', 'unmatched'] as const;
export type MatchStatus = (typeof MATCH_STATUSES)[number];

/** A merchant's product feed, as synced; the match columns are filled by the matcher. */
export const merchantProducts = pgTable(
  'merchant_products',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    merchantId: uuid('merchant_id')
      .notNull()
      .references(() => merchants.id, { onDelete: 'cascade' }),
    merchantProductId: text('merchant_product_id').notNull(),
    name: text('name').notNull(),
    house: text('house').notNull(),
    price: numeric('price', { precision: 14, scale: 2, mode: 'number' }),
    currency: text('currency').notNull().default('SAR'),
    imageUrl: text('image_url'),
    productUrl: text('product_url'),
    accords: text('accords').array(),
    notes: jsonb('notes').$type<NotePyramid>(),
    /** the shop's description of the product (notes are read from it) */
    description: text('description'),
    /** false when every size is sold out (a feed says so): stored, never recommended */
    available: boolean('available').notNull().default(true),
    /** the discounted price now, when there is one */
    salePrice: numeric('sale_price', { precision: 14, scale: 2, mode: 'number' }),
    /** the sizes a feed lists: [{label, ml, price, sale_price, available}] */
    sizes: jsonb('sizes').$type<ProductSize[]>(),
    /** the bottle's barcode as the shop sent it (valid digits only; lib/gtin.ts) */
    barcode: text('barcode'),
    /** the GTIN-14 keys of its barcode and its sizes' barcodes: what learning reads (services/learning.ts) */
    barcodeKeys: text('barcode_keys').array().notNull().default(sql`'{}'::text[]`),
    /** the learnt barcode it was matched by; null when matched by its name, or pinned */
    matchKey: text('match_key'),
    /** the notes its description and note hints give, by canonical name (matching/shop-notes.ts): what it teaches */
    shopNotes: jsonb('shop_notes').$type<ShopNotes>(),
    /** its description's print (a MinHash): copies of one text count once */
    textPrint: integer('text_print').array(),
    /** what shop_notes were read from (a hash of the description and notes): read again only when that changes */
    shopNotesOf: text('shop_notes_of'),
    /** with a profile as shops describe it (quality shops): how many independent descriptions it rests on */
    profileShops: integer('profile_shops'),
    /** with quality inspired as merchants' answers in force say (matching/answers.ts): the original's id */
    learntInspired: text('learnt_inspired'),
    /** the merchant's own answer for it (notes, accords, or the perfume it is inspired by): kept through syncs */
    answer: jsonb('answer').$type<ProductAnswer>(),
    /** the merchant's correction of the product's kind (matching/kind.ts PRODUCT_KINDS): kept through syncs; null: read from the listing */
    kindOverride: text('kind_override').$type<ProductKind>(),
    /** the feed source that brought it (a pull removes only its own source's products); null when pushed */
    feedSourceId: uuid('feed_source_id'),
    matchStatus: text('match_status', { enum: MATCH_STATUSES }).notNull().default('pending'),
    sillagePerfumeId: text('sillage_perfume_id').references(() => perfumes.id, { onDelete: 'set null' }),
    matchConfidence: real('match_confidence'),
    matchReason: text('match_reason'),
    matchPinned: boolean('match_pinned').notNull().default(false),
    /** matched to the nearest concentration of the line because the catalog lacks the one listed */
    matchSibling: boolean('match_sibling').notNull().default(false),
    /** null when the product cannot be recommended (unmatched, no hints) */
    profile: jsonb('profile').$type<ProductProfile>(),
    /** the perfume this product was matched to before its match last changed (a rematch, a withdrawn record) */
    previousPerfumeId: text('previous_perfume_id'),
    /** when a rematch or a withdrawn record last changed the match; null when only a sync or a pin set it */
    matchChangedAt: timestamp('match_changed_at', { withTimezone: true }),
    /** the sync that last carried this product: a replacing sync removes the others */
    syncId: uuid('sync_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('merchant_products_merchant_product_uq').on(t.merchantId, t.merchantProductId),
    index('merchant_products_status_idx').on(t.merchantId, t.matchStatus),
    index('merchant_products_barcode_keys_idx').using('gin', t.barcodeKeys),
    index('merchant_products_perfume_idx').on(t.sillagePerfumeId),
    check('merchant_products_status_check', sql`${t.matchStatus} in ('pending', 'matched', 'partial', 'unmatched')`),
  ],
);
