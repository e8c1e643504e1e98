ALTER TABLE "vendors" ADD COLUMN "previous_signing_secret" text;--> statement-breakpoint
ALTER TABLE "vendors" ADD COLUMN "previous_secret_until" bigint;