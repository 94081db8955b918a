/** Which operation of the document a request's method and path are (the path's first operation when the method is not one of its own). */
import { ALL_OPERATIONS } from "../openapi";
import type { Operation } from "../operation";

function safeDecode(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}

function opRegex(p: string) {
  return new RegExp("^/api/v1" + p.replace(/\{(\w+)\}/g, "(?<$1>[^/]+)") + "$");
}
export const MATCHERS = ALL_OPERATIONS.map((op) => ({ op, re: opRegex(op.path) }));

/** The path parameters of `pathname` for the operation `re` matches, or null. */
export function matchParams(re: RegExp, pathname: string): Record<string, string> | null {
  const m = re.exec(pathname);
  return m ? Object.fromEntries(Object.entries(m.groups ?? {}).map(([k, v]) => [k, safeDecode(v)])) : null;
}

export function findOperation(method: string, pathname: string): { op: Operation; params: Record<string, string> } | null {
  let pathOnly: { op: Operation; params: Record<string, string> } | null = null;
  for (const { op, re } of MATCHERS) {
    const params = matchParams(re, pathname);
    if (!params) continue;
    if (op.method === method) return { op, params };
    pathOnly ??= { op, params };
  }
  return pathOnly ? { op: { ...pathOnly.op, method: method as Operation["method"] }, params: pathOnly.params } : null;
}
