ALTER TABLE "leads" ADD COLUMN "phone_lookup" text;--> statement-breakpoint
CREATE INDEX "leads_phone_lookup_idx" ON "leads" USING btree ("merchant_id","phone_lookup");