/**
 * The OpenAPI 3.1 document, built from the same operations (and zod schemas) that api-route.ts
 * validates with. Served at /api/v1/openapi.json; nothing here is hand-written per field.
 */
import { z } from "zod";
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from "zod-openapi";
import { ProblemSchema } from "../contracts/common";
import { ERROR_TITLES, ERROR_STATUS } from "../errors";
import type { Operation } from "./operation";
import { workspaceOps } from "./operations/workspace-ops";
import { appOps } from "./operations/app-ops";
import { asCodeOps } from "./operations/as-code-ops";
import { settingsOps } from "./operations/settings-ops";
import pkg from "@/package.json";

export const ALL_OPERATIONS: Operation[] = [...workspaceOps, ...appOps, ...settingsOps, ...asCodeOps] as Operation[];

const integer = { type: "integer" as const, minimum: 0 };
const RATE_HEADERS = {
  "RateLimit-Limit": { description: "Requests allowed per window for this key.", schema: integer },
  "RateLimit-Remaining": { description: "Requests left in the current window.", schema: integer },
  "RateLimit-Reset": { description: "Seconds until the window resets.", schema: integer },
  "RateLimit-Policy": { description: "The limit and its window, e.g. `1200;w=60`.", schema: { type: "string" as const, pattern: "^\\d+;w=\\d+$" } },
};
const REQUEST_ID = { "X-Request-Id": { description: "Correlation id (also in error bodies and logs).", required: true, schema: { type: "string" as const } } };
/** Headers by status: every answer has X-Request-Id; an answer to a known key has RateLimit-* (not a 401, not a 503 before the key was read). */
function errorHeaders(status: number): Record<string, unknown> {
  const rate = Object.fromEntries(Object.entries(RATE_HEADERS).map(([k, v]) => [k, { ...v, required: status === 429 }]));
  const retryAfter = { "Retry-After": { description: "Seconds to wait before retrying.", required: true, schema: integer } };
  if (status === 401) return { ...REQUEST_ID, "WWW-Authenticate": { description: "`Bearer`, with the error.", required: true, schema: { type: "string" } } };
  return { ...REQUEST_ID, ...rate, ...(status === 429 || status === 503 ? retryAfter : {}) };
}

const problem = (status: number, description: string) => ({
  description,
  headers: errorHeaders(status),
  content: { "application/problem+json": { schema: ProblemSchema } },
});

function statusText(status: number): string {
  const code = (Object.keys(ERROR_STATUS) as (keyof typeof ERROR_STATUS)[]).find((c) => ERROR_STATUS[c] === status);
  return code ? ERROR_TITLES[code] : String(status);
}

const ERROR_HELP: Record<number, string> = {
  400: "Bad input: malformed JSON, a bad cursor or a bad header value.",
  401: "Missing, malformed, unknown, revoked or expired API key (`WWW-Authenticate: Bearer`).",
  403: "The key's role does not allow this action.",
  404: "Not found, or not visible to this key.",
  409: "Conflict with the resource's current state.",
  412: "`If-Match` does not match the current `ETag`.",
  413: "The body is over the size limit.",
  415: "The body is not JSON.",
  422: "Validation failed; `errors[]` lists every field problem with its path.",
  429: "Rate limit exceeded; see `Retry-After`.",
  503: "The database did not answer (down, unreachable or overloaded); retry after `Retry-After`.",
};

