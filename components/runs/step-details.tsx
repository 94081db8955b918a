/** A step of a run: status, resolved inputs (masked), output envelope, attempts with timings/errors, logs. */
import Link from "next/link";
import type { RunStep } from "@/server/contracts/runs";
import { RunStatusBadge } from "./run-status-badge";
import { PayloadViewer } from "./payload-viewer";
import { OutputViewer } from "./output-viewer";
import { formatDuration } from "./format";

/** `expressionBase`: how later steps read this output (`$steps.<name>`, or `$trigger` for the trigger event). */
export function StepDetails({
  step,
  expressionBase,
  workspaceId,
}: {
  step: Omit<RunStep, "output" | "input" | "origin"> & { output: unknown; input?: unknown; origin?: RunStep["origin"] };
  expressionBase?: string;
  workspaceId?: string;
}) {
  // Queued again after a failed attempt: waiting for its automatic retry (the badge alone said "Queued"),
  // or for the attempt someone asked for by retrying the run (its last attempt is marked then).
  const retrying = step.status === "queued" && step.attempts.length > 0 && !step.finishedAt;
  const byHand = !!step.attempts.at(-1)?.manualRetryAt;
  return (
    <article className="mb-6 space-y-4" data-testid={`step-${step.name}`}>
      <header className="flex items-center justify-between gap-2">
        <div>
          <h2 className="font-mono text-sm">{step.name}</h2>
          {step.key && <p className="text-xs text-muted">{step.key}</p>}
        </div>
        <div className="flex items-center gap-2">
          {retrying && (
            <span className="text-xs text-muted" data-testid="step-retrying">
              {byHand ? "Retried by hand" : "Retrying"} · attempt {step.attempts.length + 1} next
            </span>
          )}
          <RunStatusBadge status={step.status} />
        </div>
      </header>
      {step.origin && (
        <p className="rounded-md border border-violet-200 bg-violet-50 p-2 text-xs text-violet-900" data-testid="step-origin" data-origin={step.origin.kind}>
          {step.origin.kind === "pinned" ? (
            <>Not run: this is the node&apos;s pinned output (version {step.origin.version}), used by this test run.</>
          ) : (
            <>
              Not run again: reused from{" "}
              <Link className="font-mono underline" href={`/w/${workspaceId}/runs/${step.origin.runId}`}>
                run {step.origin.runId}
              </Link>
              , where it ran on version {step.origin.version}.
            </>
          )}
        </p>
      )}
      {step.error && (
        <p role="alert" className="rounded-md border border-red-200 bg-red-50 p-2.5 text-xs text-danger" data-testid="step-error">
          {retrying && `Attempt ${step.attempts.length} failed: `}
          {step.error}
        </p>
      )}
      {step.input !== undefined && <PayloadViewer title="Resolved inputs" value={step.input} testId="step-input" />}
      <OutputViewer title="Output" value={step.output} base={expressionBase ?? `$steps.${step.name}`} testId="step-output" />
      {step.attempts.length > 0 && (
        <section aria-label="Attempts">
          <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-muted">Attempts</h3>
          <table className="table text-xs">
            <thead>
              <tr>
                <th>#</th>
                <th>Started</th>
                <th>Took</th>
                <th>Result</th>
              </tr>
            </thead>
            <tbody>
              {step.attempts.map((a, i) => (
                <tr key={i}>
                  <td>{i + 1}</td>
                  <td>{new Date(a.startedAt).toLocaleTimeString()}</td>
                  <td className="tabular-nums">{a.durationMs !== undefined ? `${a.durationMs} ms` : formatDuration(a.startedAt, a.finishedAt)}</td>
                  <td className={a.error ? "text-danger" : "text-success"}>
                    {a.error ? `${a.error}${a.manualRetryAt ? " (retried by hand)" : a.retryable ? " (retried)" : ""}` : "ok"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      {step.logs.length > 0 && (
        <section aria-label="Logs">
          <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-muted">Logs</h3>
          <ol className="max-h-60 overflow-auto rounded-md border border-border bg-zinc-50 p-2 font-mono text-[11px]">
            {step.logs.map((l, i) => (
              <li key={i} className={l.level === "error" ? "text-danger" : l.level === "warn" ? "text-amber-700" : ""}>
                <span className="text-muted">{new Date(l.at).toLocaleTimeString()}</span> {l.level.toUpperCase()} {l.message}
                {l.fields !== undefined && <span className="text-muted"> {JSON.stringify(l.fields)}</span>}
              </li>
            ))}
          </ol>
        </section>
      )}
    </article>
  );
}
