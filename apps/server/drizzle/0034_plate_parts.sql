DROP INDEX "print_job_one_per_printer_idx";--> statement-breakpoint
ALTER TABLE "print_job" ADD COLUMN "plate_lead_id" uuid;--> statement-breakpoint
ALTER TABLE "print_job" ADD COLUMN "plate_index" integer;--> statement-breakpoint
CREATE INDEX "print_job_plate_lead_idx" ON "print_job" USING btree ("plate_lead_id");--> statement-breakpoint
CREATE UNIQUE INDEX "print_job_one_per_printer_idx" ON "print_job" USING btree ("printer_id") WHERE "print_job"."status" IN ('assigned', 'uploading', 'printing') AND "print_job"."plate_lead_id" IS NULL;