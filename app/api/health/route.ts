import { getDeps } from "@/server/deps";
import { pendingMigrationCount, appliedMigrationCount } from "@/db/client";
import pkg from "@/package.json";

export const dynamic = "force-dynamic";

/** GET /api/health: database reachable, migrations applied, version. 503 when not healthy. */
export async function GET() {
  try {
    const { db } = await getDeps();
    db.$client.prepare("select 1").get();
    const pending = pendingMigrationCount(db);
    const ok = pending === 0;
    return Response.json(
      { status: ok ? "ok" : "degraded", version: pkg.version, database: "ok", migrations: { applied: appliedMigrationCount(db), pending }, node: process.version, uptimeS: Math.round(process.uptime()) },
      { status: ok ? 200 : 503 },
    );
  } catch (e) {
    return Response.json({ status: "error", version: pkg.version, database: (e as Error).message }, { status: 503 });
  }
}
