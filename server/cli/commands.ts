import { getDeps } from "../deps";
import { env, launchedByNpm } from "../env";
import { setupOwner } from "../services/users/setup-owner";
import { listWorkspaces } from "../services/workspaces/list-workspaces";
import type { Actor, ApiKeyRole } from "../auth/permissions";
import { setProcessRole } from "../roles/process-role";
import type { StartedRole } from "../roles/start";

type Values = {
  email?: string;
  password?: string;
  name?: string;
  role?: string;
  workspace?: string[];
  expires?: string;
  from?: string;
  to?: string;
  "dry-run"?: boolean;
  port?: string;
};

function portOf(value: string | undefined, fallback: number | undefined): number | undefined {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`--port must be a port number (0-65535), not "${value}"`);
  return n;
}

/** Runs until SIGTERM/SIGINT, then stops gracefully (in-flight work finishes, leases are given back). */
function untilSignal(started: StartedRole, what: string): null {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.error(`${signal}: stopping the ${what} (finishing in-flight work)…`);
    started.stop().then(
      () => process.exit(0),
      (e: Error) => {
        console.error(`conveyor: ${e.message}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  // Started through npm (`npx conveyor worker`, `npm run worker`): npx runs this under `sh -c`, and a
  // SIGTERM sent to npx's pid (`kill`, a supervisor) ends npx and that shell without ever reaching this
  // process, which went on taking work as an orphan. The launcher going away counts as the signal.
  const npmCommand = launchedByNpm();
  if (npmCommand) {
    const launcher = process.ppid;
    const watch = setInterval(() => {
      if (process.ppid !== launcher) stop(`${npmCommand === "exec" ? "npx" : "npm"} (pid ${launcher}) exited`);
    }, 500);
    watch.unref();
  }
  return null;
}

const KEY_ROLES = ["admin", "editor", "operator", "viewer"];

async function systemActor(): Promise<Actor> {
  const deps = await getDeps();
  const org = await deps.store.organizations.first();
  if (!org) throw new Error("No organization yet: run `conveyor owner create` first.");
  return { kind: "system", organizationId: org.id, label: "cli" };
}

/** Returns an exit code, or null for long-running commands (worker, ingress). */
export async function runCommand(positionals: string[], values: Values): Promise<number | null> {
  const [group, verb] = positionals;
  const cmd = `${group} ${verb ?? ""}`.trim();
  switch (cmd) {
    case "migrate": {
      const deps = await getDeps(); // opening applies pending migrations
      console.log(`Database ${env.scaleOut ? "(PostgreSQL)" : env.databasePath} is up to date.`);
      await deps.store.close();
      return 0;
    }
    case "migrate-to-postgres": {
      const { migrateToPostgresCommand } = await import("./migrate-to-postgres");
      return migrateToPostgresCommand({ from: values.from, to: values.to, dryRun: values["dry-run"] }, env);
    }
    case "owner create": {
      if (!values.email || !values.password) throw new Error("owner create needs --email and --password");
      const r = await setupOwner(await getDeps(), { email: values.email, password: values.password, name: values.name });
      console.error(`Owner ${r.user.email} created with workspace ${r.workspace.id}.`);
      console.log(r.workspace.id);
      return 0;
    }
    case "workspaces list": {
      const deps = await getDeps();
      for (const w of await listWorkspaces(deps, await systemActor())) console.log(`${w.id}\t${w.name}`);
      return 0;
    }
    case "keys create": {
      if (!values.name || !values.role) throw new Error("keys create needs --name and --role");
      if (!KEY_ROLES.includes(values.role)) throw new Error(`--role must be one of ${KEY_ROLES.join(", ")}`);
      const { createApiKey } = await import("../services/api-keys/api-keys");
      const r = await createApiKey(await getDeps(), await systemActor(), {
        name: values.name,
        role: values.role as ApiKeyRole,
        workspaceIds: values.workspace?.length ? values.workspace : null,
        expiresAt: values.expires ?? null,
      });
      // Only the key on stdout, so scripts can capture it: KEY=$(npx conveyor keys create …)
      console.log(r.key);
      return 0;
    }
    case "keys list": {
      // One line per key, tab-separated: id, prefix, name, role, workspaces (* = all), status, last used.
      const { listApiKeys } = await import("../services/api-keys/api-keys");
      for (const k of await listApiKeys(await getDeps(), await systemActor()))
        console.log([k.id, k.prefix, k.name, k.role, k.workspaceIds?.join(",") ?? "*", k.status, k.lastUsedAt ?? "never"].join("\t"));
      return 0;
    }
    case "keys revoke": {
      const which = positionals[2];
      if (!which) throw new Error("keys revoke needs the key's id (key_…) or prefix (cvk_…), as `keys list` shows them");
      const { listApiKeys, revokeApiKey } = await import("../services/api-keys/api-keys");
      const deps = await getDeps();
      const actor = await systemActor();
      const key = (await listApiKeys(deps, actor)).find((k) => k.id === which || k.prefix === which || which.startsWith(`${k.prefix}_`));
      if (!key) throw new Error(`No API key ${which}; \`conveyor keys list\` shows the ids and prefixes`);
      const r = await revokeApiKey(deps, actor, key.id);
      console.error(`API key ${r.prefix} (${r.name}) is revoked; requests with it now answer 401.`);
      return 0;
    }
    case "worker": {
      setProcessRole("worker");
      const port = portOf(values.port, env.CONVEYOR_WORKER_PORT);
      const [{ startWorker }, { startProcessMemoryReducer }] = await Promise.all([import("../roles/start"), import("../memory-reducer")]);
      startProcessMemoryReducer(env);
      const started = await startWorker(await getDeps(), env, { port });
      const where = started.port !== undefined ? `; health, readiness and metrics on http://${env.HOST}:${started.port}` : "";
      console.error(`Conveyor worker running against ${env.scaleOut ? "PostgreSQL + Redis" : env.databasePath}${where}. Ctrl+C to stop.`);
      return untilSignal(started, "worker");
    }
    case "ingress": {
      setProcessRole("ingress"); // before the deps: ingress processes get a fail-fast PostgreSQL pool
      const port = portOf(values.port, env.CONVEYOR_INGRESS_PORT)!;
      const [{ startIngress }, { startProcessMemoryReducer }] = await Promise.all([import("../roles/start"), import("../memory-reducer")]);
      startProcessMemoryReducer(env);
      const started = await startIngress(await getDeps(), env, { port });
      console.error(
        `Conveyor ingress listening on http://${env.HOST}:${started.port} (/hooks/…, /api/health, /api/health/ready, /metrics) against ${env.scaleOut ? "PostgreSQL + Redis" : env.databasePath}. Ctrl+C to stop.`,
      );
      return untilSignal(started, "ingress");
    }
    default:
      throw new Error(`unknown command "${positionals.join(" ")}"; run conveyor --help`);
  }
}
