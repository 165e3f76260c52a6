-- A two-column GIN index (the seller, then the trigrams): btree_gin gives text its GIN operator class (trusted, so the database owner may create it; PGlite loads it in db/client.ts).
CREATE EXTENSION IF NOT EXISTS btree_gin;--> statement-breakpoint
CREATE INDEX "fulfillment_record_owner_search_trgm_idx" ON "fulfillment_record" USING gin ("owner_id","search_text" gin_trgm_ops);