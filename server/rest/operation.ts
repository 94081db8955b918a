/** One REST operation: the single description that drives validation (api-route.ts) and the OpenAPI document (openapi.ts). */
import type { z } from "zod";
import type { ApiKeyRole } from "../auth/permissions";
import { doorRule, minimumRole } from "../auth/door-permissions";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export const HTTP_METHODS: HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

export interface Operation<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  id: string;
  method: HttpMethod;
  /** OpenAPI path under /api/v1, e.g. `/factories/{factoryId}/orders`. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  /** Lowest API key role allowed: read from the door permission table (auth/door-permissions.ts) by `rest:<id>`. */
  role: ApiKeyRole;
  params?: P;
  query?: Q;
  body?: B;
  /** Success body (absent for 204). */
  response?: R;
  status?: 200 | 201 | 202 | 204;
  /** Accepts `Idempotency-Key` (creating POSTs, and POSTs that act: transitions, comments, run cancel/retry/test). Any other POST refuses it (422) rather than ignore it. */
  idempotent?: boolean;
  /** Returns an ETag (`returns`), or returns one and honours If-Match (`if-match`). */
  etag?: "returns" | "if-match";
  /** Extra error statuses besides the common ones (400, 401, 403, 404, 429, 503). */
  errors?: number[];
  /**
   * Where the created (201) or started (202) resource is read: a path under /api/v1 whose `{id}` is the
   * answer's `id` and whose other parameters are the request's, sent as `Location`.
   */
  location?: string;
  /** Set when the body is optional (e.g. starting a run with no payload). */
  bodyOptional?: boolean;
}

export function defineOperation<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType>(
  op: Omit<Operation<P, Q, B, R>, "role">,
): Operation<P, Q, B, R> {
  const rule = doorRule(`rest:${op.id}`);
  if (!rule) throw new Error(`REST operation ${op.id} has no entry in the door permission table (server/auth/door-permissions.ts)`);
  return { ...op, role: minimumRole(rule) as ApiKeyRole };
}
