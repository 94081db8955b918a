/**
 * A run's time, split as users need it: working (the attempts of the steps that ran here, summed),
 * waiting between automatic retries (from a failed attempt to the runner's next attempt: the backoff),
 * and apart from both, how long the run sat failed or cancelled until a person retried it. The last is
 * not a wait between retries: the runner had given up, and "waited between retries" reads as backoff.
 * Steps taken over from another run or from pinned data did not work here.
 * The same split is what usage counts (server/usage-counters.ts `countStepAttempt`), which counts the
 * automatic waits only.
 */
import type { StepAttempt, StepOrigin } from "@/db/types";
import { automaticRetryWaitMs } from "../../usage-counters";

export type RunTiming = { workMs: number; retryWaitMs: number; manualRetryDelayMs: number };

export function runTiming(steps: Array<{ attempts: StepAttempt[]; origin?: StepOrigin | null }>): RunTiming {
  let workMs = 0;
  let retryWaitMs = 0;
  // One manual retry re-queues every failed or cancelled step at once (one `manualRetryAt`): the run sat
  // failed from the last of their attempts to that time, counted once, not once per step.
  const lastBeforeRetry = new Map<string, number>();
  for (const s of steps) {
    if (s.origin) continue;
    s.attempts.forEach((a, i) => {
      workMs += a.durationMs ?? (a.finishedAt ? Math.max(0, Date.parse(a.finishedAt) - Date.parse(a.startedAt)) : 0);
      if (i > 0) retryWaitMs += automaticRetryWaitMs(s.attempts[i - 1], a.startedAt);
      if (a.manualRetryAt && a.finishedAt) {
        const ended = Date.parse(a.finishedAt);
        lastBeforeRetry.set(a.manualRetryAt, Math.max(ended, lastBeforeRetry.get(a.manualRetryAt) ?? ended));
      }
    });
  }
  let manualRetryDelayMs = 0;
  for (const [at, ended] of lastBeforeRetry) manualRetryDelayMs += Math.max(0, Date.parse(at) - ended);
  return { workMs, retryWaitMs, manualRetryDelayMs };
}
