CREATE TABLE "lead_deliveries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"merchant_id" uuid NOT NULL,
	"event" text NOT NULL,
	"test" boolean NOT NULL,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_status" integer,
	"last_error" text,
	"body_encrypted" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "leads" ADD COLUMN "picks" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "leads" ADD COLUMN "locale" text;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "phone_country" text DEFAULT 'SA' NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "webhook_url" text;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "webhook_secret_encrypted" text;--> statement-breakpoint
ALTER TABLE "lead_deliveries" ADD CONSTRAINT "lead_deliveries_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "lead_deliveries_due_idx" ON "lead_deliveries" USING btree ("next_attempt_at") WHERE "lead_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "lead_deliveries_merchant_idx" ON "lead_deliveries" USING btree ("merchant_id","created_at");