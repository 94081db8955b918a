ALTER TABLE `intakes` ADD `refused_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `intakes` ADD `last_refused` text;