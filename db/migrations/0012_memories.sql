CREATE TABLE `memories` (
	`workspace_id` text NOT NULL,
	`scope` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	`stored_by` text NOT NULL,
	`stored_at` text NOT NULL,
	`expires_at` text NOT NULL,
	PRIMARY KEY(`workspace_id`, `scope`, `key`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `memories_expires_idx` ON `memories` (`expires_at`);