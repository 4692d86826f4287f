CREATE TABLE "proposals" (
	"perfume_id" text PRIMARY KEY NOT NULL,
	"votes" jsonb NOT NULL,
	"shops" integer NOT NULL,
	"in_force" text[] DEFAULT '{}'::text[] NOT NULL,
	"merchant_ids" uuid[] NOT NULL,
	"approved" text[] DEFAULT '{}'::text[] NOT NULL,
	"rejected" text[] DEFAULT '{}'::text[] NOT NULL,
	"why" text,
	"reviewed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "merchant_products" ADD COLUMN "learnt_inspired" text;--> statement-breakpoint
ALTER TABLE "merchant_products" ADD COLUMN "answer" jsonb;--> statement-breakpoint
ALTER TABLE "learnt_profiles" ADD COLUMN "accords" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "learnt_profiles" ADD COLUMN "inspired_by" text;--> statement-breakpoint
CREATE INDEX "proposals_merchants_idx" ON "proposals" USING gin ("merchant_ids");