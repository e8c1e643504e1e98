CREATE TABLE "paused_endpoints" (
	"endpoint" text PRIMARY KEY NOT NULL,
	"vendor_id" text NOT NULL,
	"target" text NOT NULL,
	"failures" integer NOT NULL,
	"last_error" text,
	"paused_at" bigint NOT NULL,
	"paused_until" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "callbacks" ADD COLUMN "discarded_at" bigint;--> statement-breakpoint
CREATE INDEX "callbacks_dead_waiting" ON "callbacks" USING btree ("updated_at") WHERE "callbacks"."status" = 'dead' AND "callbacks"."discarded_at" IS NULL;