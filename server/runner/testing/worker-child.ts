/**
 * A runner in its own process, for crash / multi-worker tests:
 *   DB_FILE=… SECRET_HEX=… LEASE_MS=… CONCURRENCY=… [QUARANTINE_AFTER=…] node --import tsx server/runner/testing/worker-child.ts
 * Prints "ready" once running; SIGTERM stops it gracefully.
 */
import { openDb } from "@/db/client";
import { createSecretBox } from "../../crypto/secret-box";
import { silentLogger } from "../../logger";
import { startRunner } from "../runner-loop";
import { registerStubs } from "./stub-integration";

registerStubs();
const db = openDb(process.env.DB_FILE!);
const deps = { db, box: createSecretBox(Buffer.from(process.env.SECRET_HEX!, "hex")), publicUrl: "http://127.0.0.1:3999", log: silentLogger, now: () => new Date() };
const runner = startRunner(deps, {
  concurrency: Number(process.env.CONCURRENCY ?? 4),
  leaseMs: Number(process.env.LEASE_MS ?? 2000),
  pollMs: 20,
  maintenance: false,
  workerId: process.env.WORKER_ID,
  quarantineAfter: process.env.QUARANTINE_AFTER ? Number(process.env.QUARANTINE_AFTER) : undefined,
});
process.stdout.write("ready\n");
process.on("SIGTERM", () => {
  runner.stop().then(() => {
    db.$client.close();
    process.exit(0);
  });
});
