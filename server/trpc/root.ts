/** The tRPC app router: one line per router. */
import { createCallerFactory, createTRPCRouter } from "./trpc";
import { meRouter, workspacesRouter } from "./routers/workspaces";
import { membersRouter } from "./routers/members";
import { authRouter } from "./routers/auth";
import { auditRouter } from "./routers/audit";
import { apiKeysRouter } from "./routers/api-keys";
import { automationsRouter } from "./routers/automations";
import { catalogRouter } from "./routers/catalog";
import { connectionsRouter } from "./routers/connections";
import { intakesRouter } from "./routers/intakes";
import { linesRouter } from "./routers/lines";
import { resourcesRouter } from "./routers/resources";
import { runsRouter } from "./routers/runs";
import { tasksRouter } from "./routers/tasks";
import { usageRouter } from "./routers/usage";
import { settingsRouter } from "./routers/settings";

export const appRouter = createTRPCRouter({
  auth: authRouter,
  me: meRouter,
  workspaces: workspacesRouter,
  members: membersRouter,
  audit: auditRouter,
  apiKeys: apiKeysRouter,
  automations: automationsRouter,
  catalog: catalogRouter,
  connections: connectionsRouter,
  intakes: intakesRouter,
  lines: linesRouter,
  resources: resourcesRouter,
  runs: runsRouter,
  tasks: tasksRouter,
  usage: usageRouter,
  settings: settingsRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
