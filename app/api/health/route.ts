import { getDeps } from "@/server/deps";
import { liveness } from "@/server/observability/health";

export const dynamic = "force-dynamic";

/**
 * GET /api/health (liveness): database reachable, migrations applied, version; 503 when not.
 * The served app answers it before Next (server/roles/ops-http.ts); this door serves the same answer.
 */
export async function GET() {
  try {
    const a = await liveness(await getDeps());
    return Response.json(a.body, { status: a.status, headers: a.headers });
  } catch (e) {
    return Response.json({ status: "error", database: (e as Error).message }, { status: 503 });
  }
}
