ALTER TABLE "intakes" ADD COLUMN "refused_count" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "intakes" ADD COLUMN "last_refused" json;