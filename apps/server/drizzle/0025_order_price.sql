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
ALTER TABLE "order_price" ADD CONSTRAINT "order_price_order_id_order_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."order"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_price" ADD CONSTRAINT "order_price_owner_id_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;