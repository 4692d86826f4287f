ALTER TABLE "merchants" ADD COLUMN "erased_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "widget_answers_merchant_idx" ON "widget_answers" USING btree ("merchant_id");--> statement-breakpoint
CREATE INDEX "platform_webhooks_store_idx" ON "platform_webhooks" USING btree ("platform","store_id");