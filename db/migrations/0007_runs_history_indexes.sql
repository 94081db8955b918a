DROP INDEX `runs_workspace_created_idx`;--> statement-breakpoint
DROP INDEX `runs_status_automation_idx`;--> statement-breakpoint
CREATE INDEX `runs_workspace_status_idx` ON `runs` (`workspace_id`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `runs_event_idx` ON `runs` (`event_id`);--> statement-breakpoint
CREATE INDEX `runs_workspace_created_idx` ON `runs` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `runs_status_automation_idx` ON `runs` (`status`,`automation_id`,`created_at`,`id`);