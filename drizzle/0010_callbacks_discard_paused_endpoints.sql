CREATE TABLE `paused_endpoints` (
	`endpoint` text PRIMARY KEY NOT NULL,
	`vendor_id` text NOT NULL,
	`target` text NOT NULL,
	`failures` integer NOT NULL,
	`last_error` text,
	`paused_at` integer NOT NULL,
	`paused_until` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `callbacks` ADD `discarded_at` integer;--> statement-breakpoint
CREATE INDEX `callbacks_dead_waiting` ON `callbacks` (`updated_at`) WHERE "callbacks"."status" = 'dead' AND "callbacks"."discarded_at" IS NULL;