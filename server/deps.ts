/**
 * Process-wide dependencies for the doors (pages, tRPC, REST, webhooks, runner, CLI):
 * the database, the secret box, the public URL and a logger. Built once from env and cached on
 * globalThis (Next dev re-evaluates modules; the custom server and Next's bundle share it).
 * Services receive these as arguments, so tests pass their own (see server/testing.ts).
 */
import type { Store } from "@/db/store";
import type { WorkQueue } from "@/db/queue/types";
import type { PgOptions } from "@/db/pg/backend";
import type { SecretBox } from "./crypto/secret-box";
import type { Env } from "./env";
import type { ProcessRoleName } from "./roles/process-role";
import type { Logger } from "@/integrations/core/define";

export interface AppDeps {
  /** Every read and write of state goes through the store (SQLite or PostgreSQL). */
  store: Store;
  /** Where committed work is published for runners (embedded SQLite queue, or BullMQ in scale-out mode). */
  queue: WorkQueue;
  box: SecretBox;
  /** Base URL for webhook URLs and OAuth redirects, no trailing slash. */
  publicUrl: string;
  log: Logger;
  now: () => Date;
}

const KEY = Symbol.for("conveyor.deps");
type G = typeof globalThis & { [KEY]?: AppDeps };

const PENDING = Symbol.for("conveyor.deps.pending");
type GP = typeof globalThis & { [PENDING]?: Promise<AppDeps> };

export async function getDeps(): Promise<AppDeps> {
  const g = globalThis as G & GP;
  if (g[KEY]) return g[KEY];
  g[PENDING] ??= buildDeps().then((d) => (g[KEY] ??= d));
  return g[PENDING];
}

async function buildDeps(): Promise<AppDeps> {
  const [{ env }, { openStorage }, { createSecretBox, loadOrCreateKey }, { createLogger }] = await Promise.all([
    import("./env"),
    import("@/db/open"),
    import("./crypto/secret-box"),
    import("./logger"),
  ]);
  const { processRole } = await import("./roles/process-role");
  const { role } = processRole();
  const log = createLogger({ service: "conveyor", role }, env.LOG_LEVEL);
  const storage = await openStorage(env.databasePath, { synchronous: env.CONVEYOR_SYNCHRONOUS, checkpoint: true, pg: pgOptions(env, role) });
  storage.store.outage.setSink((level, msg, fields) => log[level](msg, fields));
  const queue =
    storage.queue ??
    (await (
      await import("@/db/queue/bullmq")
    ).openBullmqQueue(env.REDIS_URL!, storage, { prefix: env.CONVEYOR_QUEUE_PREFIX, log: (msg, fields) => log.warn(msg, fields) }));
  const deps: AppDeps = {
    store: storage.store,
    queue,
    box: createSecretBox(loadOrCreateKey(env.dataDir, env.CONVEYOR_SECRET_KEY)),
    publicUrl: env.publicUrl,
    log,
    now: () => new Date(),
  };
  // A web, ingress or worker process with another key than the rest stops here, not at every secret it meets.
  if (env.scaleOut && role !== "cli") await (await import("./crypto/key-check")).checkSecretKey(deps.store, deps.box);
  const { installEgressGuard } = await import("./services/settings/egress-policy");
  installEgressGuard(deps, { endpoints: env.serviceEndpoints, allowPrivateByDefault: env.CONVEYOR_EGRESS_PRIVATE_NETWORKS === "allow" });
  return deps;
}

/**
 * The PostgreSQL pool of this process. Ingress processes fail fast (2 s to connect or get a
 * connection, 3 s statement timeout, the client giving up 1 s after that): a database that is down
 * or blackholed turns into 503 + Retry-After within seconds instead of requests hanging. Others
 * wait longer (5 s, 30 s + 5 s): runners and the editor prefer a slow answer to an error.
 */
export function pgOptions(
  env: Pick<Env, "CONVEYOR_PG_POOL_MAX" | "CONVEYOR_PG_CONNECT_TIMEOUT_MS" | "CONVEYOR_PG_STATEMENT_TIMEOUT_MS">,
  role: ProcessRoleName,
): PgOptions {
  const lean = role === "ingress";
  const statementTimeoutMs = env.CONVEYOR_PG_STATEMENT_TIMEOUT_MS ?? (lean ? 3000 : 30_000);
  return {
    max: env.CONVEYOR_PG_POOL_MAX,
    connectTimeoutMs: env.CONVEYOR_PG_CONNECT_TIMEOUT_MS ?? (lean ? 2000 : 5000),
    statementTimeoutMs,
    queryTimeoutMs: statementTimeoutMs + (lean ? 1000 : 5000),
    applicationName: `conveyor-${role}`,
  };
}

/**
 * Deps over already-opened storage (child processes, benchmarks, test harnesses). PostgreSQL storage
 * has no queue of its own: the caller names the Redis server (only server/env.ts reads the environment).
 */
export async function depsFromStorage(
  storage: import("@/db/open").OpenedStorage,
  rest: Pick<AppDeps, "box" | "publicUrl" | "log" | "now">,
  redis?: { url?: string; prefix?: string },
): Promise<AppDeps> {
  storage.store.outage.setSink((level, msg, fields) => rest.log[level](msg, fields));
  if (storage.queue) return { store: storage.store, queue: storage.queue, ...rest };
  if (!redis?.url) throw new Error("depsFromStorage: PostgreSQL storage needs a Redis URL for its queue (pass redis.url)");
  const { openBullmqQueue } = await import("@/db/queue/bullmq");
  return { store: storage.store, queue: await openBullmqQueue(redis.url, storage, { prefix: redis.prefix }), ...rest };
}

/** For the custom server / worker / CLI which build deps themselves. */
export function setDeps(deps: AppDeps): void {
  (globalThis as G)[KEY] = deps;
}
