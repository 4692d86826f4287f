CREATE TABLE "identity_proposals" (
	"id" text PRIMARY KEY NOT NULL,
	"spelling" text NOT NULL,
	"house" text NOT NULL,
	"name" text NOT NULL,
	"concentration" text,
	"gender" text,
	"shops" integer NOT NULL,
	"merchant_ids" uuid[] NOT NULL,
	"evidence" jsonb NOT NULL,
	"status" text DEFAULT 'waiting' NOT NULL,
	"perfume_id" text,
	"why" text,
	"reviewed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "identity_proposals_spelling_unique" UNIQUE("spelling")
);
--> statement-breakpoint
CREATE INDEX "identity_proposals_merchants_idx" ON "identity_proposals" USING gin ("merchant_ids");