import { sqliteTable, text, integer, uniqueIndex, primaryKey } from "drizzle-orm/sqlite-core";

/** One organization per installation (API keys and members belong to it). */
export const organizations = sqliteTable("organizations", {
  id: text().primaryKey(),
  name: text().notNull(),
  createdAt: text().notNull(),
});

export const users = sqliteTable(
  "users",
  {
    id: text().primaryKey(),
    email: text().notNull(),
    name: text().notNull().default(""),
    /** scrypt hash `scrypt$N$r$p$salt$hash`; null for OIDC-only users. */
    passwordHash: text(),
    createdAt: text().notNull(),
    lastSignInAt: text(),
  },
  (t) => [uniqueIndex("users_email_unique").on(t.email)],
);

/** Roles: owner, admin, editor, operator, viewer (see server/auth/permissions.ts). */
export const memberships = sqliteTable(
  "memberships",
  {
    organizationId: text()
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text({ enum: ["owner", "admin", "editor", "operator", "viewer"] }).notNull(),
    createdAt: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.userId] })],
);

/** Invitation links created by admins; the token is stored hashed. */
export const invitations = sqliteTable("invitations", {
  id: text().primaryKey(),
  organizationId: text()
    .notNull()
    .references(() => organizations.id, { onDelete: "cascade" }),
  email: text(),
  role: text({ enum: ["admin", "editor", "operator", "viewer"] }).notNull(),
  tokenHash: text().notNull(),
  createdBy: text().notNull(),
  createdAt: text().notNull(),
  expiresAt: text().notNull(),
  acceptedAt: text(),
  acceptedBy: text(),
  /** Set when an admin revokes the link: kept (not deleted) so the link can say it was revoked. */
  revokedAt: text(),
  revokedBy: text(),
});

/**
 * Sign-in limits: one counter per subject (`email:<address>` / `ip:<address>`) and fixed window.
 * The counter is incremented in SQL before the password is checked (see services/users/sign-in.ts),
 * so concurrent attempts cannot all pass a check made before any of them was counted.
 */
export const signInLimits = sqliteTable("sign_in_limits", {
  subject: text().primaryKey(),
  /** Window start, epoch ms. */
  windowStart: integer().notNull(),
  attempts: integer().notNull(),
});

/** Installation-wide settings an admin changes (key → JSON value), e.g. `egress` (the outbound network policy). */
export const settings = sqliteTable("settings", {
  key: text().primaryKey(),
  value: text({ mode: "json" }).$type<unknown>().notNull(),
  updatedAt: text().notNull(),
  updatedBy: text().notNull(),
});

export const auditLog = sqliteTable("audit_log", {
  id: text().primaryKey(),
  organizationId: text().notNull(),
  workspaceId: text(),
  actor: text().notNull(),
  action: text().notNull(),
  target: text(),
  data: text({ mode: "json" }).$type<Record<string, unknown>>(),
  at: text().notNull(),
});
