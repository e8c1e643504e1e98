CREATE TABLE "policy" (
	"id" integer PRIMARY KEY NOT NULL,
	"version" bigint NOT NULL,
	"document" text NOT NULL,
	"updated_at" bigint NOT NULL,
	"updated_by" text NOT NULL
);
