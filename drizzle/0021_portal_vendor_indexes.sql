DROP INDEX `leads_vendor_created`;--> statement-breakpoint
CREATE INDEX `leads_vendor_key` ON `leads` (`vendor_id`,`id_key`);--> statement-breakpoint
CREATE INDEX `callbacks_vendor_delivered` ON `callbacks` (`vendor_id`,`lead_key`) WHERE "callbacks"."status" = 'delivered';