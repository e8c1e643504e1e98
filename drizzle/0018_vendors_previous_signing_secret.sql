ALTER TABLE `vendors` ADD `previous_signing_secret` text;--> statement-breakpoint
ALTER TABLE `vendors` ADD `previous_secret_until` integer;