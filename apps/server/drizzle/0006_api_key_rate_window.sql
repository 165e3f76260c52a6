-- UNLOGGED: rate-limit counters need no crash safety, and commits touching only them do not wait for a WAL flush.
CREATE UNLOGGED TABLE "api_key_rate_window" (
	"key_id" uuid PRIMARY KEY NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"count" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_key_rate_window" ADD CONSTRAINT "api_key_rate_window_key_id_api_key_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_key"("id") ON DELETE cascade ON UPDATE no action;