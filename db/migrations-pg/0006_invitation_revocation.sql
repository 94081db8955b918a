ALTER TABLE "invitations" ADD COLUMN "revoked_at" text;--> statement-breakpoint
ALTER TABLE "invitations" ADD COLUMN "revoked_by" text;