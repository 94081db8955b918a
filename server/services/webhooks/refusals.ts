/**
 * Refused deliveries of a known intake (a wrong secret, a body that is not JSON, one the trigger
 * rejects, a disabled automation…), kept on the intake so the trigger panel can say why a sender's
 * deliveries are not becoming runs: how many were refused, and the latest one with what the sender
 * was told. Unknown URLs are not attributed to anything and are not counted here.
 *
 * Writes are throttled per intake and per process: the first refusal is written at once, the ones
 * that follow within WINDOW_MS are added up and written together when the window ends. A sender
 * hammering a URL with a wrong secret costs one UPDATE every few seconds, never one per request, and
 * a refusal never waits for (or fails because of) that write. A stopping process writes what is
 * still pending (flushRefusals, from the web and ingress processes' shutdown).
 */
import type { AppDeps } from "../../deps";
import type { RefusedDelivery } from "@/db/types";
import type { WebhookResponse } from "./receive-webhook";

export const REFUSAL_WINDOW_MS = 5_000;

interface Pending {
  last: RefusedDelivery | null;
  count: number;
  timer: ReturnType<typeof setTimeout> | null;
}

const byDeps = new WeakMap<AppDeps, Map<string, Pending>>();
const inFlight = new WeakMap<AppDeps, Set<Promise<void>>>();

/** Notes a refusal answered for a known intake (4xx only: a 5xx or no answer is ours, not the sender's). */
export function noteRefused(deps: AppDeps, intakeId: string, res: WebhookResponse): void {
  if (res.status < 400 || res.status >= 500) return;
  let pending = byDeps.get(deps);
  if (!pending) byDeps.set(deps, (pending = new Map()));
  const refusal: RefusedDelivery = {
    at: deps.now().toISOString(),
    status: res.status,
    code: String(res.body.code ?? "refused"),
    detail: String(res.body.detail ?? "").slice(0, 500),
  };
  const entry = pending.get(intakeId);
  if (entry) {
    entry.last = refusal;
    entry.count++;
    return;
  }
  const fresh: Pending = { last: refusal, count: 1, timer: null };
  pending.set(intakeId, fresh);
  sendAndWait(deps, intakeId, fresh);
}

/** Writes the entry's refusals (if any), then opens the next window; an empty window ends the entry. */
function sendAndWait(deps: AppDeps, intakeId: string, entry: Pending): void {
  send(deps, intakeId, entry);
  entry.timer = setTimeout(() => {
    entry.timer = null;
    if (entry.count) sendAndWait(deps, intakeId, entry);
    else byDeps.get(deps)?.delete(intakeId);
  }, REFUSAL_WINDOW_MS);
  entry.timer.unref?.();
}

function send(deps: AppDeps, intakeId: string, entry: Pending): void {
  const { last, count } = entry;
  entry.last = null;
  entry.count = 0;
  if (!last || !count) return;
  let flights = inFlight.get(deps);
  if (!flights) inFlight.set(deps, (flights = new Set()));
  const done: Promise<void> = deps.store.intakes
    .noteRefused(intakeId, last, count)
    .catch((err: unknown) => deps.log.warn("webhook: could not record refused deliveries", { intakeId, count, error: (err as Error).message }))
    .finally(() => flights.delete(done));
  flights.add(done);
}

/** Writes what is pending now and waits for every write under way (a stopping process; tests). */
export async function flushRefusals(deps: AppDeps): Promise<void> {
  const pending = byDeps.get(deps);
  for (const [intakeId, entry] of pending ?? []) {
    if (entry.timer) clearTimeout(entry.timer);
    send(deps, intakeId, entry);
    pending!.delete(intakeId);
  }
  await Promise.all([...(inFlight.get(deps) ?? [])]);
}
