CREATE TABLE "catalog_state" (
	"id" integer PRIMARY KEY NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL,
	"bundled_hash" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "houses" (
	"name" text PRIMARY KEY NOT NULL,
	"name_ar" text,
	"aliases" text[] DEFAULT '{}'::text[] NOT NULL,
	"abbreviations" text[] DEFAULT '{}'::text[] NOT NULL,
	"region" text,
	"country" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "perfumes" ADD COLUMN "times" text[] DEFAULT '{}'::text[] NOT NULL;