CREATE TABLE `callback_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`callback_id` text NOT NULL,
	`attempt_no` integer NOT NULL,
	`started_at` integer NOT NULL,
	`duration_ms` integer NOT NULL,
	`status_code` integer,
	`error` text,
	`response_excerpt` text
);
--> statement-breakpoint
CREATE INDEX `callback_attempts_callback` ON `callback_attempts` (`callback_id`);--> statement-breakpoint
CREATE TABLE `callbacks` (
	`id` text PRIMARY KEY NOT NULL,
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
CREATE UNIQUE INDEX `callbacks_lead_id_unique` ON `callbacks` (`lead_id`);--> statement-breakpoint
CREATE INDEX `callbacks_status_next` ON `callbacks` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`vendor_id` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`lead_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`vendor_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_created` ON `idempotency_keys` (`created_at`);--> statement-breakpoint
CREATE TABLE `leads` (
	`id` text PRIMARY KEY NOT NULL,
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
CREATE INDEX `leads_status_decide_after` ON `leads` (`status`,`decide_after`);--> statement-breakpoint
CREATE INDEX `leads_vendor_created` ON `leads` (`vendor_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `leads_phone` ON `leads` (`phone_e164`);--> statement-breakpoint
CREATE TABLE `phone_claims` (
	`phone_e164` text PRIMARY KEY NOT NULL,
	`lead_id` text NOT NULL,
	`claimed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `suppressions` (
	`phone_e164` text PRIMARY KEY NOT NULL,
	`reason` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `vendors` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`password_hash` text NOT NULL,
	`signing_secret` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `vendors_name_unique` ON `vendors` (`name`);