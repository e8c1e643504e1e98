CREATE TABLE "lead_findings" (
	"lead_id" text NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"outcome" text NOT NULL,
	"reason" text,
	"detail" text,
	"raw" text,
	"attempts" integer NOT NULL,
	"first_at" bigint NOT NULL,
	"checked_at" bigint,
	"next_at" bigint NOT NULL,
	CONSTRAINT "lead_findings_lead_id_kind_name_pk" PRIMARY KEY("lead_id","kind","name")
);
