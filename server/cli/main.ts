/**
 * The command line (`npx conveyor …`): headless bootstrap for scripts and CI.
 *   conveyor owner create --email E --password P [--name N]
 *   conveyor keys create --name N --role R [--workspace ID]… [--expires ISO]   (prints only the key)
 *   conveyor workspaces list
 *   conveyor migrate
 *   conveyor migrate-to-postgres --to postgres://… [--from FILE] [--dry-run]
 *   conveyor worker [--port N]      the runner (+ health/readiness/metrics on N, or CONVEYOR_WORKER_PORT)
 *   conveyor ingress [--port N]     the lean /hooks listener alone (+ health/readiness/metrics), default port 3001
 */
import { parseArgs } from "node:util";
import { runCommand } from "./commands";

const USAGE = `Usage:
  conveyor owner create --email EMAIL --password PASSWORD [--name NAME]
  conveyor keys create --name NAME --role admin|editor|operator|viewer [--workspace ID]... [--expires ISO-DATE]
  conveyor workspaces list
  conveyor migrate
  conveyor migrate-to-postgres --to postgres://USER:PASSWORD@HOST:5432/DB [--from SQLITE-FILE] [--dry-run]
      copies a stopped SQLite installation into an empty PostgreSQL database (docs/scale-out.md)
  conveyor worker [--port N]     the runner alone (+ /api/health, /api/health/ready, /metrics on port N)
  conveyor ingress [--port N]    webhook ingress alone: /hooks/… (+ health, readiness, metrics), default port $CONVEYOR_INGRESS_PORT or 3001`;

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
  return runCommand(positionals, values);
}

main(process.argv.slice(2)).then(
  (code) => {
    // The worker and the ingress keep running until a signal; every other command exits.
    if (code !== null) process.exit(code);
  },
  (e: Error) => {
    console.error(`conveyor: ${e.message}`);
    process.exit(1);
  },
);
