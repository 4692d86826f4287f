import { sql } from 'drizzle-orm';
import {
  bigserial,
  boolean,
  index,
  integer,
  json,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { apiKeys, merchants } from './merchants.ts';

/**
 * One scored answer's content, stored once however many sessions got it: the
 * normalised quiz (with its catalog_mode) and the products shown. Its id is the
 * content's hash (answerId in services/sessions.ts; migration 0006 computes
 * the same in SQL), so every instance stores the same answer under the same id.
 */
export const widgetAnswers = pgTable(
  'widget_answers',
  {
    id: uuid('id').primaryKey(),
    merchantId: uuid('merchant_id')
      .notNull()
      .references(() => merchants.id, { onDelete: 'cascade' }),
    // json, not jsonb: written once per answer, read only in bulk by analytics (docs/decisions.md)
    quiz: json('quiz').notNull(),
    /** products shown, in order: [{merchant_product_id, position, match_score, list}] */
    shown: json('shown').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  // a merchant's erasure deletes its answers a batch at a time (services/erasure.ts)
  (t) => [index('widget_answers_merchant_idx').on(t.merchantId)],
);

/**
 * One scored quiz session: who asked (merchant, key, mode, locale) and which
 * answer it got. Written in batches, one row per score request, so its row is
 * kept narrow and carries no per-row foreign-key checks: the session writer
 * locks the batch's merchants and keys once per batch and stores only rows
 * whose merchant still exists, and triggers (migration 0006) delete a deleted
 * merchant's sessions and clear a deleted key's id, as the foreign keys did.
 */
export const widgetSessions = pgTable(
  'widget_sessions',
  {
    /** the client's (or the server's) id, within its merchant and kind of key */
    id: uuid('id').notNull(),
    merchantId: uuid('merchant_id').notNull(),
    keyId: uuid('key_id'),
    test: boolean('test').notNull(),
    locale: text('locale').notNull(),
    /** widget_answers.id: the quiz and the products shown */
    answerId: uuid('answer_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // a session id is the client's within its merchant and kind of key (test or live): two shops'
    // widgets, or a shop's test and live keys, never claim or overwrite each other's sessions.
    // The id leads, so server-made (time-ordered) ids still add at the index's end.
    primaryKey({ columns: [t.id, t.merchantId, t.test] }),
    index('widget_sessions_merchant_created_idx').on(t.merchantId, t.createdAt),
  ],
);

export const events = pgTable(
  'events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    merchantId: uuid('merchant_id')
      .notNull()
      .references(() => merchants.id, { onDelete: 'cascade' }),
    keyId: uuid('key_id').references(() => apiKeys.id, { onDelete: 'set null' }),
    sessionId: uuid('session_id'),
    test: boolean('test').notNull(),
    type: text('type').notNull(),
    /** client-chosen id; a resent event with the same id is stored once */
    eventId: text('event_id'),
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
    data: jsonb('data').notNull().default({}),
  },
  (t) => [
    // per kind of key: a test key's event ids never shadow a live key's
    uniqueIndex('events_merchant_test_event_id_uq')
      .on(t.merchantId, t.test, t.eventId)
      .where(sql`${t.eventId} is not null`),
    index('events_merchant_occurred_idx').on(t.merchantId, t.test, t.occurredAt),
    // the console's day-by-day series and the top clicked products read a few types over a period
    index('events_merchant_type_occurred_idx').on(t.merchantId, t.test, t.type, t.occurredAt),
    index('events_session_idx').on(t.sessionId),
    // the retention purge finds old events by when they arrived
    index('events_received_idx').on(t.receivedAt),
    // attribution looks up a session's clicks on a product
    index('events_clicks_idx')
      .on(t.merchantId, t.sessionId, sql`(${t.data}->>'merchant_product_id')`, t.occurredAt)
      .where(sql`${t.type} in ('recommendation_clicked', 'also_explore_clicked')`),
  ],
);

/** Shopper contact details, given with consent; email and phone are encrypted at rest. */
export const leads = pgTable(
  'leads',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    merchantId: uuid('merchant_id')
      .notNull()
      .references(() => merchants.id, { onDelete: 'cascade' }),
    sessionId: uuid('session_id'),
    test: boolean('test').notNull(),
    emailEncrypted: text('email_encrypted'),
    phoneEncrypted: text('phone_encrypted'),
    /** keyed hash of the normalised email, so erasure by email needs no decryption */
    emailLookup: text('email_lookup'),
    /** keyed hash of the phone's digits, so erasure by phone needs no decryption */
    phoneLookup: text('phone_lookup'),
    consentAt: timestamp('consent_at', { withTimezone: true }).notNull(),
    consentVersion: text('consent_version').notNull(),
    /** the recommendations the shopper was shown in the lead's session: [{merchant_product_id, name}] */
    picks: jsonb('picks').notNull().default([]),
    /** the widget's language in that session (ar, en) */
    locale: text('locale'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('leads_merchant_created_idx').on(t.merchantId, t.createdAt),
    index('leads_email_lookup_idx').on(t.merchantId, t.emailLookup),
    index('leads_phone_lookup_idx').on(t.merchantId, t.phoneLookup),
  ],
);

export const purchases = pgTable(
  'purchases',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    merchantId: uuid('merchant_id')
      .notNull()
      .references(() => merchants.id, { onDelete: 'cascade' }),
    sessionId: uuid('session_id'),
    test: boolean('test').notNull(),
    orderId: text('order_id').notNull(),
    eventId: text('event_id'),
    total: numeric('total', { precision: 14, scale: 2, mode: 'number' }).notNull(),
    currency: text('currency').notNull(),
    items: jsonb('items').notNull().default([]),
    /** a recommendation clicked in its session is in the order (docs/analytics.md) */
    attributed: boolean('attributed').notNull().default(false),
    /** the value of the order's items that were clicked recommendations */
    attributedRevenue: numeric('attributed_revenue', { precision: 14, scale: 2, mode: 'number' }).notNull().default(0),
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('purchases_merchant_order_uq').on(t.merchantId, t.test, t.orderId),
    index('purchases_merchant_occurred_idx').on(t.merchantId, t.test, t.occurredAt),
    index('purchases_session_idx').on(t.merchantId, t.sessionId),
  ],
);

/**
 * What each new lead sends: its `lead.created` post to the merchant's webhook
 * and, when the operator configured SMTP, the `picks.email` to the shopper.
 * The body (encrypted: it holds the shopper's contact details) and how its
 * delivery went. Sent and retried by plugins/app/deliveries.ts; listed by the
 * admin API.
 */
export const leadDeliveries = pgTable(
  'lead_deliveries',
  {
    id: uuid('id').primaryKey(),
    merchantId: uuid('merchant_id')
      .notNull()
      .references(() => merchants.id, { onDelete: 'cascade' }),
    /** lead.created (the webhook) or picks.email (the shopper's email) */
    event: text('event').notNull(),
    test: boolean('test').notNull(),
    /** pending (to be sent at next_attempt_at), delivered, failed (attempts spent), dropped (queue full) */
    status: text('status').notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    bodyEncrypted: text('body_encrypted').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
  },
  (t) => [
    index('lead_deliveries_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index('lead_deliveries_merchant_idx').on(t.merchantId, t.createdAt),
  ],
);
