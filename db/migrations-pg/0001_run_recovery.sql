ALTER TABLE "run_steps" ADD COLUMN "origin" json;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "mode" text DEFAULT 'production' NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "test" json;--> statement-breakpoint
CREATE UNIQUE INDEX "runs_retry_of_idx" ON "runs" USING btree ("retry_of") WHERE retry_of is not null;