PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_phone_claims` (
	`phone_number` integer PRIMARY KEY NOT NULL,
	`lead_id` text NOT NULL,
	`claimed_at` integer NOT NULL
);
--> statement-breakpoint
-- Edited from drizzle-kit's output, which cannot know the new key is the old one's digits: "+12125550123" → 12125550123.
INSERT INTO `__new_phone_claims`("phone_number", "lead_id", "claimed_at") SELECT CAST(substr("phone_e164", 2) AS INTEGER), "lead_id", "claimed_at" FROM `phone_claims`;--> statement-breakpoint
DROP TABLE `phone_claims`;--> statement-breakpoint
ALTER TABLE `__new_phone_claims` RENAME TO `phone_claims`;--> statement-breakpoint
PRAGMA foreign_keys=ON;