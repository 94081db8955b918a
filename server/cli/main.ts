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
import { helpFor } from "./help";

/** The options each command reads: any other is refused, not ignored (`apply --dry-run` applied for real). */
const OPTIONS_OF: Record<string, string[]> = {
  owner: ["email", "password", "name"],
  keys: ["name", "role", "workspace", "expires"],
  workspaces: [],
  migrate: [],
  "migrate-to-postgres": ["from", "to", "dry-run"],
  worker: ["port"],
  ingress: ["port"],
  schema: [],
  validate: ["format"],
  export: ["workspace", "out", "url", "api-key"],
  plan: ["workspace", "url", "api-key", "prune", "force", "verbose", "format", "commit", "repository"],
  apply: ["workspace", "url", "api-key", "prune", "force", "verbose", "format", "commit", "repository"],
};

function refuseForeignOptions(command: string | undefined, values: Record<string, unknown>): void {
  const allowed = command === undefined ? undefined : OPTIONS_OF[command];
  if (!allowed) return;
  const foreign = Object.keys(values).filter((k) => k !== "help" && values[k] !== undefined && !allowed.includes(k));
  if (!foreign.length) return;
  if (command === "apply" && foreign.includes("dry-run"))
    throw new Error("apply has no --dry-run: conveyor plan shows what apply would change and writes nothing");
  throw new Error(`${command} takes no ${foreign.map((k) => `--${k}`).join(", ")}; run conveyor ${command} --help`);
}

/** node:util's words for an unknown option ("To specify a positional argument starting with a '-'…") → ours. */
function optionError(e: unknown, argv: string[]): unknown {
  const unknown = (e as { code?: string }).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && /option '([^']+)'/.exec((e as Error).message)?.[1];
  if (!unknown) return e;
  const command = argv.find((a) => !a.startsWith("-"));
  return new Error(`unknown option ${unknown}; run conveyor ${command && OPTIONS_OF[command] ? `${command} ` : ""}--help`);
}

async function main(argv: string[]) {
  const { positionals, values } = (() => {
    try {
      return parseArgs({
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
    } catch (e) {
      throw optionError(e, argv);
    }
  })();
  refuseForeignOptions(positionals[0], values);
  if (values.help || positionals.length === 0 || positionals[0] === "help") {
    const command = positionals[0] === "help" ? positionals[1] : positionals[0];
    const help = helpFor(command);
    if (help === null) throw new Error(`unknown command "${command}"; run conveyor --help`);
    console.log(help);
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
