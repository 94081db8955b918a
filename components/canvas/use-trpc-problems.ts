/** Maps server problems (`graph.nodes.<i>…` paths) to node ids, from a tRPC error's `data.problems` or a saved automation's `problems`. */
import type { GraphDoc, Problem } from "./types";

type ServerProblem = { path: string; message: string; nodeId?: string; severity?: "error" | "warning" };

export function problemsFromList(list: ServerProblem[], doc?: GraphDoc): Problem[] {
  return list.map((p) => {
    let path = p.path ?? "";
    let nodeId = p.nodeId;
    const m = /^(?:document\.)?graph\.nodes\.(\d+)\.?(.*)$/.exec(path);
    if (m) {
      nodeId ??= doc?.nodes[Number(m[1])]?.id;
      path = m[2];
    }
    return { path, message: p.message, nodeId, ...(p.severity ? { severity: p.severity } : {}) };
  });
}

export function problemsFromError(error: unknown, doc?: GraphDoc): Problem[] {
  const data = (error as { data?: { problems?: ServerProblem[] | null } })?.data;
  return problemsFromList(data?.problems ?? [], doc);
}

/**
 * What the enable switch (editor toolbar, automations list) says when enabling is refused. The server's
 * message is written for the API ("save it with enabled: false"); in the UI the automation simply stays
 * disabled, and its problems are marked on the nodes.
 */
export function enableRefusedMessage(error: unknown, name?: string): string {
  const errors = problemsFromError(error).filter((p) => p.severity !== "warning").length;
  if (!errors) return `Not enabled: ${(error as Error).message}`;
  const what = `${errors} problem${errors === 1 ? "" : "s"}`;
  return name
    ? `Not enabled: “${name}” has ${what} to fix first. Open it to see them marked on its nodes.`
    : `Not enabled: ${what} to fix first, marked on the nodes. It stays disabled.`;
}
