/** Field problems from a tRPC error (`data.problems`, see server/trpc/trpc.ts) keyed by path. */
export function fieldProblems(error: unknown): Record<string, string> {
  const list = (error as { data?: { problems?: Array<{ path: string; message: string }> | null } } | null)?.data?.problems ?? [];
  const out: Record<string, string> = {};
  for (const p of list) out[p.path] ??= p.message;
  return out;
}
