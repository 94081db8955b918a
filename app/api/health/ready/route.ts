import { getDeps } from "@/server/deps";
import { readiness, RETRY_AFTER_S } from "@/server/observability/health";
import { problemResponse } from "@/server/rest/problem";
import { processRole } from "@/server/roles/process-role";

export const dynamic = "force-dynamic";

/**
 * GET /api/health/ready (readiness): 200 only while this process can do its job, else 503
 * problem+json naming what is down. The served app answers it before Next (server/roles/ops-http.ts);
 * this door serves the same answer.
 */
export async function GET() {
  try {
    const a = await readiness(await getDeps(), processRole());
    return new Response(JSON.stringify(a.body), { status: a.status, headers: a.headers });
  } catch (e) {
    return problemResponse("unavailable", `Not ready: ${(e as Error).message}`, { headers: { "retry-after": String(RETRY_AFTER_S) } });
  }
}
