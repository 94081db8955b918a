/** How plan/apply results and server problems are printed (never a secret value: the server sends none). */
import type { ImportResult } from "../../contracts/as-code";
import { formatProblem, type FileProblem } from "../../as-code/yaml-files";
import { problemAt, specPath, type ValidatedFiles } from "../../as-code/validate-files";

const SIGN = { create: "+", update: "~", delete: "-", unchanged: " ", unmanaged: "?" } as const;

function show(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? "(none)" : s.length > 120 ? `${s.slice(0, 117)}…` : s;
}

export function formatPlan(r: ImportResult, opts: { verbose?: boolean } = {}): string {
  const out: string[] = [];
  for (const e of r.entries) {
    if (e.action === "unchanged" && !opts.verbose) continue;
    const where = e.file ? `  (${e.file})` : "";
    if (e.action === "unmanaged") {
      out.push(`  ${e.kind} ${e.key}: not in the files (kept; --prune deletes it)`);
      continue;
    }
    out.push(`${SIGN[e.action]} ${e.kind} ${e.key}${where}`);
    for (const c of e.changes) {
      if (c.secret) out.push(`    ~ ${c.path}: (secret value changes)`);
      // An edge is its path (graph.edges[n1→n2]); its value is only a marker (true).
      else if (c.op === "add") out.push(`    + ${c.path}${c.path.startsWith("graph.edges[") ? "" : `: ${show(c.after)}`}`);
      else if (c.op === "remove") out.push(`    - ${c.path}`);
      else out.push(`    ~ ${c.path}: ${show(c.before)} → ${show(c.after)}`);
    }
  }
  for (const c of r.conflicts) out.push(`! ${c.kind} ${c.key} ${c.message}`);
  for (const p of r.setupProblems) out.push(`! automation ${p.key}: trigger ${p.nodeId} set-up failed: ${p.message}`);
  const s = r.summary;
  const counts = `${s.create} to create, ${s.update} to change, ${s.delete} to delete`;
  const tail = `${s.unchanged} unchanged${s.unmanaged ? `, ${s.unmanaged} not in the files` : ""}`;
  if (!s.create && !s.update && !s.delete) out.push(`No changes: ${counts} (${tail}).`);
  else out.push(`${r.applied ? "Applied" : "Plan"}: ${counts} (${tail}).`);
  return out.join("\n");
}

/** Server problems (paths into the request body: `apps.2.graph.nodes.1.connection`) → file positions. */
export function mapServerProblems(errors: Array<{ path: string; message: string }>, v: ValidatedFiles): Array<FileProblem | string> {
  const lists = { apps: v.bundle.apps, lines: v.bundle.lines, intakes: v.bundle.intakes } as const;
  const kinds = { apps: "automation", lines: "line", intakes: "intake" } as const;
  return errors.map((e) => {
    const [list, index, ...rest] = e.path.split(".");
    const spec = list && list in lists ? lists[list as keyof typeof lists][Number(index)] : undefined;
    const file = spec ? v.byResource.get(`${kinds[list as keyof typeof kinds]}/${spec.key}`) : undefined;
    if (!file) return `${e.path}: ${e.message}`;
    return problemAt(file.parsed, specPath(rest.join(".")), e.message);
  });
}

export function printProblems(problems: Array<FileProblem | string>, format: "text" | "github"): void {
  for (const p of problems) console.error(typeof p === "string" ? p : formatProblem(p, format));
}
