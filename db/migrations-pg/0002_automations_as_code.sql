ALTER TABLE "automations" ADD COLUMN "key" text;--> statement-breakpoint
ALTER TABLE "automations" ADD COLUMN "source" json;--> statement-breakpoint
ALTER TABLE "intakes" ADD COLUMN "key" text;--> statement-breakpoint
ALTER TABLE "intakes" ADD COLUMN "source" json;--> statement-breakpoint
ALTER TABLE "lines" ADD COLUMN "key" text;--> statement-breakpoint
ALTER TABLE "lines" ADD COLUMN "source" json;--> statement-breakpoint
CREATE UNIQUE INDEX "automations_key_idx" ON "automations" USING btree ("workspace_id","key");--> statement-breakpoint
CREATE UNIQUE INDEX "intakes_key_idx" ON "intakes" USING btree ("workspace_id","key");--> statement-breakpoint
CREATE UNIQUE INDEX "lines_key_idx" ON "lines" USING btree ("workspace_id","key");