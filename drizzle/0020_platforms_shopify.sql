ALTER TABLE "feed_sources" DROP CONSTRAINT "feed_sources_kind_check";--> statement-breakpoint
ALTER TABLE "platform_installs" DROP CONSTRAINT "platform_installs_platform_check";--> statement-breakpoint
ALTER TABLE "feed_sources" ADD CONSTRAINT "feed_sources_kind_check" CHECK ("feed_sources"."kind" in ('shopify', 'shopify_admin', 'woocommerce', 'google', 'csv', 'json', 'salla', 'zid', 'shopify_graphql'));--> statement-breakpoint
ALTER TABLE "platform_installs" ADD CONSTRAINT "platform_installs_platform_check" CHECK ("platform_installs"."platform" in ('salla', 'zid', 'shopify'));