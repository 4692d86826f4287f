import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  real,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { merchants } from './merchants.ts';

/**
 * A shop's product feed the service pulls on its own (docs/feeds.md): where it is, how it is read,
 * how often, and what the last pull left (its ETag and Last-Modified, for a conditional request).
 */
export const feedSources = pgTable(
  'feed_sources',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    merchantId: uuid('merchant_id')
      .notNull()
      .references(() => merchants.id, { onDelete: 'cascade' }),
    /** shopify, shopify_admin, woocommerce, google, csv, json (feeds/types.ts) */
    kind: text('kind').notNull(),
    url: text('url').notNull(),
    /** csv and json: the feed's column for each of our fields */
    mapping: jsonb('mapping').$type<Record<string, string>>(),
    /** the shop's currency when the feed does not say it */
    currency: text('currency'),
    /** an access token (Shopify Admin API), encrypted as leads' contact details are */
    secretEncrypted: text('secret_encrypted'),
    intervalMinutes: integer('interval_minutes').notNull().default(60),
    paused: boolean('paused').notNull().default(false),
    /** a pull that would remove more than this share of the source's products is held */
    maxRemovalShare: real('max_removal_share').notNull().default(0.2),
    /** the next pull may remove what a held one would have: set by a confirmation */
    confirmRemoval: boolean('confirm_removal').notNull().default(false),
    etag: text('etag'),
    lastModified: text('last_modified'),
    nextPullAt: timestamp('next_pull_at', { withTimezone: true }).notNull().defaultNow(),
    /** an instance pulling it now holds it until then (a crashed one lets go when it passes) */
    claimedUntil: timestamp('claimed_until', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('feed_sources_merchant_url_uq').on(t.merchantId, t.url),
    index('feed_sources_due_idx').on(t.nextPullAt).where(sql`not ${t.paused}`),
    check(
      'feed_sources_kind_check',
      sql`${t.kind} in ('shopify', 'shopify_admin', 'woocommerce', 'google', 'csv', 'json', 'salla', 'zid', 'shopify_graphql')`,
    ),
  ],
);

/** Every pull of a feed: when, what it did to the shop's products, and why it failed or was held. */
export const feedPulls = pgTable(
  'feed_pulls',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    sourceId: uuid('source_id')
      .notNull()
      .references(() => feedSources.id, { onDelete: 'cascade' }),
    merchantId: uuid('merchant_id').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    /** applied, not_modified (a 304), held (too many removals), failed */
    status: text('status').notNull(),
    pages: integer('pages').notNull().default(0),
    bytes: integer('bytes').notNull().default(0),
    received: integer('received').notNull().default(0),
    added: integer('added').notNull().default(0),
    changed: integer('changed').notNull().default(0),
    removed: integer('removed').notNull().default(0),
    rejected: integer('rejected').notNull().default(0),
    /** the first rejected rows with why */
    rejections: jsonb('rejections').notNull().default([]),
    error: text('error'),
    errorCode: text('error_code'),
  },
  (t) => [index('feed_pulls_source_idx').on(t.sourceId, t.startedAt)],
);
