import type { AppDeps } from "../../deps";

/** Waits (polling) until the run reaches one of `statuses`; returns the status. */
export async function waitForRun(
  deps: Pick<AppDeps, "store">,
  runId: string,
  statuses = ["succeeded", "failed", "cancelled"],
  timeoutMs = 15_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await deps.store.runs.get(runId);
    if (r && statuses.includes(r.status)) return r.status;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${r?.status} after ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

/** Waits (polling) until `cond` holds. */
export async function waitFor(cond: () => boolean | Promise<boolean>, timeoutMs = 15_000, what = "condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((res) => setTimeout(res, 20));
  }
}
