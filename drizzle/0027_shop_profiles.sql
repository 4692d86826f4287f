CREATE TABLE "learnt_profiles" (
	"perfume_id" text PRIMARY KEY NOT NULL,
	"notes" jsonb NOT NULL,
	"shops" integer NOT NULL,
	"merchant_ids" uuid[] NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "merchant_products" ADD COLUMN "shop_notes" jsonb;--> statement-breakpoint
ALTER TABLE "merchant_products" ADD COLUMN "text_print" integer[];--> statement-breakpoint
ALTER TABLE "merchant_products" ADD COLUMN "shop_notes_of" text;--> statement-breakpoint
ALTER TABLE "merchant_products" ADD COLUMN "profile_shops" integer;--> statement-breakpoint
CREATE INDEX "learnt_profiles_merchants_idx" ON "learnt_profiles" USING gin ("merchant_ids");--> statement-breakpoint
CREATE INDEX "merchant_products_perfume_idx" ON "merchant_products" USING btree ("sillage_perfume_id");