DROP INDEX "audit_log_created_at_idx";--> statement-breakpoint
CREATE INDEX "audit_log_created_id_idx" ON "audit_log" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "contact_message_created_id_idx" ON "contact_message" USING btree ("created_at","id");