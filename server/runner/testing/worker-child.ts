/**
 * A runner in its own process, for crash / multi-worker tests:
 *   DB_URL=… SECRET_HEX=… LEASE_MS=… CONCURRENCY=… [QUARANTINE_AFTER=…] node --import tsx server/runner/testing/worker-child.ts
 * Prints "ready" once running; SIGTERM stops it gracefully.
 */
import { runnerHooks } from "../../runner-hooks";
import { openStorage } from "@/db/open";
import { createSecretBox } from "../../crypto/secret-box";
import { silentLogger } from "../../logger";
import { depsFromStorage, type AppDeps } from "../../deps";
import { startRunner } from "../runner-loop";
import { registerStubs } from "./stub-integration";

registerStubs();
const storage = await openStorage(process.env.DB_URL!, { migrate: false });
const deps: AppDeps = await depsFromStorage(
  storage,
  { box: createSecretBox(Buffer.from(process.env.SECRET_HEX!, "hex")), publicUrl: "http://127.0.0.1:3999", log: silentLogger, now: () => new Date() },
  { url: process.env.REDIS_URL ?? process.env.CONVEYOR_TEST_REDIS_URL, prefix: process.env.QUEUE_PREFIX },
);
const runner = startRunner(deps, runnerHooks(deps), {
  concurrency: Number(process.env.CONCURRENCY ?? 4),
  leaseMs: Number(process.env.LEASE_MS ?? 2000),
  pollMs: 20,
  maintenance: false,
  workerId: process.env.WORKER_ID,
  quarantineAfter: process.env.QUARANTINE_AFTER ? Number(process.env.QUARANTINE_AFTER) : undefined,
});
process.stdout.write("ready\n");
process.on("SIGTERM", () => {
  runner.stop().then(async () => {
    await storage.store.close();
    process.exit(0);
  });
});
