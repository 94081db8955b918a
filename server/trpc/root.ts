/** The tRPC app router: one line per router. */
import { createCallerFactory, createTRPCRouter } from "./trpc";
import { meRouter, workspacesRouter } from "./routers/workspaces";
import { membersRouter } from "./routers/members";
import { authRouter } from "./routers/auth";
import { auditRouter } from "./routers/audit";

export const appRouter = createTRPCRouter({
  auth: authRouter,
  me: meRouter,
  workspaces: workspacesRouter,
  members: membersRouter,
  audit: auditRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
