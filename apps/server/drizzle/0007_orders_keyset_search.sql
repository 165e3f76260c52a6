-- Substring search of orders uses trigram indexes (pg_trgm: trusted, so the database owner may create it; PGlite loads it in db/client.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
DROP INDEX "order_status_idx";--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "search_text" text DEFAULT '' NOT NULL;--> statement-breakpoint
-- The orders already stored: order number, buyer, then each item's SKU and title, one a line, lower-cased.
UPDATE "order" o SET "search_text" = lower(o."external_id" || E'\n' || o."customer_name" || coalesce((SELECT string_agg(E'\n' || i."sku" || E'\n' || i."title", '' ORDER BY i."sku") FROM "order_item" i WHERE i."order_id" = o."id"), ''));--> statement-breakpoint
CREATE INDEX "order_owner_placed_idx" ON "order" USING btree ("owner_id","placed_at","id");--> statement-breakpoint
CREATE INDEX "order_owner_status_placed_idx" ON "order" USING btree ("owner_id","status","placed_at","id");--> statement-breakpoint
CREATE INDEX "order_placed_idx" ON "order" USING btree ("placed_at","id");--> statement-breakpoint
CREATE INDEX "order_status_placed_idx" ON "order" USING btree ("status","placed_at","id");--> statement-breakpoint
CREATE INDEX "order_search_trgm_idx" ON "order" USING gin ("search_text" gin_trgm_ops);
