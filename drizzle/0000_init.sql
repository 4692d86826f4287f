CREATE TABLE "events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"merchant_id" uuid NOT NULL,
	"key_id" uuid,
	"session_id" uuid,
	"test" boolean NOT NULL,
	"type" text NOT NULL,
	"event_id" text,
	"occurred_at" timestamp with time zone NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "leads" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"session_id" uuid,
	"test" boolean NOT NULL,
	"email_encrypted" text,
	"phone_encrypted" text,
	"email_lookup" text,
	"consent_at" timestamp with time zone NOT NULL,
	"consent_version" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "purchases" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"session_id" uuid,
	"test" boolean NOT NULL,
	"order_id" text NOT NULL,
	"total" numeric(14, 2) NOT NULL,
	"currency" text NOT NULL,
	"items" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "widget_sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"merchant_id" uuid NOT NULL,
	"key_id" uuid,
	"test" boolean NOT NULL,
	"locale" text NOT NULL,
	"quiz" jsonb NOT NULL,
	"shown" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "merchant_products" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"merchant_product_id" text NOT NULL,
	"name" text NOT NULL,
	"house" text NOT NULL,
	"price" numeric(14, 2),
	"currency" text DEFAULT 'SAR' NOT NULL,
	"image_url" text,
	"product_url" text,
	"accords" text[],
	"notes" jsonb,
	"match_status" text DEFAULT 'pending' NOT NULL,
	"sillage_perfume_id" text,
	"match_confidence" real,
	"match_reason" text,
	"match_pinned" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "merchant_products_status_check" CHECK ("merchant_products"."match_status" in ('pending', 'matched', 'partial', 'unmatched'))
);
--> statement-breakpoint
CREATE TABLE "perfumes" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"name_ar" text,
	"house" text NOT NULL,
	"house_ar" text,
	"concentration" text,
	"year" integer,
	"gender" text,
	"families" text[] DEFAULT '{}'::text[] NOT NULL,
	"accords" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"notes" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"seasons" text[] DEFAULT '{}'::text[] NOT NULL,
	"profile" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"occasions" text[] DEFAULT '{}'::text[] NOT NULL,
	"aliases" text[] DEFAULT '{}'::text[] NOT NULL,
	"image_url" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"mode" text NOT NULL,
	"prefix" text NOT NULL,
	"key_hash" text NOT NULL,
	"allowed_origins" text[] DEFAULT '{}'::text[] NOT NULL,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	CONSTRAINT "api_keys_key_hash_unique" UNIQUE("key_hash"),
	CONSTRAINT "api_keys_mode_check" CHECK ("api_keys"."mode" in ('test', 'live'))
);
--> statement-breakpoint
CREATE TABLE "merchants" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "merchants_slug_unique" UNIQUE("slug")
);
--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leads" ADD CONSTRAINT "leads_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "purchases" ADD CONSTRAINT "purchases_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "widget_sessions" ADD CONSTRAINT "widget_sessions_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "widget_sessions" ADD CONSTRAINT "widget_sessions_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merchant_products" ADD CONSTRAINT "merchant_products_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merchant_products" ADD CONSTRAINT "merchant_products_sillage_perfume_id_perfumes_id_fk" FOREIGN KEY ("sillage_perfume_id") REFERENCES "public"."perfumes"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "events_merchant_event_id_uq" ON "events" USING btree ("merchant_id","event_id") WHERE "events"."event_id" is not null;--> statement-breakpoint
CREATE INDEX "events_merchant_occurred_idx" ON "events" USING btree ("merchant_id","test","occurred_at");--> statement-breakpoint
CREATE INDEX "events_session_idx" ON "events" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "leads_merchant_created_idx" ON "leads" USING btree ("merchant_id","created_at");--> statement-breakpoint
CREATE INDEX "leads_email_lookup_idx" ON "leads" USING btree ("merchant_id","email_lookup");--> statement-breakpoint
CREATE UNIQUE INDEX "purchases_merchant_order_uq" ON "purchases" USING btree ("merchant_id","test","order_id");--> statement-breakpoint
CREATE INDEX "purchases_merchant_occurred_idx" ON "purchases" USING btree ("merchant_id","test","occurred_at");--> statement-breakpoint
CREATE INDEX "widget_sessions_merchant_created_idx" ON "widget_sessions" USING btree ("merchant_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "merchant_products_merchant_product_uq" ON "merchant_products" USING btree ("merchant_id","merchant_product_id");--> statement-breakpoint
CREATE INDEX "merchant_products_status_idx" ON "merchant_products" USING btree ("merchant_id","match_status");--> statement-breakpoint
CREATE INDEX "perfumes_house_idx" ON "perfumes" USING btree ("house");--> statement-breakpoint
CREATE INDEX "api_keys_merchant_idx" ON "api_keys" USING btree ("merchant_id");