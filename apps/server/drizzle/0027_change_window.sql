CREATE TABLE "seller_order_settings" (
	"owner_id" text PRIMARY KEY NOT NULL,
	"change_window_hours" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "release_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "released_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "seller_order_settings" ADD CONSTRAINT "seller_order_settings_owner_id_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "order_release_due_idx" ON "order" USING btree ("release_at") WHERE "order"."status" = 'received' AND "order"."release_at" IS NOT NULL;