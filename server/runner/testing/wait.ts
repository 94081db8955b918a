import type { AppDeps } from "../../deps";

export async function waitForRun(deps: AppDeps, runId: string, statuses = ["succeeded", "failed", "cancelled"], timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = deps.db.$client.prepare("select status from runs where id = ?").get(runId) as { status: string } | undefined;
    if (r && statuses.includes(r.status)) return r.status;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${r?.status} after ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

export async function waitFor(cond: () => boolean, timeoutMs = 15_000, what = "condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((res) => setTimeout(res, 20));
  }
}
