CREATE TABLE "cap_usage" (
	"cap_name" text NOT NULL,
	"bucket" text NOT NULL,
	"window_start" bigint NOT NULL,
	"window_end" bigint NOT NULL,
	"used" integer NOT NULL,
	CONSTRAINT "cap_usage_cap_name_bucket_window_start_pk" PRIMARY KEY("cap_name","bucket","window_start")
);
--> statement-breakpoint
CREATE INDEX "cap_usage_window_end" ON "cap_usage" USING btree ("window_end");