CREATE TABLE "order_price" (
	"order_id" uuid PRIMARY KEY NOT NULL,
	"owner_id" text NOT NULL,
	"lines" jsonb NOT NULL,
	"items_cents" integer NOT NULL,
	"packaging_cents" integer NOT NULL,
	"shipping_cents" integer NOT NULL,
	"currency" text DEFAULT 'USD' NOT NULL,
	"adjusted_items_cents" integer,
	"adjustment_reason" text,
	"settled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_order_sequence" (
	"order_id" uuid PRIMARY KEY NOT NULL,
	"last" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "webhook_delivery" ADD COLUMN "sequence" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "order_price" ADD CONSTRAINT "order_price_order_id_order_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."order"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_price" ADD CONSTRAINT "order_price_owner_id_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_order_sequence" ADD CONSTRAINT "webhook_order_sequence_order_id_order_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."order"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_delivery_order_sequence_idx" ON "webhook_delivery" USING btree ("order_id","sequence");--> statement-breakpoint
-- Deliveries made before sequences: numbered per order as they were made, the creation first.
UPDATE "webhook_delivery" d SET "sequence" = n.seq
FROM (
  SELECT "id", row_number() OVER (PARTITION BY "order_id" ORDER BY ("from_status" IS NOT NULL), "created_at", "id") AS seq
  FROM "webhook_delivery"
) n
WHERE d."id" = n."id";--> statement-breakpoint
INSERT INTO "webhook_order_sequence" ("order_id", "last")
SELECT "order_id", greatest(max("sequence"), 1) FROM "webhook_delivery" GROUP BY "order_id";
