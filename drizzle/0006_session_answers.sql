-- Session log, narrow: a scored answer's quiz and products shown are stored once in
-- widget_answers, under the hash of their content (the service computes the same id:
-- answerId in plugins/app/sessions.ts), and each session row points to its answer.
-- The existing log is rewritten into the new shape in one pass (docs/operations.md).
CREATE TABLE "widget_answers" (
	"id" uuid PRIMARY KEY NOT NULL,
	"merchant_id" uuid NOT NULL,
	"quiz" json NOT NULL,
	"shown" json NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "widget_answers" ADD CONSTRAINT "widget_answers_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE TABLE "widget_sessions_narrow" (
	"id" uuid PRIMARY KEY NOT NULL,
	"merchant_id" uuid NOT NULL,
	"key_id" uuid,
	"test" boolean NOT NULL,
	"locale" text NOT NULL,
	"answer_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
WITH "s" AS (
	SELECT *, encode(substring(sha256(convert_to("merchant_id"::text || E'\n' || "quiz"::text || E'\n' || "shown"::text, 'UTF8')) FROM 1 FOR 16), 'hex')::uuid AS "answer_id"
	FROM "widget_sessions"
), "a" AS (
	INSERT INTO "widget_answers" ("id", "merchant_id", "quiz", "shown", "created_at")
	SELECT DISTINCT ON ("answer_id") "answer_id", "merchant_id", "quiz", "shown", "created_at" FROM "s"
	ORDER BY "answer_id", "created_at"
)
INSERT INTO "widget_sessions_narrow" ("id", "merchant_id", "key_id", "test", "locale", "answer_id", "created_at")
SELECT "id", "merchant_id", "key_id", "test", "locale", "answer_id", "created_at" FROM "s";
--> statement-breakpoint
DROP TABLE "widget_sessions";
--> statement-breakpoint
ALTER TABLE "widget_sessions_narrow" RENAME TO "widget_sessions";
--> statement-breakpoint
ALTER TABLE "widget_sessions" RENAME CONSTRAINT "widget_sessions_narrow_pkey" TO "widget_sessions_pkey";
--> statement-breakpoint
CREATE INDEX "widget_sessions_merchant_created_idx" ON "widget_sessions" USING btree ("merchant_id","created_at");
--> statement-breakpoint
-- No per-row foreign keys on the session log (one row per score request): the session
-- writer locks a batch's merchants and keys once and stores only rows whose merchant
-- exists; these triggers do what ON DELETE CASCADE / SET NULL did.
CREATE FUNCTION "widget_sessions_merchants_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM "widget_sessions" WHERE "merchant_id" IN (SELECT "id" FROM "deleted");
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "widget_sessions_merchants_deleted" AFTER DELETE ON "merchants"
	REFERENCING OLD TABLE AS "deleted" FOR EACH STATEMENT EXECUTE FUNCTION "widget_sessions_merchants_deleted"();
--> statement-breakpoint
CREATE FUNCTION "widget_sessions_keys_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE "widget_sessions" SET "key_id" = NULL WHERE "key_id" IN (SELECT "id" FROM "deleted");
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "widget_sessions_keys_deleted" AFTER DELETE ON "api_keys"
	REFERENCING OLD TABLE AS "deleted" FOR EACH STATEMENT EXECUTE FUNCTION "widget_sessions_keys_deleted"();
