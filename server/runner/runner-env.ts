/** The runner's settings from the environment (server/env.ts), shared by `npm start` and `conveyor worker`. */
import type { Env } from "../env";
import type { RunnerOptions } from "./runner-loop";

export function runnerOptionsFromEnv(env: Env): RunnerOptions {
  return {
    concurrency: env.CONVEYOR_RUNNER_CONCURRENCY,
    leaseMs: env.CONVEYOR_RUNNER_LEASE_MS,
    quarantineAfter: env.CONVEYOR_STEP_QUARANTINE_AFTER,
    // The documented retention settings (README); without them the maintenance pruned at its defaults.
    maintenance: { retentionDays: env.CONVEYOR_RUN_RETENTION_DAYS, retentionCount: env.CONVEYOR_RUN_RETENTION_COUNT },
    expressions: { timeoutMs: env.CONVEYOR_EXPRESSION_TIMEOUT_MS, maxHeapMb: env.CONVEYOR_EXPRESSION_MAX_HEAP_MB, workers: env.CONVEYOR_EXPRESSION_WORKERS },
  };
}
