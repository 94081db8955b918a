import { problemResponse } from "@/server/rest/problem";
import { requestIdOf } from "@/server/rest/api-route";

export const dynamic = "force-dynamic";

/** Unknown paths under /api/v1 answer a JSON 404, never an HTML page. */
async function notFound(request: Request) {
  const path = new URL(request.url).pathname;
  return problemResponse("not_found", `There is no API endpoint at ${request.method} ${path}; see /api/v1/openapi.json.`, {
    instance: path,
    requestId: requestIdOf(request),
  });
}
export const GET = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
