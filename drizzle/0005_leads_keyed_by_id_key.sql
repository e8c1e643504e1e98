PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_callbacks` (
	`id` text NOT NULL,
	`lead_key` integer PRIMARY KEY NOT NULL,
	`lead_id` text NOT NULL,
	`vendor_id` text NOT NULL,
	`url` text NOT NULL,
	`status` text NOT NULL,
	`payload` text,
	`attempt_count` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`locked_until` integer,
	`claim_token` text,
	`last_error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`delivered_at` integer
);
--> statement-breakpoint
-- Edited from drizzle-kit's output, which cannot know the new keys: a lead's key is the first 64 bits of its
-- UUIDv7 id (hex digits 1-16, dashes skipped) as a signed integer, as leadKey() computes it.
INSERT INTO `__new_callbacks`("id", "lead_key", "lead_id", "vendor_id", "url", "status", "payload", "attempt_count", "next_attempt_at", "locked_until", "claim_token", "last_error", "created_at", "updated_at", "delivered_at") SELECT "id", (((instr('0123456789abcdef', lower(substr("lead_id", 1, 1))) - 1) << 60) | ((instr('0123456789abcdef', lower(substr("lead_id", 2, 1))) - 1) << 56) | ((instr('0123456789abcdef', lower(substr("lead_id", 3, 1))) - 1) << 52) | ((instr('0123456789abcdef', lower(substr("lead_id", 4, 1))) - 1) << 48) | ((instr('0123456789abcdef', lower(substr("lead_id", 5, 1))) - 1) << 44) | ((instr('0123456789abcdef', lower(substr("lead_id", 6, 1))) - 1) << 40) | ((instr('0123456789abcdef', lower(substr("lead_id", 7, 1))) - 1) << 36) | ((instr('0123456789abcdef', lower(substr("lead_id", 8, 1))) - 1) << 32) | ((instr('0123456789abcdef', lower(substr("lead_id", 10, 1))) - 1) << 28) | ((instr('0123456789abcdef', lower(substr("lead_id", 11, 1))) - 1) << 24) | ((instr('0123456789abcdef', lower(substr("lead_id", 12, 1))) - 1) << 20) | ((instr('0123456789abcdef', lower(substr("lead_id", 13, 1))) - 1) << 16) | ((instr('0123456789abcdef', lower(substr("lead_id", 15, 1))) - 1) << 12) | ((instr('0123456789abcdef', lower(substr("lead_id", 16, 1))) - 1) << 8) | ((instr('0123456789abcdef', lower(substr("lead_id", 17, 1))) - 1) << 4) | ((instr('0123456789abcdef', lower(substr("lead_id", 18, 1))) - 1) << 0)), "lead_id", "vendor_id", "url", "status", "payload", "attempt_count", "next_attempt_at", "locked_until", "claim_token", "last_error", "created_at", "updated_at", "delivered_at" FROM `callbacks`;--> statement-breakpoint
DROP TABLE `callbacks`;--> statement-breakpoint
ALTER TABLE `__new_callbacks` RENAME TO `callbacks`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `callbacks_due` ON `callbacks` (`next_attempt_at`) WHERE "callbacks"."status" = 'pending';--> statement-breakpoint
CREATE INDEX `callbacks_dead` ON `callbacks` (`updated_at`) WHERE "callbacks"."status" = 'dead';--> statement-breakpoint
CREATE TABLE `__new_leads` (
	`id_key` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`vendor_id` text NOT NULL,
	`phone_e164` text NOT NULL,
	`customer_name` text NOT NULL,
	`state` text NOT NULL,
	`city` text NOT NULL,
	`zip` text NOT NULL,
	`street` text NOT NULL,
	`certificate_url` text,
	`dm_name` text NOT NULL,
	`utility` text NOT NULL,
	`call_back_url` text,
	`mailing_street` text NOT NULL,
	`mailing_city` text NOT NULL,
	`mailing_zip` text NOT NULL,
	`mailing_state` text NOT NULL,
	`vendor_campaign_name` text NOT NULL,
	`email` text NOT NULL,
	`extra_data` text,
	`raw_request` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`created_at` integer NOT NULL,
	`decide_after` integer NOT NULL,
	`decided_at` integer,
	`rejection_reason` text,
	`operator_decision` text,
	`operator_reason` text,
	`locked_until` integer,
	`claim_token` text,
	FOREIGN KEY (`vendor_id`) REFERENCES `vendors`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
-- Edited from drizzle-kit's output, which cannot know the new keys: a lead's key is the first 64 bits of its
-- UUIDv7 id (hex digits 1-16, dashes skipped) as a signed integer, as leadKey() computes it.
INSERT INTO `__new_leads`("id_key", "id", "vendor_id", "phone_e164", "customer_name", "state", "city", "zip", "street", "certificate_url", "dm_name", "utility", "call_back_url", "mailing_street", "mailing_city", "mailing_zip", "mailing_state", "vendor_campaign_name", "email", "extra_data", "raw_request", "status", "created_at", "decide_after", "decided_at", "rejection_reason", "operator_decision", "operator_reason", "locked_until", "claim_token") SELECT (((instr('0123456789abcdef', lower(substr("id", 1, 1))) - 1) << 60) | ((instr('0123456789abcdef', lower(substr("id", 2, 1))) - 1) << 56) | ((instr('0123456789abcdef', lower(substr("id", 3, 1))) - 1) << 52) | ((instr('0123456789abcdef', lower(substr("id", 4, 1))) - 1) << 48) | ((instr('0123456789abcdef', lower(substr("id", 5, 1))) - 1) << 44) | ((instr('0123456789abcdef', lower(substr("id", 6, 1))) - 1) << 40) | ((instr('0123456789abcdef', lower(substr("id", 7, 1))) - 1) << 36) | ((instr('0123456789abcdef', lower(substr("id", 8, 1))) - 1) << 32) | ((instr('0123456789abcdef', lower(substr("id", 10, 1))) - 1) << 28) | ((instr('0123456789abcdef', lower(substr("id", 11, 1))) - 1) << 24) | ((instr('0123456789abcdef', lower(substr("id", 12, 1))) - 1) << 20) | ((instr('0123456789abcdef', lower(substr("id", 13, 1))) - 1) << 16) | ((instr('0123456789abcdef', lower(substr("id", 15, 1))) - 1) << 12) | ((instr('0123456789abcdef', lower(substr("id", 16, 1))) - 1) << 8) | ((instr('0123456789abcdef', lower(substr("id", 17, 1))) - 1) << 4) | ((instr('0123456789abcdef', lower(substr("id", 18, 1))) - 1) << 0)), "id", "vendor_id", "phone_e164", "customer_name", "state", "city", "zip", "street", "certificate_url", "dm_name", "utility", "call_back_url", "mailing_street", "mailing_city", "mailing_zip", "mailing_state", "vendor_campaign_name", "email", "extra_data", "raw_request", "status", "created_at", "decide_after", "decided_at", "rejection_reason", "operator_decision", "operator_reason", "locked_until", "claim_token" FROM `leads`;--> statement-breakpoint
DROP TABLE `leads`;--> statement-breakpoint
ALTER TABLE `__new_leads` RENAME TO `leads`;--> statement-breakpoint
CREATE INDEX `leads_status_decide_after` ON `leads` (`status`,`decide_after`);--> statement-breakpoint
CREATE INDEX `leads_vendor_created` ON `leads` (`vendor_id`,`created_at`);