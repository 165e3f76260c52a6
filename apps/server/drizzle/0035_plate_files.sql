CREATE TABLE "plate_file" (
	"id" text PRIMARY KEY NOT NULL,
	"lead_job_id" uuid NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"gcode_key" text,
	"objects" jsonb,
	"grams" double precision,
	"print_seconds" double precision,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "print_job" ADD COLUMN "prints_alone" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "plate_file" ADD CONSTRAINT "plate_file_lead_job_id_print_job_id_fk" FOREIGN KEY ("lead_job_id") REFERENCES "public"."print_job"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "plate_file_lead_idx" ON "plate_file" USING btree ("lead_job_id");