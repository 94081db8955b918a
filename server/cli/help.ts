/** `conveyor --help` and `conveyor <command> --help`: the overview, and each command's own options. */

export const USAGE = `Usage:
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
  secret references take their values from CONVEYOR_SECRET_<NAME>.

conveyor <command> --help shows one command's options.`;

const SERVER = `Server and key (export, plan, apply):
  --url URL          the Conveyor server (CONVEYOR_URL; default http://localhost:3000)
  --api-key KEY      an API key (CONVEYOR_API_KEY): viewer may export, plan and apply need editor or admin
                     (npx conveyor keys create --name ci --role editor, or Settings → API keys)
  --workspace W      the workspace's id or exact name (CONVEYOR_WORKSPACE); npx conveyor workspaces list shows them`;

const PLAN_OPTIONS = `  --prune            also delete automations, lines and intakes of the workspace that no file describes
  --force            overwrite resources changed in the editor or the API since the last apply
  --verbose, -v      also list unchanged resources
  --format github    problems as GitHub Actions annotations (the default when GITHUB_ACTIONS=true)`;

const COMMANDS: Record<string, string> = {
  owner: `Usage: conveyor owner create --email EMAIL --password PASSWORD [--name NAME]

Creates the owner account of a new installation (headless installs); refused once an owner exists.
The password needs at least 8 characters. Opening the web app on an empty installation does the same.`,
  keys: `Usage:
  conveyor keys create --name NAME --role admin|editor|operator|viewer [--workspace ID]... [--expires ISO-DATE]
      prints only the new key (cvk_…); --workspace (repeatable) limits it to those workspaces
  conveyor keys list               id, prefix, name, role, workspaces, status, last used
  conveyor keys revoke ID|PREFIX   the key (key_… or cvk_…) answers 401 from then on

Works on the configured database (DATABASE_URL / CONVEYOR_DATA_DIR), not through the server.`,
  workspaces: `Usage: conveyor workspaces list

Prints each workspace's id and name (ids are what --workspace and the API's /factories/{id} take).`,
  migrate: `Usage: conveyor migrate

Applies pending database migrations (every start does it too).`,
  "migrate-to-postgres": `Usage: conveyor migrate-to-postgres --to postgres://USER:PASSWORD@HOST:5432/DB [--from SQLITE-FILE] [--dry-run]

Copies a stopped SQLite installation into an empty PostgreSQL database, all or nothing, and prints the
settings to use from then on. --from defaults to the configured SQLite file; --dry-run counts only.
Details: docs/scale-out.md.`,
  worker: `Usage: conveyor worker [--port N]

Runs the runner alone against the configured database until SIGTERM/SIGINT. With --port (or
CONVEYOR_WORKER_PORT) it also serves /api/health, /api/health/ready and /metrics on that port.`,
  ingress: `Usage: conveyor ingress [--port N]

Serves webhook deliveries (/hooks/…) alone, plus /api/health, /api/health/ready and /metrics, until
SIGTERM/SIGINT. Port: --port, else CONVEYOR_INGRESS_PORT, else 3001.`,
  schema: `Usage: conveyor schema > automations/conveyor.schema.json

Prints the JSON Schema of spec files, for editors that complete and check YAML (export writes it too).
Needs neither a server nor a key.`,
  validate: `Usage: conveyor validate DIR [--format text|github]

Checks every *.yaml / *.yml under DIR offline, with the same validation as the editor and the API.
Each problem is printed as file:line:column message; exit code 1 on any problem. Connection names
are checked by plan and apply (they need the workspace). Needs neither a server nor a key.
  --format github    problems as GitHub Actions annotations (the default when GITHUB_ACTIONS=true)`,
  export: `Usage: conveyor export --workspace ID|NAME --out DIR

Writes one YAML file per automation, line and intake of the workspace under DIR (automations/,
lines/, intakes/) and conveyor.schema.json; removes files of resources that no longer exist.

${SERVER}`,
  plan: `Usage: conveyor plan DIR --workspace ID|NAME [--prune] [--force] [--verbose]

Validates the files, then shows what apply would create, change (field by field) and delete. Writes
nothing. Exit code 0 when it could plan, 1 on problems or on changes made outside the files.

${PLAN_OPTIONS}

${SERVER}
Secret references take their values from CONVEYOR_SECRET_<NAME> (e.g. CONVEYOR_SECRET_ALERT_INBOX).`,
  apply: `Usage: conveyor apply DIR --workspace ID|NAME [--prune] [--force] [--commit SHA] [--repository URL]

Validates the files and applies them all or nothing. Refuses (nothing applied) when a resource was
changed in the editor or the API since the last apply, unless --force. Exit code 0 when applied.

${PLAN_OPTIONS}
  --commit SHA       the commit recorded with each resource (default: GITHUB_SHA, CI_COMMIT_SHA or git HEAD)
  --repository URL   the repository recorded (default: GITHUB_REPOSITORY, CI_PROJECT_URL or git's origin)

${SERVER}
Secret references take their values from CONVEYOR_SECRET_<NAME> (e.g. CONVEYOR_SECRET_ALERT_INBOX).`,
};

/** The help to print for `conveyor [command] --help`; null for a command that does not exist. */
export function helpFor(command: string | undefined): string | null {
  if (command === undefined || command === "help") return USAGE;
  return COMMANDS[command] ?? null;
}
