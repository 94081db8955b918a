CREATE TABLE "outbox" (
	"run_id" text PRIMARY KEY NOT NULL,
	"available_at" bigint NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "lease_token" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "followup_at" text;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "activity_seq" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "runs_followup_idx" ON "runs" USING btree ("followup_at") WHERE followup_at is not null;