CREATE TABLE "learnt_barcodes" (
	"barcode" text PRIMARY KEY NOT NULL,
	"status" text NOT NULL,
	"perfume_id" text,
	"shops" integer NOT NULL,
	"perfumes" jsonb,
	"merchant_ids" uuid[] NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "learnt_barcodes_status_check" CHECK ("learnt_barcodes"."status" in ('key', 'conflict'))
);
--> statement-breakpoint
ALTER TABLE "merchant_products" ADD COLUMN "barcode" text;--> statement-breakpoint
ALTER TABLE "merchant_products" ADD COLUMN "barcode_keys" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "merchant_products" ADD COLUMN "match_key" text;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "teaches" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "learns" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "learnt_version" bigint;--> statement-breakpoint
CREATE INDEX "learnt_barcodes_merchants_idx" ON "learnt_barcodes" USING gin ("merchant_ids");--> statement-breakpoint
CREATE INDEX "learnt_barcodes_status_idx" ON "learnt_barcodes" USING btree ("status");--> statement-breakpoint
CREATE INDEX "merchant_products_barcode_keys_idx" ON "merchant_products" USING gin ("barcode_keys");