import { sqliteTable, text, index, primaryKey } from "drizzle-orm/sqlite-core";
import { workspaces } from "./workspaces";

/**
 * What automations remember between runs (`core.remember` / `core.recall`): one value per key in a
 * scope, kept until it expires. The scope is an automation id (the default) or `workspace` (shared by
 * every automation of the workspace); test runs use their own scopes (`test:<scope>`), so testing a
 * node never changes what production runs recall. Expired rows are invisible at once and deleted by
 * the runner's maintenance.
 */
export const memories = sqliteTable(
  "memories",
  {
    workspaceId: text()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    scope: text().notNull(),
    key: text().notNull(),
    value: text({ mode: "json" }).$type<unknown>().notNull(),
    /** The run and node that stored it (shown by a recall). */
    storedBy: text({ mode: "json" }).$type<{ runId: string; nodeId: string; automationId: string }>().notNull(),
    storedAt: text().notNull(),
    expiresAt: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.scope, t.key] }), index("memories_expires_idx").on(t.expiresAt)],
);
