CREATE TABLE "claim" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"order_id" uuid NOT NULL,
	"owner_id" text NOT NULL,
	"kind" text NOT NULL,
	"description" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"decision_note" text DEFAULT '' NOT NULL,
	"refund_cents" integer,
	"replacement_shipment_id" uuid,
	"decided_by" text,
	"decided_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "claim_part" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"claim_id" uuid NOT NULL,
	"print_job_id" uuid NOT NULL,
	"printer_id" uuid,
	"printer_name" text DEFAULT '' NOT NULL,
	"material" text NOT NULL,
	"reprint_job_id" uuid
);
--> statement-breakpoint
CREATE TABLE "claim_photo" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"claim_id" uuid NOT NULL,
	"storage_key" text NOT NULL,
	"width" integer NOT NULL,
	"height" integer NOT NULL,
	"size_bytes" integer NOT NULL,
	"position" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "claim" ADD CONSTRAINT "claim_order_id_order_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."order"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "claim" ADD CONSTRAINT "claim_owner_id_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "claim" ADD CONSTRAINT "claim_replacement_shipment_id_shipment_id_fk" FOREIGN KEY ("replacement_shipment_id") REFERENCES "public"."shipment"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "claim" ADD CONSTRAINT "claim_decided_by_user_id_fk" FOREIGN KEY ("decided_by") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "claim_part" ADD CONSTRAINT "claim_part_claim_id_claim_id_fk" FOREIGN KEY ("claim_id") REFERENCES "public"."claim"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "claim_part" ADD CONSTRAINT "claim_part_print_job_id_print_job_id_fk" FOREIGN KEY ("print_job_id") REFERENCES "public"."print_job"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "claim_part" ADD CONSTRAINT "claim_part_printer_id_printer_id_fk" FOREIGN KEY ("printer_id") REFERENCES "public"."printer"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "claim_part" ADD CONSTRAINT "claim_part_reprint_job_id_print_job_id_fk" FOREIGN KEY ("reprint_job_id") REFERENCES "public"."print_job"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "claim_photo" ADD CONSTRAINT "claim_photo_claim_id_claim_id_fk" FOREIGN KEY ("claim_id") REFERENCES "public"."claim"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "claim_open_order_idx" ON "claim" USING btree ("order_id") WHERE "claim"."status" = 'open';--> statement-breakpoint
CREATE INDEX "claim_owner_created_idx" ON "claim" USING btree ("owner_id","created_at");--> statement-breakpoint
CREATE INDEX "claim_status_created_idx" ON "claim" USING btree ("status","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "claim_part_job_idx" ON "claim_part" USING btree ("claim_id","print_job_id");--> statement-breakpoint
CREATE INDEX "claim_part_printer_idx" ON "claim_part" USING btree ("printer_id");--> statement-breakpoint
CREATE INDEX "claim_photo_claim_idx" ON "claim_photo" USING btree ("claim_id","position");