CREATE UNIQUE INDEX "events_merchant_test_event_id_uq" ON "events" USING btree ("merchant_id","test","event_id") WHERE "events"."event_id" is not null;--> statement-breakpoint
DROP INDEX "events_merchant_event_id_uq";
