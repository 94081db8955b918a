/**
 * The editor's own bookkeeping of node problems between saves: problems for `$steps` references to
 * deleted nodes, dropping them again when an undo brings the name back, clearing a node's problems
 * when its fields change, and the per-node count every node badge reads (part of canvas-store.ts).
 */
import type { FlowNode, FlowNodeData, Problem } from "./types";
import { isUnitNode } from "./types";

/**
 * After nodes are deleted: fields of the remaining nodes that read `$steps.<deleted>` get a problem at
 * once (the save-time validator would say the same). The parser loads on first use, off the editor bundle.
 */
export async function danglingReferenceProblems(nodes: FlowNode[], deleted: string[]): Promise<Problem[]> {
  if (!deleted.length) return [];
  const { referencesInTemplate, templatesIn } = await import("@/integrations/core/references");
  const gone = new Set(deleted);
  const out: Problem[] = [];
  for (const n of nodes) {
    if (!isUnitNode(n)) continue;
    for (const { path, template } of templatesIn(n.data.config)) {
      for (const name of new Set(
        referencesInTemplate(template)
          .map((r) => r.step)
          .filter((x): x is string => !!x && gone.has(x)),
      )) {
        out.push({ nodeId: n.id, path: `config.${path}`, severity: "error", message: `"${name}" was deleted, so $steps.${name} no longer has a value here.` });
      }
    }
  }
  return out;
}

/** A problem saying that no step is called `name` (from the save-time validator or a deletion). */
export const isMissingStep = (p: Problem, name: string) =>
  p.message.startsWith(`No step is named "${name}".`) || p.message.startsWith(`"${name}" was deleted,`);

/** Drops missing-step problems about names that exist again (after undoing a deletion). */
export function withoutResolvedMissing(problems: Problem[], nodes: FlowNode[]): Problem[] {
  const present = nodes.filter(isUnitNode).map((n) => (n.data as FlowNodeData).name);
  const kept = problems.filter((p) => !present.some((name) => isMissingStep(p, name)));
  return kept.length === problems.length ? problems : kept;
}

export function clearProblemsFor(problems: Problem[], nodeId: string, keys?: string[]) {
  return problems.filter(
    (p) => p.nodeId !== nodeId || (keys && !keys.some((k) => p.path === k || p.path.startsWith(k + ".") || p.path.startsWith(`config.${k}`))),
  );
}

const problemIndex = new WeakMap<Problem[], Map<string, { count: number; onlyWarnings: boolean }>>();
/** Problems per node, computed once per problems list (every node's badge reads it on every store update). */
export function problemsByNode(problems: Problem[]): Map<string, { count: number; onlyWarnings: boolean }> {
  let index = problemIndex.get(problems);
  if (!index) {
    index = new Map();
    for (const p of problems) {
      if (!p.nodeId) continue;
      const e = index.get(p.nodeId) ?? { count: 0, onlyWarnings: true };
      e.count++;
      if (p.severity !== "warning") e.onlyWarnings = false;
      index.set(p.nodeId, e);
    }
    problemIndex.set(problems, index);
  }
  return index;
}
