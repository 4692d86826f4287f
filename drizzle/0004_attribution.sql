ALTER TABLE "purchases" ADD COLUMN "attributed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "purchases" ADD COLUMN "attributed_revenue" numeric(14, 2) DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "events_clicks_idx" ON "events" USING btree ("merchant_id","session_id",("data"->>'merchant_product_id'),"occurred_at") WHERE "events"."type" in ('recommendation_clicked', 'also_explore_clicked');--> statement-breakpoint
CREATE INDEX "purchases_session_idx" ON "purchases" USING btree ("merchant_id","session_id");