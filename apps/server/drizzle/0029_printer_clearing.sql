ALTER TABLE "printer" ADD COLUMN "clearing" jsonb DEFAULT '{"kind":"person"}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "printer" ADD COLUMN "unattended_plates" integer DEFAULT 0 NOT NULL;