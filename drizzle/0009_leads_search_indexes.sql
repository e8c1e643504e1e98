CREATE INDEX `leads_phone` ON `leads` (CAST("phone_e164" AS INTEGER));--> statement-breakpoint
CREATE INDEX `leads_campaign` ON `leads` (`vendor_campaign_name`,`id_key`);