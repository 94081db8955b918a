/**
 * A run's times as the runs list and the run view show them: when it started (RunStarted), and the
 * waits in a run's header, two kinds kept apart: the backoff before the runner's automatic retries
 * ("between automatic retries"), and the time the run sat failed until someone clicked Retry ("retried
 * by hand after …"). Reading the second as the first made a 22-minute pause look like slow retries.
 */
import type { RunDetail } from "@/server/contracts/runs";
import { formatAgo, formatMs, formatWhen } from "./format";

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

/**
 * When a run started (or was created, if it has not started): how long ago first (the question at 3 a.m.)
 * and the local time, with the time zone named in the title. `stacked`: on two lines (the runs list);
 * `relative`: how long ago only (the runs list on a phone).
 */
export function RunStarted({ run, stacked, relative }: { run: { startedAt?: string | null; createdAt: string }; stacked?: boolean; relative?: boolean }) {
  const iso = run.startedAt ?? run.createdAt;
  const local = new Date(iso).toLocaleString();
  return (
    <time dateTime={iso} title={formatWhen(iso)}>
      {relative ? (
        formatAgo(iso)
      ) : stacked ? (
        <>
          <span className="font-medium">{formatAgo(iso)}</span>
          <span className="block text-muted">{local}</span>
        </>
      ) : (
        `${local} (${formatAgo(iso)})`
      )}
    </time>
  );
}
