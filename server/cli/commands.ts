import { runnerHooks } from "../runner-hooks";
import { getDeps } from "../deps";
import { env } from "../env";
import { setupOwner } from "../services/users/setup-owner";
import { listWorkspaces } from "../services/workspaces/list-workspaces";
import type { Actor, ApiKeyRole } from "../auth/permissions";

type Values = { email?: string; password?: string; name?: string; role?: string; workspace?: string[]; expires?: string; from?: string; to?: string; "dry-run"?: boolean };

const KEY_ROLES = ["admin", "editor", "operator", "viewer"];

async function systemActor(): Promise<Actor> {
  const deps = await getDeps();
  const org = await deps.store.organizations.first();
  if (!org) throw new Error("No organization yet: run `conveyor owner create` first.");
  return { kind: "system", organizationId: org.id, label: "cli" };
}

/** Returns an exit code, or null for long-running commands (worker). */
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
    case "worker": {
      const deps = await getDeps();
      const { startRunner } = await import("../runner/runner-loop");
      const { runnerOptionsFromEnv } = await import("../runner/runner-env");
      const runner = startRunner(deps, runnerHooks(deps), runnerOptionsFromEnv(env));
      console.error(`Conveyor worker running against ${env.databasePath}. Ctrl+C to stop.`);
      const stop = async () => {
        await runner.stop();
        await deps.store.close();
        process.exit(0);
      };
      process.on("SIGTERM", () => void stop());
      process.on("SIGINT", () => void stop());
      return null;
    }
    default:
      throw new Error(`unknown command "${positionals.join(" ")}"; run conveyor --help`);
  }
}
