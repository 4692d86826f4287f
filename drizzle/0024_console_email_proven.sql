ALTER TABLE "console_users" ADD COLUMN "email_proven" boolean DEFAULT true NOT NULL;--> statement-breakpoint
-- the accounts of a WooCommerce store's merchant were made from an email the plugin typed: not proven
UPDATE "console_users" SET "email_proven" = false WHERE "merchant_id" IN (SELECT "merchant_id" FROM "platform_installs" WHERE "platform" = 'woocommerce');
