/** Shared REST shapes: pagination, problem+json, ids and timestamps (isomorphic). */
import { z } from "zod";

export const IsoTimestampSchema = z.string().meta({ description: "ISO 8601 UTC timestamp", example: "2026-11-22T04:00:00.000Z" });

export const PaginationQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50).meta({ description: "Page size (1–200, default 50).", example: 50 }),
  cursor: z.string().max(500).optional().meta({ description: "Opaque cursor from the previous page's `nextCursor`." }),
});

/** `{ data: [...], nextCursor }` */
export function pageOf<T extends z.ZodType>(item: T, id: string) {
  return z
    .object({
      data: z.array(item),
      nextCursor: z.string().nullable().meta({ description: "Pass as `cursor` for the next page; null on the last page." }),
    })
    .meta({ id });
}

export const FieldProblemSchema = z.object({
  path: z.string().meta({ description: "Dotted JSON path of the offending field ('' for the whole body).", example: "steps.0.appId" }),
  message: z.string().meta({ example: "Required" }),
  nodeId: z.string().optional().meta({ description: "Graph node id, for automation document problems." }),
  severity: z.enum(["error", "warning"]).optional().meta({ description: "For automation document problems: error (blocks enabling) or warning." }),
});

export const ProblemSchema = z
  .object({
    type: z.string().meta({ example: "https://conveyor.dev/problems/not_found" }),
    title: z.string().meta({ example: "Not found" }),
    status: z.number().int().meta({ example: 404 }),
    detail: z.string().meta({ example: "Workspace ws_123 does not exist or is not visible to you." }),
    code: z.string().meta({ description: "snake_case error code", example: "not_found" }),
    instance: z.string().optional().meta({ description: "Request path" }),
    requestId: z.string().optional().meta({ description: "Same as the X-Request-Id response header." }),
    errors: z.array(FieldProblemSchema).optional().meta({ description: "Every field problem, for validation failures." }),
  })
  .meta({ id: "Problem", description: "RFC 9457 problem details (application/problem+json)." });
export type Problem = z.infer<typeof ProblemSchema>;
