/**
 * A run's time, split as users need it: working (the attempts of the steps that ran here, summed) and
 * waiting between retries (from a failed attempt to the next one: automatic backoff, or the wait until
 * someone retried the run). Steps taken over from another run or from pinned data did not work here.
 * The same split is what usage counts (server/usage-counters.ts `countStepAttempt`).
 */
import type { StepAttempt, StepOrigin } from "@/db/types";

export function runTiming(steps: Array<{ attempts: StepAttempt[]; origin?: StepOrigin | null }>): { workMs: number; retryWaitMs: number } {
  let workMs = 0;
  let retryWaitMs = 0;
  for (const s of steps) {
    if (s.origin) continue;
    s.attempts.forEach((a, i) => {
      workMs += a.durationMs ?? (a.finishedAt ? Math.max(0, Date.parse(a.finishedAt) - Date.parse(a.startedAt)) : 0);
      const prev = i > 0 ? s.attempts[i - 1] : undefined;
      if (prev?.error && prev.finishedAt) retryWaitMs += Math.max(0, Date.parse(a.startedAt) - Date.parse(prev.finishedAt));
    });
  }
  return { workMs, retryWaitMs };
}
