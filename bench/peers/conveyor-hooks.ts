/**
 * Conveyor's webhook ingress alone, as bench/ingest.ts measures it next to the bare limit and the
 * peer: a fresh SQLite database (synchronous from BENCH_SYNC), a workspace, an enabled automation
 * `metrics.onAlert` → 3 × `core.filter`, and the lean `/hooks/*` listener of server/main.ts, the
 * database opened as the server opens it (WAL checkpoints on a background thread). No runner (runs
 * stay queued): this measures ingest only.
 * Prints {"port","token","pid"} when listening; on SIGTERM closes, then prints what was stored.
 */
import { groupCommitter } from "@/db/sqlite/group-commit";
import { benchDeps, listen, threeStepAutomation } from "../harness";

const sync = (process.env.BENCH_SYNC ?? "NORMAL") as "NORMAL" | "FULL";
const { deps, db, close } = await benchDeps(sync);
const { token } = await threeStepAutomation(deps, 3, "metrics.onAlert");
const { server, port } = await listen(deps);
console.log(JSON.stringify({ port, token, pid: process.pid }));

process.on("SIGTERM", () => {
  server.close();
  server.closeAllConnections();
  // Let the last grouped commit settle, then count what is durable.
  setTimeout(async () => {
    const count = (sql: string) => (db.$client.prepare(sql).get() as { n: number }).n;
    console.log(
      JSON.stringify({
        storedEvents: count("select count(*) as n from events"),
        queuedRuns: count("select count(*) as n from runs where status = 'queued'"),
        commits: groupCommitter(db).commits,
      }),
    );
    await close();
    process.exit(0);
  }, 200);
});
