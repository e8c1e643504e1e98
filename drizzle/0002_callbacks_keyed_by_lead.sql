PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_callbacks` (
	`id` text NOT NULL,
	`lead_id` text PRIMARY KEY NOT NULL,
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
INSERT INTO `__new_callbacks`("id", "lead_id", "vendor_id", "url", "status", "payload", "attempt_count", "next_attempt_at", "locked_until", "claim_token", "last_error", "created_at", "updated_at", "delivered_at") SELECT "id", "lead_id", "vendor_id", "url", "status", "payload", "attempt_count", "next_attempt_at", "locked_until", "claim_token", "last_error", "created_at", "updated_at", "delivered_at" FROM `callbacks`;--> statement-breakpoint
DROP TABLE `callbacks`;--> statement-breakpoint
ALTER TABLE `__new_callbacks` RENAME TO `callbacks`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `callbacks_due` ON `callbacks` (`next_attempt_at`) WHERE "callbacks"."status" = 'pending';