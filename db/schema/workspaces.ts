import { sqliteTable, text, integer, index, primaryKey, uniqueIndex } from "drizzle-orm/sqlite-core";
import { organizations } from "./auth";
import type { ManagedSource } from "./automations";

export const workspaces = sqliteTable("workspaces", {
  id: text().primaryKey(),
  organizationId: text()
    .notNull()
    .references(() => organizations.id, { onDelete: "cascade" }),
  name: text().notNull(),
  createdAt: text().notNull(),
  updatedAt: text().notNull(),
});

export interface LineStep {
  name: string;
  appId: string;
}

/** An assembly line: ordered steps, each naming an automation. */
export const lines = sqliteTable(
  "lines",
  {
    id: text().primaryKey(),
    workspaceId: text()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text().notNull(),
    /** Stable identity across workspaces (automations-as-code); unique per workspace. */
    key: text(),
    steps: text({ mode: "json" }).$type<LineStep[]>().notNull(),
    source: text({ mode: "json" }).$type<ManagedSource>(),
    createdAt: text().notNull(),
    updatedAt: text().notNull(),
  },
  (t) => [index("lines_workspace_idx").on(t.workspaceId), uniqueIndex("lines_key_idx").on(t.workspaceId, t.key)],
);

/** A task ("order" in REST paths) moving along a line. */
export const tasks = sqliteTable(
  "tasks",
  {
    id: text().primaryKey(),
    workspaceId: text()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    lineId: text()
      .notNull()
      .references(() => lines.id),
    title: text().notNull(),
    description: text().notNull().default(""),
    data: text({ mode: "json" }).$type<unknown>(),
    status: text({ enum: ["draft", "open", "closed"] }).notNull(),
    outcome: text({ enum: ["completed", "rejected", "failed"] }),
    /** Index into the line's steps of the step being (or last) run; null before opening. */
    currentStep: integer(),
    /** A failed step closes the task with outcome `failed`; retrying re-opens it at that step. */
    createdBy: text(),
    intakeId: text(),
    /** Last activity sequence number (incremented atomically for each entry). */
    activitySeq: integer().notNull().default(0),
    createdAt: text().notNull(),
    updatedAt: text().notNull(),
    closedAt: text(),
  },
  (t) => [index("tasks_workspace_created_idx").on(t.workspaceId, t.createdAt, t.id), index("tasks_line_idx").on(t.lineId, t.status)],
);

export const taskActivity = sqliteTable(
  "task_activity",
  {
    id: text().primaryKey(),
    taskId: text()
      .notNull()
      .references(() => tasks.id, { onDelete: "cascade" }),
    /** Monotonic sequence for stable pagination. */
    seq: integer().notNull(),
    at: text().notNull(),
    kind: text().notNull(),
    runId: text(),
    stepIndex: integer(),
    message: text().notNull().default(""),
    actor: text(),
    data: text({ mode: "json" }).$type<Record<string, unknown>>(),
  },
  (t) => [uniqueIndex("task_activity_seq_idx").on(t.taskId, t.seq)],
);

/** What an intake keeps of the latest delivery it refused (shown in the trigger panel). */
export interface RefusedDelivery {
  at: string;
  status: number;
  code: string;
  detail: string;
}

/**
 * An intake: where deliveries come in.
 * - kind `trigger`: one per webhook trigger node of an automation (url shown in the trigger panel),
 * - kind `shared`: one per connection for shared upstream registrations (Jira dynamic webhooks),
 * - kind `webhook`: a JSON POST creates a task on a line.
 */
export const intakes = sqliteTable(
  "intakes",
  {
    id: text().primaryKey(),
    workspaceId: text()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    kind: text({ enum: ["trigger", "shared", "webhook", "tracker"] }).notNull(),
    name: text().notNull().default(""),
    /** Stable identity of a webhook intake across workspaces (automations-as-code); unique per workspace. */
    key: text(),
    source: text({ mode: "json" }).$type<ManagedSource>(),
    /** Unguessable token that forms the public URL `/hooks/<token>`. */
    token: text().notNull(),
    automationId: text(),
    nodeId: text(),
    connectionId: text(),
    lineId: text(),
    /** Encrypted secret for webhook intakes (bearer or HMAC); null when none. */
    secretEnc: text(),
    config: text({ mode: "json" }).$type<Record<string, unknown>>(),
    status: text({ enum: ["active", "disabled", "error"] })
      .notNull()
      .default("active"),
    statusMessage: text(),
    lastEventAt: text(),
    eventCount: integer().notNull().default(0),
    /** Deliveries this intake refused (wrong secret, not JSON, too large…), counted at most every few seconds per process. */
    refusedCount: integer().notNull().default(0),
    /** The latest refused delivery: when, the status answered, and why (what the sender was told). */
    lastRefused: text({ mode: "json" }).$type<RefusedDelivery>(),
    createdAt: text().notNull(),
    updatedAt: text().notNull(),
  },
  (t) => [
    uniqueIndex("intakes_token_idx").on(t.token),
    index("intakes_workspace_idx").on(t.workspaceId),
    index("intakes_automation_node_idx").on(t.automationId, t.nodeId),
    uniqueIndex("intakes_key_idx").on(t.workspaceId, t.key),
  ],
);

/**
 * Timestamped webhook signatures already accepted, per intake (docs/security.md, "Webhook
 * signatures"): a second delivery with the same `v1` value is a replay. Written by the commit that
 * stores the delivery (db/pg/ingest.ts, db/sqlite/engine.ts), so a signature counts as used only once
 * its delivery is stored. Rows are useless once the signature's timestamp is outside the tolerance
 * (`expiresAt`, epoch ms) and are pruned by maintenance an hour after that.
 */
export const webhookSignatures = sqliteTable(
  "webhook_signatures",
  {
    intakeId: text().notNull(),
    /** The accepted `v1` value (hex HMAC-SHA256 of `<t>.<raw body>`, lower case). */
    signature: text().notNull(),
    expiresAt: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.intakeId, t.signature] }), index("webhook_signatures_expires_idx").on(t.expiresAt)],
);
