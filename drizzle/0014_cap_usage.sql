CREATE TABLE `cap_usage` (
	`cap_name` text NOT NULL,
	`bucket` text NOT NULL,
	`window_start` integer NOT NULL,
	`window_end` integer NOT NULL,
	`used` integer NOT NULL,
	PRIMARY KEY(`cap_name`, `bucket`, `window_start`)
);
--> statement-breakpoint
CREATE INDEX `cap_usage_window_end` ON `cap_usage` (`window_end`);