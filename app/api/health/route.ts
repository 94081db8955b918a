import { getDeps } from "@/server/deps";
import pkg from "@/package.json";

export const dynamic = "force-dynamic";

/** GET /api/health: database reachable, migrations applied, version. 503 when not healthy. */
export async function GET() {
  try {
    const { store } = await getDeps();
    await store.ping();
    const migrations = await store.migrations.status();
    const ok = migrations.pending === 0;
    return Response.json(
      { status: ok ? "ok" : "degraded", version: pkg.version, database: "ok", migrations: { applied: migrations.applied, pending: migrations.pending }, node: process.version, uptimeS: Math.round(process.uptime()) },
      { status: ok ? 200 : 503 },
    );
  } catch (e) {
    return Response.json({ status: "error", version: pkg.version, database: (e as Error).message }, { status: 503 });
  }
}
