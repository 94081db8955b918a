/**
 * tRPC base: context (deps + the signed-in actor), procedures, and the error formatter that maps
 * AppError codes to tRPC codes and hands field problems to the client as `data.problems`.
 */
import { initTRPC, TRPCError } from "@trpc/server";
import { ZodError, z } from "zod";
import type { AppDeps } from "../deps";
import { AppError, issueMessage, type FieldProblem } from "../errors";
import { assertCan, type Actor } from "../auth/permissions";
import { doorRule } from "../auth/door-permissions";
import { requireWorkspace } from "../services/access";
import { isDatabaseUnavailable } from "@/db/unavailable";
import { DB_UNAVAILABLE_APP_CODE, DB_UNAVAILABLE_TITLE } from "@/components/errors/page-error-kind";

export interface TRPCContext {
  deps: AppDeps;
  actor: (Actor & { kind: "user" }) | null;
}

const CODE_MAP: Record<string, TRPCError["code"]> = {
  bad_request: "BAD_REQUEST",
  validation_failed: "BAD_REQUEST",
  unprocessable: "UNPROCESSABLE_CONTENT",
  unauthorized: "UNAUTHORIZED",
  forbidden: "FORBIDDEN",
  not_found: "NOT_FOUND",
  conflict: "CONFLICT",
  precondition_failed: "PRECONDITION_FAILED",
  payload_too_large: "PAYLOAD_TOO_LARGE",
  rate_limited: "TOO_MANY_REQUESTS",
  upstream_error: "BAD_GATEWAY",
  unavailable: "SERVICE_UNAVAILABLE",
};

function problemsOf(error: unknown): FieldProblem[] | undefined {
  if (error instanceof AppError) return error.errors;
  if (error instanceof ZodError) return error.issues.map((i) => ({ path: i.path.join("."), message: issueMessage(i) }));
  return undefined;
}

const t = initTRPC.context<TRPCContext>().create({
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    // The database did not answer (a procedure, or the session lookup of the context): one clear
    // message and a code the editor's lists recognise (components/errors/database-unavailable.tsx),
    // never the driver's words (they name hosts and statements).
    if (isDatabaseUnavailable(error))
      return {
        ...shape,
        message: DB_UNAVAILABLE_TITLE,
        data: { ...shape.data, code: "SERVICE_UNAVAILABLE" as const, httpStatus: 503, stack: undefined, appCode: DB_UNAVAILABLE_APP_CODE, problems: null },
      };
    return {
      ...shape,
      message: cause instanceof ZodError ? "Some fields are invalid." : shape.message,
      data: {
        ...shape.data,
        appCode: cause instanceof AppError ? cause.code : null,
        problems: problemsOf(cause) ?? null,
      },
    };
  },
});

/** Converts service AppErrors into TRPCErrors with the right code (cause kept for the formatter). */
const appErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && !(result.error.cause instanceof AppError) && isDatabaseUnavailable(result.error)) {
    result.error = new TRPCError({ code: "SERVICE_UNAVAILABLE", message: DB_UNAVAILABLE_TITLE, cause: result.error.cause });
  } else if (!result.ok && result.error.cause instanceof AppError) {
    const cause = result.error.cause;
    result.error = new TRPCError({ code: CODE_MAP[cause.code] ?? "INTERNAL_SERVER_ERROR", message: cause.message, cause });
  }
  return result;
});

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;
/** The door permission table (auth/door-permissions.ts), checked before the input is parsed; unknown paths are refused. */
const doorPermission = t.middleware(({ ctx, path, next }) => {
  const rule = doorRule(`trpc:${path}`);
  if (!rule) throw new TRPCError({ code: "FORBIDDEN", message: `${path} has no entry in the permission table.` });
  if (rule === "public") return next();
  if (!ctx.actor) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in first." });
  if (rule !== "signed-in") assertCan(ctx.actor, rule);
  return next();
});

export const publicProcedure = t.procedure.use(appErrors).use(doorPermission);

export const protectedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.actor) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in first." });
  return next({ ctx: { ...ctx, actor: ctx.actor } });
});

/** Procedures on one workspace: input carries `workspaceId`; membership is checked (read access). */
export const workspaceProcedure = protectedProcedure.input(z.object({ workspaceId: z.string().min(1) })).use(async ({ ctx, input, next }) => {
  const workspace = await requireWorkspace(ctx.deps.store, ctx.actor, (input as { workspaceId: string }).workspaceId, "workspace.read");
  return next({ ctx: { ...ctx, workspace } });
});
