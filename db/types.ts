/** Row types of the stored tables (type-only; code outside db/ uses these, never the tables). */
import type * as s from "./schema";

export type OrganizationRow = typeof s.organizations.$inferSelect;
export type UserRow = typeof s.users.$inferSelect;
export type MembershipRow = typeof s.memberships.$inferSelect;
export type InvitationRow = typeof s.invitations.$inferSelect;
export type AuditRow = typeof s.auditLog.$inferSelect;
export type WorkspaceRow = typeof s.workspaces.$inferSelect;
export type LineRow = typeof s.lines.$inferSelect;
export type TaskRow = typeof s.tasks.$inferSelect;
export type TaskActivityRow = typeof s.taskActivity.$inferSelect;
export type IntakeRow = typeof s.intakes.$inferSelect;
export type AutomationRow = typeof s.automations.$inferSelect;
export type AutomationVersionRow = typeof s.automationVersions.$inferSelect;
export type EventRow = typeof s.events.$inferSelect;
export type RunRecord = typeof s.runs.$inferSelect;
export type RunStepRow = typeof s.runSteps.$inferSelect;
export type ConnectionRow = typeof s.connections.$inferSelect;
export type OAuthStateRow = typeof s.oauthStates.$inferSelect;
export type WebhookRegistrationRow = typeof s.webhookRegistrations.$inferSelect;
export type WebhookRegistrationUserRow = typeof s.webhookRegistrationUsers.$inferSelect;
export type ApiKeyRow = typeof s.apiKeys.$inferSelect;
export type IdempotencyRow = typeof s.idempotencyKeys.$inferSelect;
export type JobRow = typeof s.jobs.$inferSelect;
export type SettingRow = typeof s.settings.$inferSelect;
export type UsageCounterRow = typeof s.usageCounters.$inferSelect;
export type RateLimitRow = typeof s.rateLimits.$inferSelect;
export type { IdempotencyClaim, IdempotencyRequest } from "./stores/idempotency";
export type { StepAttempt, StepOrigin, StoredGraph, LineStep, ManagedSource, RefusedDelivery } from "./schema";
/** Identity of a keyed resource (automation, line, webhook intake); rows made before keys existed have none. */
export type KeyedRow = { id: string; key: string | null; name: string; createdAt: string };
export type { TokenState } from "./stores/connections";
export type { DerivedRun, DerivedResult } from "./stores/derived-runs";
export type { PoolStats } from "./backend";
export { CommitOutcomeUnknownError, isCommitOutcomeUnknown } from "./commit-outcome";
export { cancelledStepRow } from "./step-params";
