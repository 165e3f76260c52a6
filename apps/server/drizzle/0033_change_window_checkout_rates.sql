CREATE TABLE "seller_order_settings" (
	"owner_id" text PRIMARY KEY NOT NULL,
	"change_window_hours" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "checkout_rates_setting" (
	"shop_id" uuid PRIMARY KEY NOT NULL,
	"owner_id" text NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"generation" integer DEFAULT 0 NOT NULL,
	"carrier_service_id" text,
	"registered_at" timestamp with time zone,
	"last_error" text DEFAULT '' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "release_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "order" ADD COLUMN "released_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "seller_order_settings" ADD CONSTRAINT "seller_order_settings_owner_id_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "checkout_rates_setting" ADD CONSTRAINT "checkout_rates_setting_shop_id_shop_connection_id_fk" FOREIGN KEY ("shop_id") REFERENCES "public"."shop_connection"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "checkout_rates_setting" ADD CONSTRAINT "checkout_rates_setting_owner_id_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "order_release_due_idx" ON "order" USING btree ("release_at") WHERE "order"."status" = 'received' AND "order"."release_at" IS NOT NULL;