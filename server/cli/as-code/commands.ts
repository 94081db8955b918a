/**
 * `conveyor schema | validate | export | plan | apply` (docs/automations-as-code.md). validate and
 * schema work offline; export, plan and apply talk to a running server through the public REST API.
 */
import path from "node:path";
import { clientEnv, secretFromEnv } from "../../env";
import { isSecretRef, secretEnvName, type Bundle, type ImportBody, type ImportResult } from "../../contracts/as-code";
import { buildFilesJsonSchema } from "../../as-code/json-schema";
import { getPath, secretPathsFor } from "../../as-code/units";
import { validateFiles, type ValidatedFiles } from "../../as-code/validate-files";
import { ApiError, createClient, resolveWorkspace } from "./client";
import { gitSource, readSpecFiles, writeExport } from "./files";
import { formatPlan, mapServerProblems, printProblems } from "./output";

export type AsCodeValues = {
  workspace?: string;
  out?: string;
  url?: string;
  "api-key"?: string;
  prune?: boolean;
  force?: boolean;
  commit?: string;
  repository?: string;
  format?: string;
  verbose?: boolean;
};

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const counts = (b: Bundle) => `${count(b.apps.length, "automation")}, ${count(b.lines.length, "line")}, ${count(b.intakes.length, "intake")}`;

export const AS_CODE_COMMANDS = ["schema", "validate", "export", "plan", "apply"];

function validateDir(
  dirArg: string | undefined,
  format: "text" | "github",
): { ok: boolean; v: ValidatedFiles; dir: string; files: ReturnType<typeof readSpecFiles> } {
  const { cwd } = clientEnv();
  if (!dirArg) throw new Error("Name the folder of spec files, e.g. conveyor validate automations/");
  const dir = path.resolve(cwd, dirArg);
  const files = readSpecFiles(dir, cwd);
  const v = validateFiles(files);
  printProblems(v.problems, format);
  return { ok: v.problems.length === 0, v, dir, files };
}

/** Secret values for the references in the bundle, from CONVEYOR_SECRET_<NAME> (names only are ever printed). */
function secretsFromEnv(bundle: Bundle): { values: Record<string, string>; names: string[] } {
  const names = new Set<string>();
  for (const a of bundle.apps) {
    for (const n of a.graph.nodes) {
      for (const p of secretPathsFor(n.key)) {
        const ref = getPath(n.config, p);
        if (isSecretRef(ref)) names.add(ref.secret);
      }
    }
  }
  for (const t of bundle.intakes) names.add(t.secret.secret);
  const values: Record<string, string> = {};
  for (const name of names) {
    const v = secretFromEnv(secretEnvName(name));
    if (v !== undefined) values[name] = v;
  }
  return { values, names: Object.keys(values).sort() };
}

async function planOrApply(dirArg: string | undefined, values: AsCodeValues, apply: boolean, format: "text" | "github"): Promise<number> {
  const env = clientEnv();
  const { ok, v, dir, files } = validateDir(dirArg, format);
  if (!ok) {
    console.error(`${v.problems.length} problem${v.problems.length === 1 ? "" : "s"}; nothing was sent to the server.`);
    return 1;
  }
  const client = createClient({ url: values.url ?? env.url, apiKey: values["api-key"] ?? env.apiKey });
  const ws = await resolveWorkspace(client, values.workspace ?? env.workspace);
  const git = gitSource(dir, env.cwd, { repository: values.repository ?? env.repository, commit: values.commit ?? env.commit });
  const abs = new Map(files.map((f) => [f.file, f.abs]));
  const sourceFiles: Record<string, string> = {};
  for (const [id, f] of v.byResource) sourceFiles[id] = git.pathOf(abs.get(f.parsed.file)!);
  const secrets = secretsFromEnv(v.bundle);
  const body: ImportBody = {
    ...v.bundle,
    dryRun: !apply,
    prune: !!values.prune,
    force: !!values.force,
    secrets: secrets.values,
    source: { repository: git.repository, commit: git.commit, files: sourceFiles },
  };
  console.log(`Workspace "${ws.name}" (${ws.id}) at ${client.base}${git.commit ? `, files at ${git.commit}` : ""}`);
  if (secrets.names.length) console.log(`Secrets from the environment: ${secrets.names.join(", ")}`);
  try {
    const r = await client.post<ImportResult>(`/factories/${ws.id}/import`, body);
    console.log(formatPlan(r, { verbose: values.verbose }));
    if (!apply && r.conflicts.length && !values.force) {
      console.error(
        `apply would refuse: ${r.conflicts.length} resource${r.conflicts.length === 1 ? " was" : "s were"} changed outside the files since the last apply (export to keep the change, or --force).`,
      );
      return 1;
    }
    return r.setupProblems.length ? 1 : 0;
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    const errors = e.problem.errors ?? [];
    if (errors.length) printProblems(mapServerProblems(errors, v), format);
    const hint = e.problem.status === 413 ? " Raise CONVEYOR_API_MAX_BYTES on the server for a workspace this large (docs/automations-as-code.md)." : "";
    // The server's detail repeats the first problem by its body path (apps.1.graph.nodes.0.connection): the file positions above say it better.
    const why = errors.length ? `${errors.length} problem${errors.length === 1 ? "" : "s"} (listed above)` : (e.problem.detail ?? e.message);
    console.error(`${apply ? "Nothing was applied" : "Plan failed"}: ${why}${hint}`);
    return 1;
  }
}

export async function runAsCodeCommand(positionals: string[], values: AsCodeValues): Promise<number> {
  const [cmd, arg] = positionals;
  const env = clientEnv();
  const format = values.format === "github" || (values.format === undefined && env.githubActions) ? "github" : "text";
  switch (cmd) {
    case "schema":
      process.stdout.write(JSON.stringify(buildFilesJsonSchema(), null, 2) + "\n");
      return 0;
    case "validate": {
      const { ok, v, files } = validateDir(arg, format);
      if (ok) console.log(`${files.length} file${files.length === 1 ? "" : "s"} valid: ${counts(v.bundle)}.`);
      else console.error(`${v.problems.length} problem${v.problems.length === 1 ? "" : "s"} in ${new Set(v.problems.map((p) => p.file)).size} file(s).`);
      return ok ? 0 : 1;
    }
    case "export": {
      if (!values.out) throw new Error("export needs --out <folder>");
      const client = createClient({ url: values.url ?? env.url, apiKey: values["api-key"] ?? env.apiKey });
      const ws = await resolveWorkspace(client, values.workspace ?? env.workspace);
      const bundle = await client.get<Bundle>(`/factories/${ws.id}/export`);
      const out = path.resolve(env.cwd, values.out);
      const r = writeExport(out, bundle);
      console.log(
        `Exported "${ws.name}" to ${path.relative(env.cwd, out) || "."}: ${counts(bundle)}${r.removed.length ? `; removed ${r.removed.join(", ")}` : ""}.`,
      );
      return 0;
    }
    case "plan":
      return planOrApply(arg, values, false, format);
    case "apply":
      return planOrApply(arg, values, true, format);
    default:
      throw new Error(`unknown command "${cmd}"`);
  }
}
