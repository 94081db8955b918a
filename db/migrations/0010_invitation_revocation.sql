ALTER TABLE `invitations` ADD `revoked_at` text;--> statement-breakpoint
ALTER TABLE `invitations` ADD `revoked_by` text;