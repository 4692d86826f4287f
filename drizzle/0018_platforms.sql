CREATE TABLE "platform_installs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"platform" text NOT NULL,
	"store_id" text NOT NULL,
	"merchant_id" uuid NOT NULL,
	"status" text DEFAULT 'installed' NOT NULL,
	"access_token_encrypted" text,
	"refresh_token_encrypted" text,
	"token_expires_at" timestamp with time zone,
	"scope" text,
	"publishable_key" text,
	"feed_source_id" uuid,
	"installed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"uninstalled_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "platform_installs_platform_check" CHECK ("platform_installs"."platform" in ('salla')),
	CONSTRAINT "platform_installs_status_check" CHECK ("platform_installs"."status" in ('installed', 'uninstalled'))
);
--> statement-breakpoint
CREATE TABLE "platform_webhooks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"platform" text NOT NULL,
	"store_id" text NOT NULL,
	"event" text NOT NULL,
	"body_hash" text NOT NULL,
	"body_encrypted" text,
	"status" text DEFAULT 'received' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"error" text,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"processed_at" timestamp with time zone,
	CONSTRAINT "platform_webhooks_status_check" CHECK ("platform_webhooks"."status" in ('received', 'done', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "feed_sources" DROP CONSTRAINT "feed_sources_kind_check";--> statement-breakpoint
ALTER TABLE "platform_installs" ADD CONSTRAINT "platform_installs_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform_installs" ADD CONSTRAINT "platform_installs_feed_source_id_feed_sources_id_fk" FOREIGN KEY ("feed_source_id") REFERENCES "public"."feed_sources"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "platform_installs_store_uq" ON "platform_installs" USING btree ("platform","store_id");--> statement-breakpoint
CREATE INDEX "platform_installs_merchant_idx" ON "platform_installs" USING btree ("merchant_id");--> statement-breakpoint
CREATE UNIQUE INDEX "platform_webhooks_body_uq" ON "platform_webhooks" USING btree ("platform","body_hash");--> statement-breakpoint
CREATE INDEX "platform_webhooks_received_idx" ON "platform_webhooks" USING btree ("received_at");--> statement-breakpoint
ALTER TABLE "feed_sources" ADD CONSTRAINT "feed_sources_kind_check" CHECK ("feed_sources"."kind" in ('shopify', 'shopify_admin', 'woocommerce', 'google', 'csv', 'json', 'salla'));