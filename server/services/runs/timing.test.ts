/** A run's timing from its steps' attempts: automatic retry backoff apart from the time until someone retried. */
import { describe, expect, it } from "vitest";
import type { StepAttempt } from "@/db/types";
import { runTiming } from "./timing";

const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 9) + s * 1000).toISOString();
const attempt = (from: number, to: number, more: Partial<StepAttempt> = {}): StepAttempt => ({
  startedAt: t(from),
  finishedAt: t(to),
  durationMs: (to - from) * 1000,
  ...more,
});

describe("runTiming", () => {
  it("counts an automatic retry's backoff as waiting between retries, and a manual retry's 22 minutes apart from it", () => {
    const steps = [
      {
        attempts: [
          attempt(0, 1, { error: "upstream 503", retryable: true }),
          // The runner's own retry, 2 s later; fails for good.
          attempt(3, 4, { error: "upstream 503", retryable: true, manualRetryAt: t(4 + 22 * 60) }),
          // Someone clicked Retry 22 min later.
          attempt(4 + 22 * 60, 4 + 22 * 60 + 1),
        ],
      },
    ];
    expect(runTiming(steps)).toEqual({ workMs: 3_000, retryWaitMs: 2_000, manualRetryDelayMs: 22 * 60_000 });
  });

  it("one manual retry that re-queues two failed branches is one delay, from the later failure; steps taken over do not count", () => {
    const at = t(600);
    const steps = [
      { attempts: [attempt(0, 10, { error: "a", manualRetryAt: at }), attempt(601, 602)] },
      { attempts: [attempt(0, 100, { error: "b", manualRetryAt: at }), attempt(601, 603)] },
      { attempts: [attempt(0, 5, { error: "c" }), attempt(900, 901)], origin: { kind: "run" as const, runId: "run_1", stepId: "stp_1", version: 1 } },
    ];
    expect(runTiming(steps)).toEqual({ workMs: 113_000, retryWaitMs: 0, manualRetryDelayMs: 500_000 });
  });

  it("a step queued again by hand and not started yet already shows the delay", () => {
    expect(runTiming([{ attempts: [attempt(0, 1, { error: "x", manualRetryAt: t(61) })] }])).toEqual({
      workMs: 1_000,
      retryWaitMs: 0,
      manualRetryDelayMs: 60_000,
    });
  });
});
