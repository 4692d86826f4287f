import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import type { AnswerItem } from '../matching/answers.ts';
import type { IdentityEvidence } from '../matching/identities.ts';
import type { AgreedNotes } from '../matching/shop-notes.ts';

export const LEARNT_BARCODE_STATUSES = ['key', 'conflict'] as const;
export type LearntBarcodeStatus = (typeof LEARNT_BARCODE_STATUSES)[number];

/**
 * What the shops' shelves taught about barcodes (services/learning.ts): a barcode that products of
 * at least two merchants carry, matched to one perfume, is a match key for it; one that shops put on
 * different perfumes is a conflict, never used, listed for the operator. Derived from
 * merchant_products alone and recomputed as they change: a merchant's products gone, what they
 * taught goes with them.
 */
export const learntBarcodes = pgTable(
  'learnt_barcodes',
  {
    /** the barcode's GTIN-14 (lib/gtin.ts) */
    barcode: text('barcode').primaryKey(),
    status: text('status', { enum: LEARNT_BARCODE_STATUSES }).notNull(),
    /** the perfume it is a key for; null for a conflict */
    perfumeId: text('perfume_id'),
    /** merchants whose products taught it (a key), or carry it (a conflict) */
    shops: integer('shops').notNull(),
    /** a conflict's perfumes, each with how many merchants matched a product carrying it to that one */
    perfumes: jsonb('perfumes').$type<{ perfume_id: string; shops: number }[]>(),
    /** every merchant whose products were counted: what a merchant's next sync or erasure looks at again (never shown) */
    merchantIds: uuid('merchant_ids').array().notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('learnt_barcodes_merchants_idx').using('gin', t.merchantIds),
    index('learnt_barcodes_status_idx').on(t.status),
    check('learnt_barcodes_status_check', sql`${t.status} in ('key', 'conflict')`),
  ],
);

/**
 * A perfume's notes as shops describe it (services/learning.ts, matching/shop-notes.ts): those the
 * descriptions of at least two merchants' products, matched to it, agree on. Derived from
 * merchant_products alone and recomputed as they change.
 */
export const learntProfiles = pgTable(
  'learnt_profiles',
  {
    perfumeId: text('perfume_id').primaryKey(),
    notes: jsonb('notes').$type<AgreedNotes['notes']>().notNull(),
    /** accords merchants' answers in force give it (matching/answers.ts) */
    accords: text('accords').array().notNull().default(sql`'{}'::text[]`),
    /** the perfume merchants' answers in force say it is sold as the answer to */
    inspiredBy: text('inspired_by'),
    /** independent descriptions or answers it rests on (copies once) */
    shops: integer('shops').notNull(),
    /** every merchant whose products were read: what a merchant's next learning or erasure looks at again (never shown) */
    merchantIds: uuid('merchant_ids').array().notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('learnt_profiles_merchants_idx').using('gin', t.merchantIds)],
);

export const PROPOSAL_REVIEWS = ['approve', 'reject'] as const;

/**
 * What merchants' own answers propose about a perfume (matching/answers.ts): each fact (a note, an
 * accord, an original) with how many merchants give it, derived from merchant_products.answer by
 * learning; and the operator's review of it, kept while answers propose anything. A perfume whose
 * answers are all gone (products removed, a merchant erased) has no row: its review goes with it.
 */
export const proposals = pgTable(
  'proposals',
  {
    perfumeId: text('perfume_id').primaryKey(),
    /** each fact and how many merchants give it */
    votes: jsonb('votes').$type<Record<AnswerItem, number>>().notNull(),
    /** merchants that answered */
    shops: integer('shops').notNull(),
    /** the facts in force for every shop now */
    inForce: text('in_force').array().notNull().default(sql`'{}'::text[]`),
    /** every merchant whose answers were counted (never shown) */
    merchantIds: uuid('merchant_ids').array().notNull(),
    approved: text('approved').array().notNull().default(sql`'{}'::text[]`),
    rejected: text('rejected').array().notNull().default(sql`'{}'::text[]`),
    /** the operator's reason for the last review */
    why: text('why'),
    reviewedAt: timestamp('reviewed_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('proposals_merchants_idx').using('gin', t.merchantIds)],
);

export const IDENTITY_STATUSES = ['waiting', 'approved', 'rejected'] as const;
export type IdentityStatus = (typeof IDENTITY_STATUSES)[number];

/**
 * Perfumes the catalog does not know, proposed by shelves (services/identities.ts): the listings
 * of at least two independent shops that spell the same house and line and match no perfume of
 * ours, kept current by learning while waiting; the operator approves one (it becomes a catalog
 * record, those listings its evidence) or rejects it, with why.
 */
export const identityProposals = pgTable(
  'identity_proposals',
  {
    /** a short id of the spelling, for the admin API's paths */
    id: text('id').primaryKey(),
    /** the spelling key the listings share (matching/listing.ts spellingOf) */
    spelling: text('spelling').notNull().unique(),
    house: text('house').notNull(),
    name: text('name').notNull(),
    concentration: text('concentration'),
    gender: text('gender'),
    shops: integer('shops').notNull(),
    /** every merchant whose listings were counted (never shown) */
    merchantIds: uuid('merchant_ids').array().notNull(),
    evidence: jsonb('evidence').$type<IdentityEvidence[]>().notNull(),
    status: text('status', { enum: IDENTITY_STATUSES }).notNull().default('waiting'),
    /** the catalog record an approval created */
    perfumeId: text('perfume_id'),
    why: text('why'),
    reviewedAt: timestamp('reviewed_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('identity_proposals_merchants_idx').using('gin', t.merchantIds)],
);
