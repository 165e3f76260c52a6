-- Trigram indexes need pg_trgm (also created by 0007; PGlite loads it in db/client.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
DROP INDEX "design_owner_idx";--> statement-breakpoint
DROP INDEX "listing_owner_idx";--> statement-breakpoint
DROP INDEX "product_owner_idx";--> statement-breakpoint
CREATE INDEX "design_owner_created_id_idx" ON "design" USING btree ("owner_id","created_at","id");--> statement-breakpoint
CREATE INDEX "design_created_id_idx" ON "design" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "design_name_trgm_idx" ON "design" USING gin ("name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "design_file_name_trgm_idx" ON "design" USING gin ("file_name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "listing_owner_title_id_idx" ON "listing" USING btree ("owner_id","title","id");--> statement-breakpoint
CREATE INDEX "listing_owner_shop_title_id_idx" ON "listing" USING btree ("owner_id","shop_id","title","id");--> statement-breakpoint
CREATE INDEX "listing_owner_unmatched_title_id_idx" ON "listing" USING btree ("owner_id","title","id") WHERE "listing"."linked_variant_id" IS NULL;--> statement-breakpoint
CREATE INDEX "listing_linked_variant_idx" ON "listing" USING btree ("linked_variant_id");--> statement-breakpoint
CREATE INDEX "product_owner_created_id_idx" ON "product" USING btree ("owner_id","created_at","id");--> statement-breakpoint
CREATE INDEX "product_variant_product_idx" ON "product_variant" USING btree ("product_id");--> statement-breakpoint
CREATE INDEX "user_created_id_idx" ON "user" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "user_email_trgm_idx" ON "user" USING gin ("email" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "user_name_trgm_idx" ON "user" USING gin ("name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "user_business_name_trgm_idx" ON "user" USING gin ("business_name" gin_trgm_ops);