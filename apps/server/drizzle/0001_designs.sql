CREATE TABLE "design" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"owner_id" text NOT NULL,
	"name" text NOT NULL,
	"file_name" text NOT NULL,
	"format" text NOT NULL,
	"content_type" text NOT NULL,
	"storage_key" text NOT NULL,
	"thumbnail_key" text,
	"size_bytes" bigint NOT NULL,
	"md5_base64" text NOT NULL,
	"triangles" integer NOT NULL,
	"volume_mm3" double precision NOT NULL,
	"surface_area_mm2" double precision NOT NULL,
	"bbox_mm" jsonb NOT NULL,
	"shells" integer NOT NULL,
	"object_count" integer NOT NULL,
	"part_volumes_mm3" jsonb NOT NULL,
	"fits_build_volume" boolean NOT NULL,
	"watertight" boolean NOT NULL,
	"problems" jsonb NOT NULL,
	"custom_metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"metageneration" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "design_storage_key_unique" UNIQUE("storage_key")
);
--> statement-breakpoint
CREATE TABLE "price_table" (
	"id" text PRIMARY KEY NOT NULL,
	"table" jsonb NOT NULL,
	"updated_by" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "print_configuration" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"design_id" uuid NOT NULL,
	"owner_id" text NOT NULL,
	"name" text NOT NULL,
	"filament" text NOT NULL,
	"colour" text NOT NULL,
	"layer_height_mm" double precision NOT NULL,
	"infill_percent" integer NOT NULL,
	"is_multipart" boolean DEFAULT false NOT NULL,
	"parts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"multicolour" boolean DEFAULT false NOT NULL,
	"add_ons" jsonb NOT NULL,
	"estimate" jsonb,
	"sliced" jsonb,
	"admin_cost" jsonb,
	"slicing_status" text DEFAULT 'unavailable' NOT NULL,
	"slicing_error" text,
	"settings_version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "design" ADD CONSTRAINT "design_owner_id_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "price_table" ADD CONSTRAINT "price_table_updated_by_user_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "print_configuration" ADD CONSTRAINT "print_configuration_design_id_design_id_fk" FOREIGN KEY ("design_id") REFERENCES "public"."design"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "print_configuration" ADD CONSTRAINT "print_configuration_owner_id_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "design_owner_idx" ON "design" USING btree ("owner_id","created_at");--> statement-breakpoint
CREATE INDEX "print_configuration_design_idx" ON "print_configuration" USING btree ("design_id");