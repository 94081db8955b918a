/** Field errors (`data.problems` from the tRPC error formatter) keyed by path. */
export function fieldErrorsOf(error: unknown): Record<string, string> {
  const problems = (error as { data?: { problems?: Array<{ path: string; message: string }> | null } } | null)?.data?.problems;
  const out: Record<string, string> = {};
  for (const p of problems ?? []) out[p.path] ??= p.message;
  return out;
}