function toOperationObject(op: Operation): ZodOpenApiOperationObject {
  const errors = new Set([
    400,
    401,
    403,
    404,
    // 422 everywhere: a query parameter the operation does not take (or one given twice) is one.
    422,
    429,
    503,
    ...(op.body ? [413, 415] : []),
    ...(op.idempotent ? [409] : []),
    ...(op.errors ?? []),
  ]);
  const responses: Record<string, unknown> = {};
  const okHeaders = {
    ...REQUEST_ID,
    ...Object.fromEntries(Object.entries(RATE_HEADERS).map(([k, v]) => [k, { ...v, required: true }])),
    ...(op.location
      ? { Location: { description: `Where to read it: \`/api/v1${op.location}\`.`, required: true, schema: { type: "string", format: "uri-reference" } } }
      : {}),
    ...(op.etag ? { ETag: { description: "Current version; send as If-Match.", required: true, schema: { type: "string" } } } : {}),
    ...(op.idempotent
      ? { "Idempotent-Replayed": { description: "`true` on a repeat of an `Idempotency-Key`: the first response, replayed.", schema: { type: "string", enum: ["true"] } } }
      : {}),
  };
  if (op.response) {
    responses[String(op.status ?? 200)] = { description: op.summary, headers: okHeaders, content: { "application/json": { schema: op.response } } };
  } else {
    responses[String(op.status ?? 204)] = { description: `${op.summary}: done, no content.`, headers: okHeaders };
  }
  for (const s of [...errors].sort()) {
    responses[String(s)] = problem(s, `${statusText(s)}. ${ERROR_HELP[s] ?? ""}`.trim());
  }
  const headerParams: Record<string, z.ZodType> = {};
  if (op.idempotent)
    headerParams["Idempotency-Key"] = z.string().min(1).max(255).optional().meta({
      description:
        "Makes retries safe: a repeat within 24 h returns the first response; the same key with a different body is a 422; a repeat while the first is still running is a 409.",
    });
  if (op.etag === "if-match")
    headerParams["If-Match"] = z.string().optional().meta({ description: "The ETag from GET; the save is refused with 412 when it no longer matches." });
  return {
    operationId: op.id,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.tag],
    "x-minimum-role": op.role,
    requestParams: {
      ...(op.params ? { path: op.params as z.ZodObject } : {}),
      ...(op.query ? { query: op.query as z.ZodObject } : {}),
      ...(Object.keys(headerParams).length ? { header: z.object(headerParams) } : {}),
    },
    ...(op.body ? { requestBody: { required: !op.bodyOptional, content: { "application/json": { schema: op.body } } } } : {}),
    responses: responses as ZodOpenApiOperationObject["responses"],
  } as ZodOpenApiOperationObject;
}

let cached: ReturnType<typeof createDocument> | null = null;

export function buildOpenApiDocument(serverUrl = "/api/v1") {
  if (cached && serverUrl === "/api/v1") return cached;
  const paths: ZodOpenApiPathsObject = {};
  for (const op of ALL_OPERATIONS) {
    const item = (paths[op.path] ??= {}) as Record<string, ZodOpenApiOperationObject>;
    item[op.method.toLowerCase()] = toOperationObject(op);
  }
  const doc = createDocument(
    {
      openapi: "3.1.0",
      info: {
        title: "Conveyor API",
        version: pkg.version,
        description:
          "Manage Conveyor workspaces (factories), lines, automations (apps), runs, tasks (orders), intakes, connections and usage.\n\n" +
          "**Names in the API and in the app.** The paths use their own words for three things; everything else has the same name:\n\n" +
          "| API (path) | App (screen) |\n|---|---|\n" +
          "| factory (`/factories`) | workspace |\n" +
          "| app (`/factories/{factoryId}/apps`) | automation |\n" +
          "| order (`/factories/{factoryId}/orders`) | task |\n" +
          "| line, run, intake, connection, usage | the same |\n\n" +
          "Authenticate with `Authorization: Bearer <API key>`. A key has one role (viewer < operator < editor < admin; see `x-minimum-role` on each operation) and optionally a list of workspaces; other workspaces answer 404.\n\n" +
          "Errors are RFC 9457 `application/problem+json`. Lists take `limit` (1–200, default 50) and an opaque `cursor`, and answer `{ data, nextCursor }`.",
      },
      servers: [{ url: serverUrl }],
      security: [{ bearerAuth: [] }],
      tags: ["Factories", "Lines", "Apps", "Runs", "Orders", "Intakes", "Usage", "Connections", "Catalog", "Settings", "As code"].map((name) => ({ name })),
      components: { securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", description: "Organization API key `cvk_<prefix>_<secret>`." } } },
      paths,
    },
    // Reused schemas are inlined: only schemas with a `meta({ id })` become named components, so a
    // generated client has no `__schemaN` types (cycles are still broken with $defs).
    { reused: "inline" },
  );
  if (serverUrl === "/api/v1") cached = doc;
  return doc;
}
