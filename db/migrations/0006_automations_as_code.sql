ALTER TABLE `intakes` ADD `key` text;--> statement-breakpoint
ALTER TABLE `intakes` ADD `source` text;--> statement-breakpoint
CREATE UNIQUE INDEX `intakes_key_idx` ON `intakes` (`workspace_id`,`key`);--> statement-breakpoint
ALTER TABLE `lines` ADD `key` text;--> statement-breakpoint
ALTER TABLE `lines` ADD `source` text;--> statement-breakpoint
CREATE UNIQUE INDEX `lines_key_idx` ON `lines` (`workspace_id`,`key`);--> statement-breakpoint
ALTER TABLE `automations` ADD `key` text;--> statement-breakpoint
ALTER TABLE `automations` ADD `source` text;--> statement-breakpoint
CREATE UNIQUE INDEX `automations_key_idx` ON `automations` (`workspace_id`,`key`);