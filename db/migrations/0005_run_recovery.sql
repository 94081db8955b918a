ALTER TABLE `run_steps` ADD `origin` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `mode` text DEFAULT 'production' NOT NULL;--> statement-breakpoint
ALTER TABLE `runs` ADD `test` text;--> statement-breakpoint
CREATE UNIQUE INDEX `runs_retry_of_idx` ON `runs` (`retry_of`) WHERE retry_of is not null;