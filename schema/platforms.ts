import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { feedSources } from './feeds.ts';
import { merchants } from './merchants.ts';

/**
 * A shop on a platform (Salla, Zid…) that installed the app, and the merchant it is here
 * (docs/platforms.md). One row per platform store for ever: an uninstalled store that installs
 * again finds the same merchant.
 */
export const platformInstalls = pgTable(
  'platform_installs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** salla or zid (shopify and woocommerce to come) */
    platform: text('platform').notNull(),
    /** the platform's id of the store (Salla's `merchant`) */
    storeId: text('store_id').notNull(),
    merchantId: uuid('merchant_id')
      .notNull()
      .references(() => merchants.id, { onDelete: 'cascade' }),
    /** installed or uninstalled */
    status: text('status').notNull().default('installed'),
    /** the store's tokens for the platform's API, encrypted as leads' contact details are; null when uninstalled */
    accessTokenEncrypted: text('access_token_encrypted'),
    refreshTokenEncrypted: text('refresh_token_encrypted'),
    /** a second token the platform asks for on every call (Zid's `authorization`), encrypted; null when it has none */
    authTokenEncrypted: text('auth_token_encrypted'),
    tokenExpiresAt: timestamp('token_expires_at', { withTimezone: true }),
    scope: text('scope'),
    /** the live publishable key the storefront script loads the widget with (public by design) */
    publishableKey: text('publishable_key'),
    /** the feed source that imports the store's products */
    feedSourceId: uuid('feed_source_id').references(() => feedSources.id, { onDelete: 'set null' }),
    /**
     * the secret the store's webhook subscriptions carry in their URL (Zid signs no webhook),
     * encrypted; a new one at each install
     */
    webhookSecretEncrypted: text('webhook_secret_encrypted'),
    /** when the store's webhooks and storefront script were last set up on the platform, and what failed */
    setupAt: timestamp('setup_at', { withTimezone: true }),
    setupError: text('setup_error'),
    /**
     * WooCommerce: the SHA-256 of the connect token whose keys WooCommerce posted (the last
     * connection): only that token's browser is signed in, and only that token's plugin claims
     */
    connectTokenHash: text('connect_token_hash'),
    installedAt: timestamp('installed_at', { withTimezone: true }).notNull().defaultNow(),
    uninstalledAt: timestamp('uninstalled_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('platform_installs_store_uq').on(t.platform, t.storeId),
    index('platform_installs_merchant_idx').on(t.merchantId),
    check('platform_installs_platform_check', sql`${t.platform} in ('salla', 'zid', 'shopify', 'woocommerce')`),
    check('platform_installs_status_check', sql`${t.status} in ('installed', 'uninstalled')`),
  ],
);

/**
 * A platform's webhook, stored when it arrives (its signature checked first) and worked by the
 * background runner: the platform gets its answer at once. The body is kept encrypted (an order
 * carries a shopper's name and phone) until the work is done, then dropped; the row stays a week
 * so that a delivery sent again is recognised by its body's hash and not worked twice.
 */
export const platformWebhooks = pgTable(
  'platform_webhooks',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    platform: text('platform').notNull(),
    storeId: text('store_id').notNull(),
    event: text('event').notNull(),
    /** SHA-256 of the raw body: the same delivery sent again is the same row */
    bodyHash: text('body_hash').notNull(),
    bodyEncrypted: text('body_encrypted'),
    /** received, done, failed */
    status: text('status').notNull().default('received'),
    attempts: integer('attempts').notNull().default(0),
    error: text('error'),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
    processedAt: timestamp('processed_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('platform_webhooks_body_uq').on(t.platform, t.bodyHash),
    index('platform_webhooks_received_idx').on(t.receivedAt),
    // a merchant's erasure deletes its stores' webhooks a batch at a time (services/erasure.ts)
    index('platform_webhooks_store_idx').on(t.platform, t.storeId),
    check('platform_webhooks_status_check', sql`${t.status} in ('received', 'done', 'failed')`),
  ],
);

export type PlatformInstallRow = typeof platformInstalls.$inferSelect;
export type PlatformWebhookRow = typeof platformWebhooks.$inferSelect;
