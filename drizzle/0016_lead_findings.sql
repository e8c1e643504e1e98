CREATE TABLE `lead_findings` (
	`lead_id` text NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`outcome` text NOT NULL,
	`reason` text,
	`detail` text,
	`raw` text,
	`attempts` integer NOT NULL,
	`first_at` integer NOT NULL,
	`checked_at` integer,
	`next_at` integer NOT NULL,
	PRIMARY KEY(`lead_id`, `kind`, `name`)
);
