CREATE TABLE "printer" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"model" text DEFAULT '' NOT NULL,
	"build_x_mm" double precision NOT NULL,
	"build_y_mm" double precision NOT NULL,
	"build_z_mm" double precision NOT NULL,
	"nozzle_mm" double precision NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"connection_kind" text NOT NULL,
	"connection_enc" text NOT NULL,
	"spools" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"last_state" jsonb,
	"last_state_at" timestamp with time zone,
	"last_error" text,
	"bed_confirmed_clear" boolean DEFAULT false NOT NULL,
	"bed_confirmed_by" text,
	"bed_confirmed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "printer" ADD CONSTRAINT "printer_bed_confirmed_by_user_id_fk" FOREIGN KEY ("bed_confirmed_by") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "printer_status_idx" ON "printer" USING btree ("status","name");