import { sqliteTable, text, integer, index, uniqueIndex, primaryKey } from "drizzle-orm/sqlite-core";
import { organizations } from "./auth";

/** Organization API keys: shown once, stored as SHA-256 hash, listed by prefix. */
export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text().primaryKey(),
    organizationId: text()
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text().notNull(),
    /** First characters of the key (e.g. `cvk_ab12cd34`) for display and lookup. */
    prefix: text().notNull(),
    hash: text().notNull(),
    role: text({ enum: ["admin", "editor", "operator", "viewer"] }).notNull(),
    /** null = every workspace of the organization. */
    workspaceIds: text({ mode: "json" }).$type<string[] | null>(),
    createdBy: text(),
    createdAt: text().notNull(),
    lastUsedAt: text(),
    expiresAt: text(),
    revokedAt: text(),
  },
  (t) => [uniqueIndex("api_keys_hash_idx").on(t.hash), index("api_keys_prefix_idx").on(t.prefix)],
);

/** Stored responses for `Idempotency-Key` (24 h). */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    apiKeyId: text().notNull(),
    key: text().notNull(),
    method: text().notNull(),
    path: text().notNull(),
    bodyHash: text().notNull(),
    status: integer().notNull(),
    response: text().notNull(),
    createdAt: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.apiKeyId, t.key] })],
);

/**
 * Shared fixed-window request counters for the REST rate limit in scale-out mode (several web
 * processes behind one PostgreSQL): one row per limited subject (`api-key:<id>`), holding the
 * current window only, so the table stays as small as the number of keys.
 */
export const rateLimits = sqliteTable("rate_limits", {
  key: text().primaryKey(),
  /** Start of the current window (epoch ms, aligned to the window length). */
  windowStart: integer().notNull(),
  count: integer().notNull(),
});
