CREATE TABLE "slicing_turn" (
	"owner_key" text PRIMARY KEY NOT NULL,
	"last_tag" bigint NOT NULL
);
