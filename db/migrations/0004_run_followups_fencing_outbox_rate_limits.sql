CREATE TABLE `outbox` (
	`run_id` text PRIMARY KEY NOT NULL,
	`available_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `rate_limits` (
	`key` text PRIMARY KEY NOT NULL,
	`window_start` integer NOT NULL,
	`count` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `tasks` ADD `activity_seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `jobs` ADD `lease_token` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `followup_at` text;--> statement-breakpoint
CREATE INDEX `runs_followup_idx` ON `runs` (`followup_at`) WHERE followup_at is not null;--> statement-breakpoint
UPDATE `tasks` SET `activity_seq` = (SELECT coalesce(max(`seq`), 0) FROM `task_activity` WHERE `task_id` = `tasks`.`id`);
