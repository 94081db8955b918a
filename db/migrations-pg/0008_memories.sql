CREATE TABLE "memories" (
	"workspace_id" text NOT NULL,
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"value" json NOT NULL,
	"stored_by" json NOT NULL,
	"stored_at" text NOT NULL,
	"expires_at" text NOT NULL,
	CONSTRAINT "memories_workspace_id_scope_key_pk" PRIMARY KEY("workspace_id","scope","key")
);
--> statement-breakpoint
ALTER TABLE "memories" ADD CONSTRAINT "memories_workspace_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "memories_expires_idx" ON "memories" USING btree ("expires_at");