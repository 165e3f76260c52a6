ALTER TABLE "charge" ADD COLUMN "customer_id" text;--> statement-breakpoint
ALTER TABLE "charge" ADD COLUMN "payment_method_id" text;