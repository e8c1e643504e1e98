ALTER TABLE "leads" ADD COLUMN "facts_version" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE FUNCTION "suppressions_change_lead_facts"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  listed_phone text := CASE WHEN TG_OP = 'DELETE' THEN OLD.phone_e164 ELSE NEW.phone_e164 END;
BEGIN
  UPDATE leads SET facts_version = facts_version + 1 WHERE CAST(phone_e164 AS bigint) = CAST(listed_phone AS bigint) AND status = 'pending';
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "suppressions_change_lead_facts" AFTER INSERT OR DELETE ON "suppressions" FOR EACH ROW EXECUTE FUNCTION "suppressions_change_lead_facts"();
