CREATE TABLE `webhook_signatures` (
	`intake_id` text NOT NULL,
	`signature` text NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`intake_id`, `signature`)
);
--> statement-breakpoint
CREATE INDEX `webhook_signatures_expires_idx` ON `webhook_signatures` (`expires_at`);