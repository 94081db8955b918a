import { buildOpenApiDocument } from "@/server/rest/openapi";
import { methodNotAllowed } from "@/server/rest/api-route";

export const dynamic = "force-dynamic";

/** GET /api/v1/openapi.json: public (no key needed), generated from server/rest/operations. */
export async function GET() {
  return Response.json(buildOpenApiDocument(), { headers: { "cache-control": "public, max-age=300" } });
}
export const POST = methodNotAllowed(["GET"]);
export const PUT = POST;
export const PATCH = POST;
export const DELETE = POST;
