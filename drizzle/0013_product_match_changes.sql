ALTER TABLE "merchant_products" ADD COLUMN "previous_perfume_id" text;--> statement-breakpoint
ALTER TABLE "merchant_products" ADD COLUMN "match_changed_at" timestamp with time zone;