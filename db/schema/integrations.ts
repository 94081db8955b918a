import { sqliteTable, text, integer, index, uniqueIndex } from "drizzle-orm/sqlite-core";
import { workspaces } from "./workspaces";

/**
 * A configured integration in a workspace. Non-secret settings in `config`; secret settings
 * (sensitive fields) and OAuth tokens encrypted (AES-256-GCM) in `secretsEnc` / `tokensEnc`.
 */
export const connections = sqliteTable(
  "connections",
  {
    id: text().primaryKey(),
    workspaceId: text()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    integration: text().notNull(),
    name: text().notNull(),
    config: text({ mode: "json" }).$type<Record<string, unknown>>().notNull(),
    secretsEnc: text(),
    tokensEnc: text(),
    /** Bumped on each token write: a refresh only commits if the version it read is unchanged. */
    tokenVersion: integer().notNull().default(0),
    tokenExpiresAt: integer(),
    /** Cross-process refresh lock (owner + until epoch ms). */
    refreshLockOwner: text(),
    refreshLockUntil: integer(),
    /** Non-secret integration state (tracker cloud id, site URL, site choices). */
    state: text({ mode: "json" }).$type<Record<string, unknown>>().notNull(),
    status: text({ enum: ["ready", "needs_authorization", "needs_reconnect", "needs_site", "error"] }).notNull(),
    statusMessage: text(),
    createdBy: text(),
    createdAt: text().notNull(),
    updatedAt: text().notNull(),
  },
  (t) => [index("connections_workspace_idx").on(t.workspaceId)],
);

/** OAuth authorization requests in flight (state bound to the user session). */
export const oauthStates = sqliteTable("oauth_states", {
  state: text().primaryKey(),
  connectionId: text()
    .notNull()
    .references(() => connections.id, { onDelete: "cascade" }),
  userId: text().notNull(),
  codeVerifier: text(),
  redirectUri: text().notNull(),
  returnTo: text(),
  createdAt: integer().notNull(),
  expiresAt: integer().notNull(),
});

/** Reference-counted upstream webhook registrations (see SharedRegistrations in integrations/core/define.ts). */
export const webhookRegistrations = sqliteTable(
  "webhook_registrations",
  {
    id: text().primaryKey(),
    connectionId: text()
      .notNull()
      .references(() => connections.id, { onDelete: "cascade" }),
    key: text().notNull(),
    upstreamId: text().notNull(),
    expiresAt: text(),
    data: text({ mode: "json" }).$type<Record<string, unknown>>(),
    createdAt: text().notNull(),
    updatedAt: text().notNull(),
  },
  (t) => [uniqueIndex("webhook_registrations_key_idx").on(t.connectionId, t.key)],
);

/** Which trigger nodes use a registration (the reference count). */
export const webhookRegistrationUsers = sqliteTable(
  "webhook_registration_users",
  {
    registrationId: text()
      .notNull()
      .references(() => webhookRegistrations.id, { onDelete: "cascade" }),
    automationId: text().notNull(),
    nodeId: text().notNull(),
    createdAt: text().notNull(),
  },
  (t) => [uniqueIndex("webhook_registration_users_idx").on(t.registrationId, t.automationId, t.nodeId)],
);
