/**
 * Webhook ingest: wrk -t2 -c32 on loopback against the lean listener, Alertmanager body, each
 * delivery committed (grouped per tick) before its 202; afterwards every accepted delivery is
 * checked in the database. Prints one JSON line.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { startCheckpointer } from "@/db/sqlite/checkpointer";
import { groupCommitter } from "@/db/sqlite/group-commit";
import { BODY, benchDeps, listen, threeStepAutomation } from "./harness";

const duration = process.env.BENCH_SECONDS ?? "10";
const sync = (process.env.BENCH_SYNC ?? "NORMAL") as "NORMAL" | "FULL";
const { deps, db, dir, close } = await benchDeps(sync);
const { token } = await threeStepAutomation(deps);
const { server, port } = await listen(deps);
const checkpointer = process.env.BENCH_CHECKPOINTER === "0" ? null : startCheckpointer(db); // as in the server, where the runner starts it
const bodyFile = path.join(dir, "body.json");
fs.writeFileSync(bodyFile, BODY);

const run = (secs: string) =>
  new Promise<string>((resolve, reject) => {
    const p = spawn("wrk", ["-t2", "-c32", `-d${secs}s`, "-s", path.join(import.meta.dirname, "post.lua"), `http://127.0.0.1:${port}/hooks/${token}`], { env: { ...process.env, BODY_FILE: bodyFile } });
    let out = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (out += d));
    p.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(out))));
  });

await run("2"); // warm-up (JIT, caches)
await new Promise((r) => setTimeout(r, 300)); // let the warm-up's last deliveries commit before counting
const before = (db.$client.prepare("select count(*) as n from events").get() as { n: number }).n;
const commitsBefore = groupCommitter(db).commits;
const cpu0 = process.cpuUsage();
const out = await run(duration);
const cpu = process.cpuUsage(cpu0);
await new Promise((r) => setTimeout(r, 200));
const num = (re: RegExp) => Number(out.match(re)?.[1] ?? NaN);
const accepted = num(/ACCEPTED (\d+)/);
const other = num(/OTHER (\d+)/);
const stored = (db.$client.prepare("select count(*) as n from events").get() as { n: number }).n - before;
const runs = (db.$client.prepare("select count(*) as n from runs r join jobs j on j.run_id = r.id").get() as { n: number }).n;
const result = {
  bench: "ingest",
  synchronous: sync,
  seconds: Number(duration),
  accepted,
  refused: other,
  perSecond: Math.round(accepted / Number(duration)),
  p50ms: num(/P50 ([\d.]+)/),
  p90ms: num(/P90 ([\d.]+)/),
  p99ms: num(/P99 ([\d.]+)/),
  storedEvents: stored,
  queuedRunsWithJobs: runs,
  allAcceptedDurable: stored >= accepted && stored - accepted <= 32,
  commits: groupCommitter(db).commits - commitsBefore,
  busyRetries: groupCommitter(db).busyRetries,
  serverCpuMicrosPerDelivery: Math.round((cpu.user + cpu.system) / accepted),
};
console.log(JSON.stringify(result));
server.close();
await checkpointer?.stop();
close();
process.exit(0);
