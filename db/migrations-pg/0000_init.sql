CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"name" text NOT NULL,
	"prefix" text NOT NULL,
	"hash" text NOT NULL,
	"role" text NOT NULL,
	"workspace_ids" json,
	"created_by" text,
	"created_at" text NOT NULL,
	"last_used_at" text,
	"expires_at" text,
	"revoked_at" text
);
--> statement-breakpoint
CREATE TABLE "audit_log" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"workspace_id" text,
	"actor" text NOT NULL,
	"action" text NOT NULL,
	"target" text,
	"data" json,
	"at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "automation_versions" (
	"id" text PRIMARY KEY NOT NULL,
	"automation_id" text NOT NULL,
	"version" bigint NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"graph" json NOT NULL,
	"created_by" text,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "automations" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"concurrency" bigint DEFAULT 5 NOT NULL,
	"version" bigint DEFAULT 1 NOT NULL,
	"graph" json NOT NULL,
	"error_handler_id" text,
	"problems" json,
	"created_by" text,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "connections" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"integration" text NOT NULL,
	"name" text NOT NULL,
	"config" json NOT NULL,
	"secrets_enc" text,
	"tokens_enc" text,
	"token_version" bigint DEFAULT 0 NOT NULL,
	"token_expires_at" bigint,
	"refresh_lock_owner" text,
	"refresh_lock_until" bigint,
	"state" json NOT NULL,
	"status" text NOT NULL,
	"status_message" text,
	"created_by" text,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"intake_id" text,
	"automation_id" text,
	"node_id" text,
	"dedupe_scope" text,
	"dedupe_key" text,
	"type" text NOT NULL,
	"envelope" json NOT NULL,
	"source" text NOT NULL,
	"received_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"api_key_id" text NOT NULL,
	"key" text NOT NULL,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"body_hash" text NOT NULL,
	"status" bigint NOT NULL,
	"response" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "idempotency_keys_api_key_id_key_pk" PRIMARY KEY("api_key_id","key")
);
--> statement-breakpoint
CREATE TABLE "intakes" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"kind" text NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"token" text NOT NULL,
	"automation_id" text,
	"node_id" text,
	"connection_id" text,
	"line_id" text,
	"secret_enc" text,
	"config" json,
	"status" text DEFAULT 'active' NOT NULL,
	"status_message" text,
	"last_event_at" text,
	"event_count" bigint DEFAULT 0 NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "invitations" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"email" text,
	"role" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_by" text NOT NULL,
	"created_at" text NOT NULL,
	"expires_at" text NOT NULL,
	"accepted_at" text,
	"accepted_by" text
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"run_id" text,
	"step_id" text,
	"automation_id" text,
	"payload" json,
	"status" text NOT NULL,
	"available_at" bigint NOT NULL,
	"lease_owner" text,
	"lease_token" text,
	"lease_until" bigint,
	"attempts" bigint DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lines" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"name" text NOT NULL,
	"steps" json NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "memberships" (
	"organization_id" text NOT NULL,
	"user_id" text NOT NULL,
	"role" text NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "memberships_organization_id_user_id_pk" PRIMARY KEY("organization_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "oauth_states" (
	"state" text PRIMARY KEY NOT NULL,
	"connection_id" text NOT NULL,
	"user_id" text NOT NULL,
	"code_verifier" text,
	"redirect_uri" text NOT NULL,
	"return_to" text,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "outbox" (
	"run_id" text PRIMARY KEY NOT NULL,
	"available_at" bigint NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_limits" (
	"key" text PRIMARY KEY NOT NULL,
	"window_start" bigint NOT NULL,
	"count" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "run_steps" (
	"id" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"node_id" text NOT NULL,
	"name" text NOT NULL,
	"key" text NOT NULL,
	"parent_step_id" text,
	"status" text NOT NULL,
	"input" json,
	"output" json,
	"state" json,
	"attempts" json NOT NULL,
	"logs" json NOT NULL,
	"error" text,
	"created_at" text NOT NULL,
	"started_at" text,
	"finished_at" text
);
--> statement-breakpoint
CREATE TABLE "runs" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"automation_id" text NOT NULL,
	"version" bigint NOT NULL,
	"status" text NOT NULL,
	"trigger_node_id" text NOT NULL,
	"event_id" text NOT NULL,
	"task_id" text,
	"task_step" bigint,
	"retry_of" text,
	"error" json,
	"followup_at" text,
	"created_at" text NOT NULL,
	"started_at" text,
	"finished_at" text,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" json NOT NULL,
	"updated_at" text NOT NULL,
	"updated_by" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sign_in_limits" (
	"subject" text PRIMARY KEY NOT NULL,
	"window_start" bigint NOT NULL,
	"attempts" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "task_activity" (
	"id" text PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"at" text NOT NULL,
	"kind" text NOT NULL,
	"run_id" text,
	"step_index" bigint,
	"message" text DEFAULT '' NOT NULL,
	"actor" text,
	"data" json
);
--> statement-breakpoint
CREATE TABLE "tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"line_id" text NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"data" json,
	"status" text NOT NULL,
	"outcome" text,
	"current_step" bigint,
	"created_by" text,
	"intake_id" text,
	"activity_seq" bigint DEFAULT 0 NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL,
	"closed_at" text
);
--> statement-breakpoint
CREATE TABLE "usage_counters" (
	"workspace_id" text NOT NULL,
	"bucket" text NOT NULL,
	"metric" text NOT NULL,
	"value" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_counters_workspace_id_bucket_metric_pk" PRIMARY KEY("workspace_id","bucket","metric")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"password_hash" text,
	"created_at" text NOT NULL,
	"last_sign_in_at" text
);
--> statement-breakpoint
CREATE TABLE "webhook_registration_users" (
	"registration_id" text NOT NULL,
	"automation_id" text NOT NULL,
	"node_id" text NOT NULL,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_registrations" (
	"id" text PRIMARY KEY NOT NULL,
	"connection_id" text NOT NULL,
	"key" text NOT NULL,
	"upstream_id" text NOT NULL,
	"expires_at" text,
	"data" json,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workspaces" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"name" text NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "automation_versions" ADD CONSTRAINT "automation_versions_automation_id_fk" FOREIGN KEY ("automation_id") REFERENCES "public"."automations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "automations" ADD CONSTRAINT "automations_workspace_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "connections" ADD CONSTRAINT "connections_workspace_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "intakes" ADD CONSTRAINT "intakes_workspace_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lines" ADD CONSTRAINT "lines_workspace_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_states" ADD CONSTRAINT "oauth_states_connection_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "run_steps" ADD CONSTRAINT "run_steps_run_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_activity" ADD CONSTRAINT "task_activity_task_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_workspace_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_line_id_fk" FOREIGN KEY ("line_id") REFERENCES "public"."lines"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_registration_users" ADD CONSTRAINT "webhook_registration_users_registration_id_fk" FOREIGN KEY ("registration_id") REFERENCES "public"."webhook_registrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_registrations" ADD CONSTRAINT "webhook_registrations_connection_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspaces" ADD CONSTRAINT "workspaces_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash_idx" ON "api_keys" USING btree ("hash");--> statement-breakpoint
CREATE INDEX "api_keys_prefix_idx" ON "api_keys" USING btree ("prefix");--> statement-breakpoint
CREATE UNIQUE INDEX "automation_versions_unique" ON "automation_versions" USING btree ("automation_id","version");--> statement-breakpoint
CREATE INDEX "automations_workspace_idx" ON "automations" USING btree ("workspace_id","created_at","id");--> statement-breakpoint
CREATE INDEX "connections_workspace_idx" ON "connections" USING btree ("workspace_id");--> statement-breakpoint
CREATE UNIQUE INDEX "events_dedupe_idx" ON "events" USING btree ("dedupe_scope","dedupe_key") WHERE dedupe_key is not null;--> statement-breakpoint
CREATE INDEX "events_automation_idx" ON "events" USING btree ("automation_id","received_at");--> statement-breakpoint
CREATE UNIQUE INDEX "intakes_token_idx" ON "intakes" USING btree ("token");--> statement-breakpoint
CREATE INDEX "intakes_workspace_idx" ON "intakes" USING btree ("workspace_id");--> statement-breakpoint
CREATE INDEX "intakes_automation_node_idx" ON "intakes" USING btree ("automation_id","node_id");--> statement-breakpoint
CREATE INDEX "jobs_claim_idx" ON "jobs" USING btree ("status","available_at");--> statement-breakpoint
CREATE INDEX "jobs_run_idx" ON "jobs" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "lines_workspace_idx" ON "lines" USING btree ("workspace_id");--> statement-breakpoint
CREATE INDEX "run_steps_run_idx" ON "run_steps" USING btree ("run_id","created_at");--> statement-breakpoint
CREATE INDEX "runs_automation_idx" ON "runs" USING btree ("automation_id","created_at","id");--> statement-breakpoint
CREATE INDEX "runs_workspace_created_idx" ON "runs" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "runs_task_idx" ON "runs" USING btree ("task_id") WHERE task_id is not null;--> statement-breakpoint
CREATE INDEX "runs_status_automation_idx" ON "runs" USING btree ("status","automation_id");--> statement-breakpoint
CREATE INDEX "runs_followup_idx" ON "runs" USING btree ("followup_at") WHERE followup_at is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "task_activity_seq_idx" ON "task_activity" USING btree ("task_id","seq");--> statement-breakpoint
CREATE INDEX "tasks_workspace_created_idx" ON "tasks" USING btree ("workspace_id","created_at","id");--> statement-breakpoint
CREATE INDEX "tasks_line_idx" ON "tasks" USING btree ("line_id","status");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_unique" ON "users" USING btree ("email");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_registration_users_idx" ON "webhook_registration_users" USING btree ("registration_id","automation_id","node_id");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_registrations_key_idx" ON "webhook_registrations" USING btree ("connection_id","key");