/**
 * The waits in a run's header, two kinds kept apart: the backoff before the runner's automatic retries
 * ("between automatic retries"), and the time the run sat failed until someone clicked Retry ("retried
 * by hand after …"). Reading the second as the first made a 22-minute pause look like slow retries.
 */
import type { RunDetail } from "@/server/contracts/runs";
import { formatMs } from "./format";

export function RunWaits({ timing }: { timing: Pick<RunDetail["timing"], "retryWaitMs" | "manualRetryDelayMs"> }) {
  return (
    <>
      {timing.retryWaitMs > 0 && (
        <span title="Backoff before the runner's automatic retries of failed steps" data-testid="retry-wait">
          {" "}
          · waited {formatMs(timing.retryWaitMs)} between automatic retries
        </span>
      )}
      {timing.manualRetryDelayMs > 0 && (
        <span title="How long the run sat failed until someone retried it (summed over its manual retries)" data-testid="manual-retry-delay">
          {" "}
          · retried by hand after {formatMs(timing.manualRetryDelayMs)}
        </span>
      )}
    </>
  );
}
