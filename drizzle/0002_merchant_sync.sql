ALTER TABLE "merchant_products" ADD COLUMN "profile" jsonb;--> statement-breakpoint
ALTER TABLE "merchant_products" ADD COLUMN "sync_id" uuid;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "catalog_synced_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "catalog_version" bigint DEFAULT 0 NOT NULL;