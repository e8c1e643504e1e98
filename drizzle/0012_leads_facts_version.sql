ALTER TABLE `leads` ADD `facts_version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE TRIGGER `suppressions_added_change_lead_facts` AFTER INSERT ON `suppressions` BEGIN
  UPDATE `leads` SET `facts_version` = `facts_version` + 1 WHERE CAST(`phone_e164` AS INTEGER) = CAST(NEW.`phone_e164` AS INTEGER) AND `status` = 'pending';
END;--> statement-breakpoint
CREATE TRIGGER `suppressions_removed_change_lead_facts` AFTER DELETE ON `suppressions` BEGIN
  UPDATE `leads` SET `facts_version` = `facts_version` + 1 WHERE CAST(`phone_e164` AS INTEGER) = CAST(OLD.`phone_e164` AS INTEGER) AND `status` = 'pending';
END;
