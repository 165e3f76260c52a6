CREATE TABLE "printer_group" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"max_starts" integer NOT NULL,
	"per_seconds" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "printer_group_name_unique" UNIQUE("name")
);
--> statement-breakpoint
ALTER TABLE "printer" ADD COLUMN "materials" jsonb DEFAULT '["PLA","PETG","ABS","ASA","TPU","Nylon"]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "printer" ADD COLUMN "enclosed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "printer" ADD COLUMN "group_id" uuid;--> statement-breakpoint
ALTER TABLE "printer" ADD COLUMN "slicer_profile" jsonb;--> statement-breakpoint
ALTER TABLE "printer" ADD COLUMN "attention" text;--> statement-breakpoint
ALTER TABLE "printer" ADD COLUMN "attention_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "printer" ADD CONSTRAINT "printer_group_id_printer_group_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."printer_group"("id") ON DELETE set null ON UPDATE no action;