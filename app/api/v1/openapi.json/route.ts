import { buildOpenApiDocument } from "@/server/rest/openapi";
import { methodNotAllowed, requestIdOf } from "@/server/rest/api-route";

export const dynamic = "force-dynamic";

/** GET /api/v1/openapi.json: public (no key needed), generated from server/rest/operations. */
export async function GET(request: Request) {
  return Response.json(buildOpenApiDocument(), { headers: { "cache-control": "public, max-age=300", "x-request-id": requestIdOf(request) } });
}
export const POST = methodNotAllowed(["GET"]);
export const PUT = POST;
export const PATCH = POST;
export const DELETE = POST;
