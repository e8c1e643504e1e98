CREATE TABLE `refusals` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`vendor_id` text NOT NULL,
	`campaign` text,
	`phone_masked` text,
	`status` integer NOT NULL,
	`reasons` text NOT NULL,
	`request_id` text NOT NULL,
	`refused_by` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `refusals_at` ON `refusals` (`at`);--> statement-breakpoint
CREATE INDEX `refusals_vendor_at` ON `refusals` (`vendor_id`,`at`);