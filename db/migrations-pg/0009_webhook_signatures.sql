CREATE TABLE "webhook_signatures" (
	"intake_id" text NOT NULL,
	"signature" text NOT NULL,
	"expires_at" bigint NOT NULL,
	CONSTRAINT "webhook_signatures_intake_id_signature_pk" PRIMARY KEY("intake_id","signature")
);
--> statement-breakpoint
CREATE INDEX "webhook_signatures_expires_idx" ON "webhook_signatures" USING btree ("expires_at");