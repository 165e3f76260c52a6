CREATE TABLE "fulfillment_record" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"order_id" uuid,
	"shipment_id" uuid,
	"owner_id" text NOT NULL,
	"channel" text NOT NULL,
	"order_number" text NOT NULL,
	"buyer_name" text DEFAULT '' NOT NULL,
	"items" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"print_cost_cents" integer DEFAULT 0 NOT NULL,
	"packaging_cents" integer DEFAULT 0 NOT NULL,
	"shipping_cents" integer DEFAULT 0 NOT NULL,
	"total_cents" integer DEFAULT 0 NOT NULL,
	"currency" text DEFAULT 'USD' NOT NULL,
	"carrier" text DEFAULT '' NOT NULL,
	"service" text DEFAULT '' NOT NULL,
	"tracking_number" text DEFAULT '' NOT NULL,
	"tracking_url" text DEFAULT '' NOT NULL,
	"shipped_at" timestamp with time zone,
	"delivered_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"search_text" text DEFAULT '' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "seller_shipping" (
	"owner_id" text PRIMARY KEY NOT NULL,
	"integration" text DEFAULT 'sandbox' NOT NULL,
	"profile_id" uuid,
	"shipstation_enc" text,
	"shipstation_hint" jsonb,
	"shipstation_updated_at" timestamp with time zone,
	"shippo_enc" text,
	"shippo_connected_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "shipment" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"order_id" uuid NOT NULL,
	"owner_id" text NOT NULL,
	"provider" text NOT NULL,
	"attempt" integer DEFAULT 1 NOT NULL,
	"parcel_index" integer NOT NULL,
	"parcel_count" integer NOT NULL,
	"parcel" jsonb NOT NULL,
	"idempotency_key" text NOT NULL,
	"status" text NOT NULL,
	"rate" jsonb,
	"carrier" text,
	"carrier_code" text,
	"service" text,
	"tracking_number" text,
	"tracking_url" text,
	"provider_label_id" text,
	"label_key" text,
	"label_source_url" text,
	"cost_cents" integer,
	"currency" text DEFAULT 'USD' NOT NULL,
	"tracking_status" text,
	"tracking_code" text,
	"error" text,
	"writeback" text DEFAULT 'none' NOT NULL,
	"writeback_error" text,
	"writeback_attempts" integer DEFAULT 0 NOT NULL,
	"shipped_at" timestamp with time zone,
	"delivered_at" timestamp with time zone,
	"last_tracked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "shipping_profile" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"handling_days" integer NOT NULL,
	"promise_label" text NOT NULL,
	"promise_days" integer NOT NULL,
	"origin" jsonb NOT NULL,
	"parcels" jsonb NOT NULL,
	"zone_services" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tracking_event" (
	"shipment_id" uuid NOT NULL,
	"event_id" text NOT NULL,
	"status" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"location" text DEFAULT '' NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "fulfillment_record" ADD CONSTRAINT "fulfillment_record_order_id_order_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."order"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fulfillment_record" ADD CONSTRAINT "fulfillment_record_shipment_id_shipment_id_fk" FOREIGN KEY ("shipment_id") REFERENCES "public"."shipment"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fulfillment_record" ADD CONSTRAINT "fulfillment_record_owner_id_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "seller_shipping" ADD CONSTRAINT "seller_shipping_owner_id_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "seller_shipping" ADD CONSTRAINT "seller_shipping_profile_id_shipping_profile_id_fk" FOREIGN KEY ("profile_id") REFERENCES "public"."shipping_profile"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shipment" ADD CONSTRAINT "shipment_order_id_order_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."order"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shipment" ADD CONSTRAINT "shipment_owner_id_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tracking_event" ADD CONSTRAINT "tracking_event_shipment_id_shipment_id_fk" FOREIGN KEY ("shipment_id") REFERENCES "public"."shipment"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "fulfillment_record_shipment_idx" ON "fulfillment_record" USING btree ("shipment_id");--> statement-breakpoint
CREATE INDEX "fulfillment_record_created_idx" ON "fulfillment_record" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "fulfillment_record_owner_created_idx" ON "fulfillment_record" USING btree ("owner_id","created_at","id");--> statement-breakpoint
CREATE INDEX "fulfillment_record_order_idx" ON "fulfillment_record" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "fulfillment_record_search_trgm_idx" ON "fulfillment_record" USING gin ("search_text" gin_trgm_ops);--> statement-breakpoint
CREATE UNIQUE INDEX "shipment_idempotency_idx" ON "shipment" USING btree ("idempotency_key");--> statement-breakpoint
CREATE UNIQUE INDEX "shipment_live_parcel_idx" ON "shipment" USING btree ("order_id","parcel_index") WHERE "shipment"."status" IN ('purchasing', 'purchased', 'in_transit', 'delivered');--> statement-breakpoint
CREATE INDEX "shipment_order_idx" ON "shipment" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "shipment_tracking_idx" ON "shipment" USING btree ("tracking_number");--> statement-breakpoint
CREATE INDEX "shipment_in_flight_idx" ON "shipment" USING btree ("last_tracked_at") WHERE "shipment"."status" IN ('purchased', 'in_transit');--> statement-breakpoint
CREATE INDEX "shipment_writeback_open_idx" ON "shipment" USING btree ("writeback","updated_at") WHERE "shipment"."writeback" IN ('pending', 'failed');--> statement-breakpoint
CREATE UNIQUE INDEX "shipping_profile_one_default_idx" ON "shipping_profile" USING btree ("is_default") WHERE "shipping_profile"."is_default";--> statement-breakpoint
CREATE UNIQUE INDEX "tracking_event_shipment_event_idx" ON "tracking_event" USING btree ("shipment_id","event_id");