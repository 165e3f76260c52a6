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
ALTER TABLE "seller_branding" ADD CONSTRAINT "seller_branding_owner_id_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;