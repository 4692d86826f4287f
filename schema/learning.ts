import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
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
    /** independent descriptions it rests on (copies once) */
    shops: integer('shops').notNull(),
    /** every merchant whose products were read: what a merchant's next learning or erasure looks at again (never shown) */
    merchantIds: uuid('merchant_ids').array().notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('learnt_profiles_merchants_idx').using('gin', t.merchantIds)],
);
