CREATE TABLE "print_job" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"seq" bigserial NOT NULL,
	"order_id" uuid NOT NULL,
	"order_item_id" uuid NOT NULL,
	"owner_id" text NOT NULL,
	"part_index" integer NOT NULL,
	"copy" integer NOT NULL,
	"attempt" integer DEFAULT 1 NOT NULL,
	"reprint_of" uuid,
	"part_name" text NOT NULL,
	"design_id" uuid NOT NULL,
	"print_config_id" uuid NOT NULL,
	"model_key" text NOT NULL,
	"material" text NOT NULL,
	"colour" text NOT NULL,
	"nozzle_mm" double precision NOT NULL,
	"size_x_mm" double precision NOT NULL,
	"size_y_mm" double precision NOT NULL,
	"size_z_mm" double precision NOT NULL,
	"grams" double precision NOT NULL,
	"print_seconds" double precision NOT NULL,
	"layer_count" integer,
	"file_key" text,
	"file_kind" text,
	"status" text DEFAULT 'queued' NOT NULL,
	"printer_id" uuid,
	"pinned_printer_id" uuid,
	"manual_key" double precision,
	"rush" boolean DEFAULT false NOT NULL,
	"placed_at" timestamp with time zone NOT NULL,
	"due_at" timestamp with time zone,
	"spool_change" jsonb,
	"progress" double precision,
	"seconds_left" double precision,
	"failure_reason" text,
	"qc_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"assigned_at" timestamp with time zone,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "production_event" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"job_id" uuid,
	"printer_id" uuid,
	"order_id" uuid,
	"actor_kind" text NOT NULL,
	"actor_id" text,
	"detail" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "printer" ADD COLUMN "last_started_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "print_job" ADD CONSTRAINT "print_job_order_id_order_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."order"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "print_job" ADD CONSTRAINT "print_job_order_item_id_order_item_id_fk" FOREIGN KEY ("order_item_id") REFERENCES "public"."order_item"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "print_job" ADD CONSTRAINT "print_job_owner_id_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "print_job" ADD CONSTRAINT "print_job_printer_id_printer_id_fk" FOREIGN KEY ("printer_id") REFERENCES "public"."printer"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "print_job" ADD CONSTRAINT "print_job_pinned_printer_id_printer_id_fk" FOREIGN KEY ("pinned_printer_id") REFERENCES "public"."printer"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "production_event" ADD CONSTRAINT "production_event_job_id_print_job_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."print_job"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "production_event" ADD CONSTRAINT "production_event_printer_id_printer_id_fk" FOREIGN KEY ("printer_id") REFERENCES "public"."printer"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "production_event" ADD CONSTRAINT "production_event_order_id_order_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."order"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "production_event" ADD CONSTRAINT "production_event_actor_id_user_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "print_job_part_copy_attempt_idx" ON "print_job" USING btree ("order_item_id","part_index","copy","attempt");--> statement-breakpoint
CREATE UNIQUE INDEX "print_job_one_per_printer_idx" ON "print_job" USING btree ("printer_id") WHERE "print_job"."status" IN ('assigned', 'uploading', 'printing');--> statement-breakpoint
CREATE INDEX "print_job_order_idx" ON "print_job" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "print_job_status_seq_idx" ON "print_job" USING btree ("status","seq");--> statement-breakpoint
CREATE INDEX "production_event_job_idx" ON "production_event" USING btree ("job_id","created_at");--> statement-breakpoint
CREATE INDEX "production_event_order_idx" ON "production_event" USING btree ("order_id","created_at");