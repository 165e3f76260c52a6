CREATE TABLE "storage_reservation" (
	"id" uuid PRIMARY KEY NOT NULL,
	"owner_id" text NOT NULL,
	"bytes" bigint NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "storage_reservation" ADD CONSTRAINT "storage_reservation_owner_id_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "storage_reservation_owner_idx" ON "storage_reservation" USING btree ("owner_id");--> statement-breakpoint
-- Names stored before names were cleaned (docs/storage.md, "File names"): controls, bidi and zero-width characters removed, and the file name's extension made the sniffed format's. Downloads clean again with the full Unicode classes.
UPDATE "design" SET "name" = coalesce(nullif(btrim(regexp_replace("name", '[\u0001-\u001f\u007f-\u009f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000e0001-\U000e007f]', '', 'g')), ''), 'model')
  WHERE "name" ~ '[\u0001-\u001f\u007f-\u009f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000e0001-\U000e007f]';--> statement-breakpoint
UPDATE "design" SET "file_name" = coalesce(nullif(btrim(regexp_replace("file_name", '[\u0001-\u001f\u007f-\u009f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000e0001-\U000e007f]', '', 'g')), ''), 'model')
  WHERE "file_name" ~ '[\u0001-\u001f\u007f-\u009f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000e0001-\U000e007f]';--> statement-breakpoint
UPDATE "design" SET "file_name" = CASE
    WHEN "file_name" ~* '[^.]\.(stl|obj|3mf)$' THEN left(regexp_replace("file_name", '\.[^.]*$', ''), 199 - length("format")) || '.' || "format"
    ELSE left("file_name", 199 - length("format")) || '.' || "format"
  END
  WHERE lower("file_name") NOT LIKE '%_.' || "format";
