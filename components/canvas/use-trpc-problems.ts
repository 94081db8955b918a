/** Reads `data.problems` (server field problems) from a tRPC error, mapping `graph.nodes.<i>` paths to node ids. */
import type { GraphDoc, Problem } from "./types";

export function problemsFromError(error: unknown, doc?: GraphDoc): Problem[] {
  const data = (error as { data?: { problems?: Array<{ path: string; message: string; nodeId?: string }> | null } })?.data;
  const list = data?.problems ?? [];
  return list.map((p) => {
    let path = p.path ?? "";
    let nodeId = p.nodeId;
    const m = /^(?:document\.)?graph\.nodes\.(\d+)\.?(.*)$/.exec(path);
    if (m) {
      nodeId ??= doc?.nodes[Number(m[1])]?.id;
      path = m[2];
    }
    return { path, message: p.message, nodeId };
  });
}
