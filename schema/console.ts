import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  integer,
  json,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { apiKeys, merchants } from './merchants.ts';

/**
 * A person who signs in to the merchant console: an operator (every merchant), or the owner or
 * a staff member of one merchant. The password is stored only as an Argon2id hash.
 */
export const consoleUsers = pgTable(
  'console_users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** lower-cased and trimmed; one account per address */
    email: text('email').notNull(),
    /**
     * whether the address is vouched for: by an operator, or by the platform a store installed from
     * (Salla, Zid, Shopify). An address typed by someone else — a WooCommerce connection, an owner's
     * Team page — is not, and yields to the account of whoever proves it later (services/console-users.ts)
     */
    emailProven: boolean('email_proven').notNull().default(true),
    passwordHash: text('password_hash').notNull(),
    role: text('role', { enum: ['operator', 'owner', 'staff'] }).notNull(),
    /** null for an operator; the one merchant an owner or staff member sees */
    merchantId: uuid('merchant_id').references(() => merchants.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastSignInAt: timestamp('last_sign_in_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('console_users_email_uq').on(t.email),
    check('console_users_role_check', sql`${t.role} in ('operator', 'owner', 'staff')`),
    check('console_users_merchant_check', sql`(${t.role} = 'operator') = (${t.merchantId} is null)`),
  ],
);

/** Console sign-ins (@fastify/session's store): the session's data until it expires. */
export const consoleSessions = pgTable(
  'console_sessions',
  {
    /** the session id's SHA-256 (hex): a leaked table holds no usable cookie */
    idHash: text('id_hash').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => consoleUsers.id, { onDelete: 'cascade' }),
    data: json('data').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('console_sessions_expires_idx').on(t.expiresAt), index('console_sessions_user_idx').on(t.userId)],
);

/**
 * A one-time way into the console (a Salla merchant opening the app from Salla's dashboard, where
 * the console's own cookie cannot be set): a link holding a random ticket that signs its user in
 * once, within a few minutes. Only the ticket's SHA-256 is kept.
 */
export const consoleTickets = pgTable(
  'console_tickets',
  {
    /** the ticket's SHA-256 (hex) */
    hash: text('hash').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => consoleUsers.id, { onDelete: 'cascade' }),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('console_tickets_expires_idx').on(t.expiresAt)],
);

/**
 * Where a widget key was used from: its origin and widget version, when last seen, and whether
 * it was let in. The console's install check reads it; the key store writes it with the keys'
 * last-used times, at most once a minute.
 */
export const keySightings = pgTable(
  'key_sightings',
  {
    keyId: uuid('key_id')
      .notNull()
      .references(() => apiKeys.id, { onDelete: 'cascade' }),
    /** the Origin header (at most 200 characters), or '' when the request carried none */
    origin: text('origin').notNull(),
    /** X-Widget-Version, '1' when absent */
    widgetVersion: text('widget_version').notNull(),
    /** ok, or the refusal's code (origin_not_allowed, revoked_api_key) */
    outcome: text('outcome').notNull(),
    requests: integer('requests').notNull().default(0),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.origin, t.widgetVersion, t.outcome] })],
);
