ALTER TABLE "perfumes" ADD COLUMN "grade" text;--> statement-breakpoint
ALTER TABLE "perfumes" ADD COLUMN "inspired_by" text;--> statement-breakpoint
ALTER TABLE "perfumes" ADD COLUMN "barcodes" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "perfumes" ADD COLUMN "evidence" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
-- rows an operator imported before profiles were graded: a licensed dataset the operator vouches for
UPDATE "perfumes" SET "grade" = 'referenced' WHERE cardinality("families") > 0;
