ALTER TABLE "widget_sessions" ALTER COLUMN "quiz" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "widget_sessions" ALTER COLUMN "shown" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "widget_sessions" ALTER COLUMN "shown" SET DEFAULT '[]'::json;