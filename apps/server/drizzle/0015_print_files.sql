CREATE TABLE "print_file" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"print_config_id" uuid NOT NULL,
	"settings_version" integer NOT NULL,
	"profile_key" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"gcode_key" text,
	"grams" double precision,
	"print_seconds" double precision,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "print_file" ADD CONSTRAINT "print_file_print_config_id_print_configuration_id_fk" FOREIGN KEY ("print_config_id") REFERENCES "public"."print_configuration"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "print_file_config_profile_idx" ON "print_file" USING btree ("print_config_id","settings_version","profile_key");