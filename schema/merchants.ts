import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

export const merchants = pgTable('merchants', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  slug: text('slug').notNull().unique(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  /** when the product feed was last synced */
  catalogSyncedAt: timestamp('catalog_synced_at', { withTimezone: true }),
  /** bumped by every change to the merchant's products (sync, manual match): caches key on it */
  catalogVersion: bigint('catalog_version', { mode: 'number' }).notNull().default(0),
  /** the country a lead's phone without a country code is read in (ISO 3166 alpha-2; lib/phone.ts) */
  phoneCountry: text('phone_country').notNull().default('SA'),
  /** where each new lead is posted as `lead.created` (services/webhooks.ts); null: none */
  webhookUrl: text('webhook_url'),
  /** the webhook's signing secret, encrypted as the leads' contact details are */
  webhookSecretEncrypted: text('webhook_secret_encrypted'),
  /** whether what its shelf shows (a barcode's perfume) is learnt for every shop (docs/learning.md) */
  teaches: boolean('teaches').notNull().default(true),
  /** whether what other shelves taught is used for its products */
  learns: boolean('learns').notNull().default(true),
  /** the catalog_version its shelf was last learnt from: learning runs again when they differ (services/learning.ts) */
  learntVersion: bigint('learnt_version', { mode: 'number' }),
  /**
   * when an operator erased it (services/erasure.ts): from then on every read takes it as gone, and
   * background work deletes its rows, then this one
   */
  erasedAt: timestamp('erased_at', { withTimezone: true }),
});

export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    merchantId: uuid('merchant_id')
      .notNull()
      .references(() => merchants.id, { onDelete: 'cascade' }),
    mode: text('mode', { enum: ['test', 'live'] }).notNull(),
    /** first characters of the key, shown to operators to tell keys apart */
    prefix: text('prefix').notNull(),
    /** SHA-256 of the whole key, hex; the plaintext is never stored */
    keyHash: text('key_hash').notNull().unique(),
    allowedOrigins: text('allowed_origins').array().notNull().default(sql`'{}'::text[]`),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  },
  (t) => [
    index('api_keys_merchant_idx').on(t.merchantId),
    check('api_keys_mode_check', sql`${t.mode} in ('test', 'live')`),
  ],
);
