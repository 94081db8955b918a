/**
 * The PostgreSQL tables, derived from the single schema source in `db/schema/` (see derive.ts).
 * drizzle-kit reads this file for the PostgreSQL migrations (`drizzle.pg.config.ts`).
 */
import * as sqliteSchema from "../schema";
import { derivePgSchema } from "./derive";

export const pgSchema = derivePgSchema(sqliteSchema);

export const {
  organizations,
  users,
  memberships,
  invitations,
  signInLimits,
  settings,
  auditLog,
  workspaces,
  lines,
  tasks,
  taskActivity,
  intakes,
  automations,
  automationVersions,
  events,
  runs,
  runSteps,
  jobs,
  outbox,
  connections,
  oauthStates,
  webhookRegistrations,
  webhookRegistrationUsers,
  apiKeys,
  idempotencyKeys,
  rateLimits,
  usageCounters,
  webhookSignatures,
  memories,
} = pgSchema;
