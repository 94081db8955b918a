import { sqliteTable, text, integer, index, uniqueIndex } from "drizzle-orm/sqlite-core";
import { workspaces } from "./workspaces";

/** The stored automation document graph (validated with GraphSchema from server/contracts/graph.ts on read). */
export type StoredGraph = {
  nodes: Array<{
    id: string;
    name: string;
    key: string;
    connectionId?: string | null;
    config: Record<string, unknown>;
    position?: { x: number; y: number };
    notes?: string;
    /** Display names of picked values by config path (editor only; the runner ignores them). */
    labels?: Record<string, { value: string; label: string }>;
    disabled?: boolean;
  }>;
  edges: Array<{ from: string; to: string }>;
  notes?: Array<{ id: string; text: string; position: { x: number; y: number }; size?: { width: number; height: number } }>;
};

/**
 * Where a resource applied from files came from (`conveyor apply`; see docs/automations-as-code.md).
 * Non-null means "managed in Git": the editor shows a banner, and the next apply refuses when the
 * resource changed since (`appliedVersion` / `appliedUpdatedAt` differ) unless forced.
 */
export type ManagedSource = {
  repository?: string | null;
  path?: string | null;
  commit?: string | null;
  appliedAt: string;
  appliedBy: string;
  appliedVersion?: number;
  appliedUpdatedAt: string;
  /** Secret reference names by `<nodeId>:<dotted config path>` (automations) or `secret` (intakes). */
  secretRefs?: Record<string, string>;
};

export const automations = sqliteTable(
  "automations",
  {
    id: text().primaryKey(),
    workspaceId: text()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text().notNull(),
    /** Stable identity across workspaces (file name in automations-as-code); unique per workspace. */
    key: text(),
    description: text().notNull().default(""),
    enabled: integer({ mode: "boolean" }).notNull().default(false),
    concurrency: integer().notNull().default(5),
    /** Current (latest) version number. */
    version: integer().notNull().default(1),
    graph: text({ mode: "json" }).$type<StoredGraph>().notNull(),
    errorHandlerId: text(),
    source: text({ mode: "json" }).$type<ManagedSource>(),
    /** Problems of the current version as of its save (drafts may have some; see validate-automation.ts). */
    problems: text({ mode: "json" }).$type<Array<{ path: string; nodeId?: string; message: string; severity?: "error" | "warning" }>>(),
    createdBy: text(),
    createdAt: text().notNull(),
    updatedAt: text().notNull(),
  },
  (t) => [index("automations_workspace_idx").on(t.workspaceId, t.createdAt, t.id), uniqueIndex("automations_key_idx").on(t.workspaceId, t.key)],
);

/** Every save is a version; runs pin the version they started on. */
export const automationVersions = sqliteTable(
  "automation_versions",
  {
    id: text().primaryKey(),
    automationId: text()
      .notNull()
      .references(() => automations.id, { onDelete: "cascade" }),
    version: integer().notNull(),
    name: text().notNull(),
    description: text().notNull().default(""),
    graph: text({ mode: "json" }).$type<StoredGraph>().notNull(),
    createdBy: text(),
    createdAt: text().notNull(),
  },
  (t) => [uniqueIndex("automation_versions_unique").on(t.automationId, t.version)],
);
