CREATE TABLE "refusals" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" bigint NOT NULL,
	"vendor_id" text NOT NULL,
	"campaign" text,
	"phone_masked" text,
	"status" integer NOT NULL,
	"reasons" text NOT NULL,
	"request_id" text NOT NULL,
	"refused_by" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "refusals_at" ON "refusals" USING btree ("at");--> statement-breakpoint
CREATE INDEX "refusals_vendor_at" ON "refusals" USING btree ("vendor_id","at");