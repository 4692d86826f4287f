-- A session id is the client's within its merchant and kind of key: the same id sent by two shops'
-- widgets (or a shop's test and live keys) is two sessions, neither claiming nor overwriting the other.
ALTER TABLE "widget_sessions" DROP CONSTRAINT "widget_sessions_pkey";--> statement-breakpoint
ALTER TABLE "widget_sessions" ADD CONSTRAINT "widget_sessions_id_merchant_id_test_pk" PRIMARY KEY("id","merchant_id","test");
