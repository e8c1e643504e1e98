CREATE INDEX "leads_phone" ON "leads" USING btree (CAST("phone_e164" AS bigint));--> statement-breakpoint
CREATE INDEX "leads_campaign" ON "leads" USING btree ("vendor_campaign_name","id_key");