/**
 * AppError and the code → status table shared by REST (problem+json), tRPC and the OpenAPI document.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  validation_failed: 422,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  upstream_error: 502,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_TITLES: Record<ErrorCode, string> = {
  bad_request: "Bad request",
  validation_failed: "Validation failed",
  unauthorized: "Unauthorized",
  forbidden: "Forbidden",
  not_found: "Not found",
  method_not_allowed: "Method not allowed",
  conflict: "Conflict",
  precondition_failed: "Precondition failed",
  payload_too_large: "Payload too large",
  unsupported_media_type: "Unsupported media type",
  unprocessable: "Unprocessable entity",
  rate_limited: "Too many requests",
  internal: "Internal server error",
  upstream_error: "Upstream error",
  unavailable: "Service unavailable",
};

export interface FieldProblem {
  /** Dotted path, e.g. `graph.nodes.1.config.matchers.0.name`. */
  path: string;
  message: string;
  /** Node id for automation document problems. */
  nodeId?: string;
  severity?: "error" | "warning";
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: FieldProblem[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "AppError";
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/** A field problem's message from a zod issue: zod's wording for a missing value ("Invalid input: expected string, received undefined") becomes "Required". */
export function issueMessage(i: { code: string; message: string }): string {
  if (i.code !== "invalid_type") return i.message;
  if (/, received undefined$/.test(i.message)) return "Required";
  // A query parameter that is not a number (`?limit=abc`) reaches the check as NaN, a word the caller never sent;
  // a map (a run's payload, labels) is a JSON object, not a "record".
  return i.message.replace(/, received NaN$/, ", received text that is not a number").replace(/expected record,/, "expected object,");
}

export const notFound = (what: string, id: string) => new AppError("not_found", `${what} ${id} does not exist or is not visible to you.`);
