/**
 * The command line (`npx conveyor …`): headless bootstrap for scripts and CI.
 *   conveyor owner create --email E --password P [--name N]
 *   conveyor keys create --name N --role R [--workspace ID]… [--expires ISO]   (prints only the key)
 *   conveyor keys list | keys revoke ID|PREFIX
 *   conveyor workspaces list
 *   conveyor migrate
 *   conveyor migrate-to-postgres --to postgres://… [--from FILE] [--dry-run]
 *   conveyor worker [--port N]      the runner (+ health/readiness/metrics on N, or CONVEYOR_WORKER_PORT)
 *   conveyor ingress [--port N]     the lean /hooks listener alone (+ health/readiness/metrics), default port 3001
 *   conveyor schema | validate DIR | export --workspace W --out DIR | plan DIR --workspace W | apply DIR --workspace W
 *     (automations as code: docs/automations-as-code.md)
 */
import { parseArgs } from "node:util";
import { formatCliError } from "./format-error";

const USAGE = `Usage:
  conveyor owner create --email EMAIL --password PASSWORD [--name NAME]
  conveyor keys create --name NAME --role admin|editor|operator|viewer [--workspace ID]... [--expires ISO-DATE]
  conveyor keys list                               id, prefix, name, role, workspaces, status, last used
  conveyor keys revoke ID|PREFIX                   revoke a key (key_… or cvk_…)
  conveyor workspaces list
  conveyor migrate
  conveyor migrate-to-postgres --to postgres://USER:PASSWORD@HOST:5432/DB [--from SQLITE-FILE] [--dry-run]
      copies a stopped SQLite installation into an empty PostgreSQL database (docs/scale-out.md)
  conveyor worker [--port N]     the runner alone (+ /api/health, /api/health/ready, /metrics on port N)
  conveyor ingress [--port N]    webhook ingress alone: /hooks/… (+ health, readiness, metrics), default port $CONVEYOR_INGRESS_PORT or 3001

Automations as code (docs/automations-as-code.md):
  conveyor schema                                  print the JSON Schema of spec files
  conveyor validate DIR [--format text|github]     check spec files offline (exit 1 on any problem)
  conveyor export --workspace ID|NAME --out DIR    write one YAML file per automation, line and intake
  conveyor plan DIR --workspace ID|NAME [--prune] [--force] [--verbose]
  conveyor apply DIR --workspace ID|NAME [--prune] [--force] [--commit SHA] [--repository URL]
  Server and key: --url (CONVEYOR_URL, default http://localhost:3000), --api-key (CONVEYOR_API_KEY);
  secret references take their values from CONVEYOR_SECRET_<NAME>.`;

async function main(argv: string[]) {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      email: { type: "string" },
      password: { type: "string" },
      name: { type: "string" },
      role: { type: "string" },
      workspace: { type: "string", multiple: true },
      expires: { type: "string" },
      out: { type: "string" },
      url: { type: "string" },
      "api-key": { type: "string" },
      prune: { type: "boolean" },
      force: { type: "boolean" },
      commit: { type: "string" },
      repository: { type: "string" },
      format: { type: "string" },
      verbose: { type: "boolean", short: "v" },
      from: { type: "string" },
      to: { type: "string" },
      "dry-run": { type: "boolean" },
      port: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help || positionals.length === 0) {
    console.log(USAGE);
    return 0;
  }
  // Client commands load neither the database nor the server's settings.
  const asCode = await import("./as-code/commands");
  if (asCode.AS_CODE_COMMANDS.includes(positionals[0]!)) return asCode.runAsCodeCommand(positionals, { ...values, workspace: values.workspace?.[0] });
  const { runCommand } = await import("./commands");
  return runCommand(positionals, values);
}

main(process.argv.slice(2)).then(
  (code) => {
    // The worker and the ingress keep running until a signal; every other command exits.
    if (code !== null) process.exit(code);
  },
  (e: Error & { errors?: { path: string; message: string }[] }) => {
    console.error(formatCliError(e));
    process.exit(1);
  },
);
