CREATE TABLE "callback_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"callback_id" text NOT NULL,
	"attempt_no" integer NOT NULL,
	"started_at" bigint NOT NULL,
	"duration_ms" integer NOT NULL,
	"status_code" integer,
	"error" text,
	"response_excerpt" text
);
--> statement-breakpoint
CREATE TABLE "callbacks" (
	"id" text NOT NULL,
	"lead_key" bigint PRIMARY KEY NOT NULL,
	"lead_id" text NOT NULL,
	"vendor_id" text NOT NULL,
	"url" text NOT NULL,
	"status" text NOT NULL,
	"payload" text,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" bigint,
	"locked_until" bigint,
	"claim_token" text,
	"last_error" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"delivered_at" bigint
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"vendor_id" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"lead_id" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "idempotency_keys_vendor_id_key_pk" PRIMARY KEY("vendor_id","key")
);
--> statement-breakpoint
CREATE TABLE "leads" (
	"id_key" bigint PRIMARY KEY NOT NULL,
	"id" text NOT NULL,
	"vendor_id" text NOT NULL,
	"phone_e164" text NOT NULL,
	"customer_name" text NOT NULL,
	"state" text NOT NULL,
	"city" text NOT NULL,
	"zip" text NOT NULL,
	"street" text NOT NULL,
	"certificate_url" text,
	"dm_name" text NOT NULL,
	"utility" text NOT NULL,
	"call_back_url" text,
	"mailing_street" text NOT NULL,
	"mailing_city" text NOT NULL,
	"mailing_zip" text NOT NULL,
	"mailing_state" text NOT NULL,
	"vendor_campaign_name" text NOT NULL,
	"email" text NOT NULL,
	"extra_data" text,
	"raw_request" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"created_at" bigint NOT NULL,
	"decide_after" bigint NOT NULL,
	"decided_at" bigint,
	"rejection_reason" text,
	"operator_decision" text,
	"operator_reason" text,
	"locked_until" bigint,
	"claim_token" text
);
--> statement-breakpoint
CREATE TABLE "phone_claims" (
	"phone_number" bigint PRIMARY KEY NOT NULL,
	"lead_id" text NOT NULL,
	"claimed_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "suppressions" (
	"phone_e164" text PRIMARY KEY NOT NULL,
	"reason" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "vendors" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"password_hash" text NOT NULL,
	"signing_secret" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "vendors_name_unique" UNIQUE("name")
);
--> statement-breakpoint
ALTER TABLE "leads" ADD CONSTRAINT "leads_vendor_id_vendors_id_fk" FOREIGN KEY ("vendor_id") REFERENCES "public"."vendors"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "callback_attempts_callback" ON "callback_attempts" USING btree ("callback_id");--> statement-breakpoint
CREATE INDEX "callbacks_due" ON "callbacks" USING btree ("next_attempt_at") WHERE "callbacks"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "callbacks_dead" ON "callbacks" USING btree ("updated_at") WHERE "callbacks"."status" = 'dead';--> statement-breakpoint
CREATE INDEX "idempotency_created" ON "idempotency_keys" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "leads_status_decide_after" ON "leads" USING btree ("status","decide_after");--> statement-breakpoint
CREATE INDEX "leads_vendor_created" ON "leads" USING btree ("vendor_id","created_at");