CREATE TABLE "seller_branding" (
	"owner_id" text PRIMARY KEY NOT NULL,
	"logo_key" text,
	"logo_format" text,
	"logo_width_px" integer,
	"logo_height_px" integer,
	"logo_updated_at" timestamp with time zone,
	"insert_message" text DEFAULT '' NOT NULL,
	"thank_you_card" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "listing_image_set" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"print_config_id" uuid,
	"owner_id" text,
	"settings_version" integer NOT NULL,
	"colour" text NOT NULL,
	"status" text NOT NULL,
	"error" text,
	"image_keys" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"size_px" integer NOT NULL,
	"rendered_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "seller_branding" ADD CONSTRAINT "seller_branding_owner_id_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listing_image_set" ADD CONSTRAINT "listing_image_set_print_config_id_print_configuration_id_fk" FOREIGN KEY ("print_config_id") REFERENCES "public"."print_configuration"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listing_image_set" ADD CONSTRAINT "listing_image_set_owner_id_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "listing_image_set_config_idx" ON "listing_image_set" USING btree ("print_config_id");--> statement-breakpoint
CREATE INDEX "listing_image_set_orphan_idx" ON "listing_image_set" USING btree ("id") WHERE "listing_image_set"."print_config_id" is null;