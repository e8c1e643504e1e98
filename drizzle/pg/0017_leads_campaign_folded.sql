ALTER TABLE "leads" ADD COLUMN "campaign_folded" text;--> statement-breakpoint
-- Edited from drizzle-kit's output, which cannot fold as the policy does (JavaScript's toLowerCase, contract/campaigns.ts):
-- the leads still in their hold, the only ones a final-stage check may ask about, get SQL's lower(), which folds by the
-- database's locale: those compare as before this migration, and are decided within their hold. Leads stored since are
-- folded at intake; leads decided before it keep none (nothing reads it after the decision).
UPDATE "leads" SET "campaign_folded" = lower("vendor_campaign_name") WHERE "status" = 'pending';
