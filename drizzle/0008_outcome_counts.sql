CREATE TABLE `outcome_counts` (
	`bucket_ms` integer NOT NULL,
	`bucket_at` integer NOT NULL,
	`vendor_id` text NOT NULL,
	`kind` text NOT NULL,
	`count` integer NOT NULL,
	`total_ms` integer NOT NULL,
	PRIMARY KEY(`bucket_ms`, `bucket_at`, `vendor_id`, `kind`)
);
