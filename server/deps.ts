/**
 * Process-wide dependencies for the doors (pages, tRPC, REST, webhooks, runner, CLI):
 * the database, the secret box, the public URL and a logger. Built once from env and cached on
 * globalThis (Next dev re-evaluates modules; the custom server and Next's bundle share it).
 * Services receive these as arguments, so tests pass their own (see server/testing.ts).
 */
import type { Db } from "@/db/client";
import type { SecretBox } from "./crypto/secret-box";
import type { Logger } from "@/integrations/core/define";

export interface AppDeps {
  db: Db;
  box: SecretBox;
  /** Base URL for webhook URLs and OAuth redirects, no trailing slash. */
  publicUrl: string;
  log: Logger;
  now: () => Date;
}

const KEY = Symbol.for("conveyor.deps");
type G = typeof globalThis & { [KEY]?: AppDeps };

export async function getDeps(): Promise<AppDeps> {
  const g = globalThis as G;
  if (g[KEY]) return g[KEY];
  const [{ env }, { openDb }, { createSecretBox, loadOrCreateKey }, { createLogger }] = await Promise.all([
    import("./env"),
    import("@/db/client"),
    import("./crypto/secret-box"),
    import("./logger"),
  ]);
  if (g[KEY]) return g[KEY];
  const deps: AppDeps = {
    db: openDb(env.databasePath, { synchronous: env.CONVEYOR_SYNCHRONOUS }),
    box: createSecretBox(loadOrCreateKey(env.dataDir, env.CONVEYOR_SECRET_KEY)),
    publicUrl: env.publicUrl,
    log: createLogger({ service: "conveyor" }, env.LOG_LEVEL),
    now: () => new Date(),
  };
  const { installEgressGuard } = await import("./services/settings/egress-policy");
  installEgressGuard(deps, { endpoints: env.serviceEndpoints, allowPrivateByDefault: env.CONVEYOR_EGRESS_PRIVATE_NETWORKS === "allow" });
  g[KEY] = deps;
  return deps;
}

/** For the custom server / worker / CLI which build deps themselves. */
export function setDeps(deps: AppDeps): void {
  (globalThis as G)[KEY] = deps;
}
