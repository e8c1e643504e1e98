CREATE TABLE "outcome_counts" (
	"bucket_ms" integer NOT NULL,
	"bucket_at" bigint NOT NULL,
	"vendor_id" text NOT NULL,
	"kind" text NOT NULL,
	"count" bigint NOT NULL,
	"total_ms" bigint NOT NULL,
	CONSTRAINT "outcome_counts_bucket_ms_bucket_at_vendor_id_kind_pk" PRIMARY KEY("bucket_ms","bucket_at","vendor_id","kind")
);
