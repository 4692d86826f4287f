CREATE TABLE "feed_pulls" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"source_id" uuid NOT NULL,
	"merchant_id" uuid NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"status" text NOT NULL,
	"pages" integer DEFAULT 0 NOT NULL,
	"bytes" integer DEFAULT 0 NOT NULL,
	"received" integer DEFAULT 0 NOT NULL,
	"added" integer DEFAULT 0 NOT NULL,
	"changed" integer DEFAULT 0 NOT NULL,
	"removed" integer DEFAULT 0 NOT NULL,
	"rejected" integer DEFAULT 0 NOT NULL,
	"rejections" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"error" text,
	"error_code" text
);
--> statement-breakpoint
CREATE TABLE "feed_sources" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"url" text NOT NULL,
	"mapping" jsonb,
	"currency" text,
	"secret_encrypted" text,
	"interval_minutes" integer DEFAULT 60 NOT NULL,
	"paused" boolean DEFAULT false NOT NULL,
	"max_removal_share" real DEFAULT 0.2 NOT NULL,
	"confirm_removal" boolean DEFAULT false NOT NULL,
	"etag" text,
	"last_modified" text,
	"next_pull_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "feed_sources_kind_check" CHECK ("feed_sources"."kind" in ('shopify', 'shopify_admin', 'woocommerce', 'google', 'csv', 'json'))
);
--> statement-breakpoint
ALTER TABLE "merchant_products" ADD COLUMN "available" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "merchant_products" ADD COLUMN "sale_price" numeric(14, 2);--> statement-breakpoint
ALTER TABLE "merchant_products" ADD COLUMN "sizes" jsonb;--> statement-breakpoint
ALTER TABLE "merchant_products" ADD COLUMN "feed_source_id" uuid;--> statement-breakpoint
ALTER TABLE "feed_pulls" ADD CONSTRAINT "feed_pulls_source_id_feed_sources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."feed_sources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "feed_sources" ADD CONSTRAINT "feed_sources_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "feed_pulls_source_idx" ON "feed_pulls" USING btree ("source_id","started_at");--> statement-breakpoint
CREATE UNIQUE INDEX "feed_sources_merchant_url_uq" ON "feed_sources" USING btree ("merchant_id","url");--> statement-breakpoint
CREATE INDEX "feed_sources_due_idx" ON "feed_sources" USING btree ("next_pull_at") WHERE not "feed_sources"."paused";