/** problem+json responses (RFC 9457) from AppError, ZodError or anything else. */
import { ZodError } from "zod";
import { isDatabaseUnavailable } from "@/db/unavailable";
import { AppError, ERROR_STATUS, ERROR_TITLES, issueMessage, type ErrorCode, type FieldProblem } from "../errors";

/** Seconds a client is asked to wait when a dependency did not answer (REST, webhook doors, readiness). */
export const RETRY_AFTER_S = 5;

export const PROBLEM_BASE = "https://conveyor.dev/problems/";

export function zodProblems(error: ZodError, prefix: string[] = []): FieldProblem[] {
  return error.issues.map((i) => {
    const path = [...prefix, ...i.path.map(String)].join(".");
    if (i.code === "unrecognized_keys") {
      return {
        path: [...prefix, ...i.path.map(String), ...(i.keys.length === 1 ? i.keys : [])].join("."),
        message: `Unknown field${i.keys.length > 1 ? "s" : ""}: ${i.keys.join(", ")}`,
      };
    }
    return { path, message: issueMessage(i) };
  });
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  instance?: string;
  requestId?: string;
  errors?: FieldProblem[];
}

/** The one problem body every door answers with (REST, webhooks, the front door). */
export function problemBody(code: ErrorCode, detail: string, opts: { errors?: FieldProblem[]; instance?: string; requestId?: string } = {}): ProblemBody {
  return {
    type: PROBLEM_BASE + code,
    title: ERROR_TITLES[code],
    status: ERROR_STATUS[code],
    detail,
    code,
    ...(opts.instance ? { instance: opts.instance } : {}),
    ...(opts.requestId ? { requestId: opts.requestId } : {}),
    ...(opts.errors?.length ? { errors: opts.errors } : {}),
  };
}

export function problemResponse(
  code: ErrorCode,
  detail: string,
  opts: { errors?: FieldProblem[]; headers?: Record<string, string>; instance?: string; requestId?: string } = {},
): Response {
  const status = ERROR_STATUS[code];
  const body = problemBody(code, detail, opts);
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/problem+json", ...(opts.requestId ? { "x-request-id": opts.requestId } : {}), ...opts.headers },
  });
}

export function toErrorResponse(
  error: unknown,
  ctx: { instance?: string; requestId?: string; log?: { error(m: string, f?: Record<string, unknown>): void } },
): Response {
  if (error instanceof AppError) {
    return problemResponse(error.code, error.message, { errors: error.errors, headers: error.headers, instance: ctx.instance, requestId: ctx.requestId });
  }
  if (error instanceof ZodError) {
    return problemResponse("validation_failed", "The request is not valid; see `errors` for each field.", {
      errors: zodProblems(error),
      instance: ctx.instance,
      requestId: ctx.requestId,
    });
  }
  // The database is down or did not answer: not a bug, and the same request may succeed shortly.
  if (isDatabaseUnavailable(error)) {
    ctx.log?.error("rest: database unavailable", {
      requestId: ctx.requestId,
      path: ctx.instance,
      error: error instanceof Error ? error.message : String(error),
    });
    return problemResponse("unavailable", "The database did not answer; retry the request later.", {
      headers: { "retry-after": String(RETRY_AFTER_S) },
      instance: ctx.instance,
      requestId: ctx.requestId,
    });
  }
  ctx.log?.error("rest: unhandled error", { requestId: ctx.requestId, path: ctx.instance, error: error instanceof Error ? error.stack : String(error) });
  return problemResponse("internal", `Something went wrong on our side; quote request id ${ctx.requestId ?? "?"} when reporting it.`, {
    instance: ctx.instance,
    requestId: ctx.requestId,
  });
}
