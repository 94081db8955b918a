/**
 * Runs one step: resolve the node's config against the message chain, parse it with the
 * component's schema, call `run(ctx)` (no transaction open), then record the outcome with one
 * `engine.commitStep` (the step row, its job completed or rescheduled, the next steps queued and
 * leased to this worker so it continues the chain locally, the run finished when nothing is left),
 * fenced by the claim's token. The only place a component's `run` is called.
 */
import type { AppDeps } from "../deps";
import { recordStepMetrics } from "../observability/metrics";
import type { Envelope, RunRow, StepCommit, StepJob, StepLog } from "@/db/engine";
import type { StepAttempt, StepOrigin } from "@/db/types";
import { cancelledStepRow } from "@/db/types";
import { isoTime } from "@/db/iso-time";
import { isCommitOutcomeUnknown } from "@/db/commit-outcome";
import { isDatabaseUnavailable } from "@/db/unavailable";
import { withLegacyDefaults, type AnyComponent, type ComponentResult } from "@/integrations/core/define";
import { ExpressionError, NOT_DIRECT, resolveExpressions, resolveExpressionsDirect } from "@/integrations/core/expressions";
import { isRetryable, retryAfterOf, RetryableError } from "@/integrations/core/errors";
import { findComponent } from "@/integrations/registry";
import { cachedVersionGraph, getVersionGraph, nodeInfoOf, pinnedOutputs, VersionMissingError, type IndexedGraph } from "../graphs";
import { automaticRetryWaitMs, countFinishedRun, countStepAttempt, countUsage } from "../usage-counters";
import type { RunnerHooks } from "./hooks";
import { maskInputs } from "./mask";
import { StepContext } from "./step-context";
import { retryDelayMs, type RetryOptions } from "./retry-policy";
import { describeInputIssues } from "./input-problems";

export interface ExecutorOptions {
  owner: string;
  leaseMs: number;
  retry: RetryOptions;
  stepTimeoutMs: number;
  maxEnvelopeBytes: number;
  hooks: RunnerHooks;
  /** A step whose worker stopped this many times while running it fails instead of resuming again. */
  quarantineAfter: number;
  /** Registers the step's abort so a cancel (or a stop that cannot wait: `ShutdownAbort`) can stop it. */
  track(runId: string, step: StepAbort): () => void;
  /**
   * The step's commit failed because the database could not be reached (nothing of it stored):
   * resolves when it is worth committing the same outcome again, rejects to give up (the runner
   * stopping). Absent: the error is thrown and the runner gives the step back (it runs again).
   */
  commitAgain?(e: unknown): Promise<void>;
}

export interface StepAbort {
  abort(reason?: unknown): void;
}

/** What a worker carries along when it continues a run locally (avoids reloading the chain). */
export interface Chain {
  trigger: Envelope;
  steps: Record<string, Envelope>;
}

export interface LocalItem {
  job: StepJob;
  /** The run row, carried along when a worker continues a run locally. */
  run?: RunRow;
  chain?: Chain;
  fresh?: boolean;
  /** A test run's start node and scope, carried along like `run` (null: a production run). */
  test?: TestScope | null;
}

/** Where a test run started and whether only that step runs (see db/schema/runs.ts `runs.test`). */
export interface TestScope {
  nodeId: string;
  single: boolean;
}

/** What happened, for the runner loop. */
export interface StepResult {
  next: LocalItem[];
  /** The run ended (finished by this step) and needs its follow-ups. */
  finished?: { runId: string; status: "succeeded" | "failed" | "cancelled" };
}

type Outcome =
  | { kind: "emit"; output: Envelope }
  | { kind: "stop"; reason?: string }
  | { kind: "wait"; delayMs: number; state: unknown; reason?: string }
  | { kind: "error"; message: string; retryable: boolean; retryAfterMs?: number };

const ACTIVE = ["running", "waiting", "queued"];

/** Abort reason used when a worker stops and cannot wait any longer: the step is given back, not failed. */
export class ShutdownAbort extends Error {
  constructor() {
    super("worker shutting down");
    this.name = "ShutdownAbort";
  }
}

/**
 * Commits a step's outcome, and while the database is unreachable keeps that outcome and commits it
 * again once the database answers, instead of giving the step back to run again (its side effects
 * twice, and a resume that waited for the lease). Fencing still decides: the commit checks the lease
 * owner and token, so a step another worker took over meanwhile writes nothing. A commit whose
 * outcome is unknown (its COMMIT was sent, the reply lost) is never repeated: it is thrown.
 */
async function commitKept(engine: AppDeps["store"]["engine"], c: StepCommit, opts: ExecutorOptions, now: () => Date) {
  for (;;) {
    try {
      return await engine.commitStep(c);
    } catch (e) {
      if (!opts.commitAgain || isCommitOutcomeUnknown(e) || !isDatabaseUnavailable(e)) throw e;
      await opts.commitAgain(e);
      // The children's leases start from the commit that lands.
      c = { ...c, now: now() };
    }
  }
}

export async function executeStep(deps: AppDeps, item: LocalItem, opts: ExecutorOptions): Promise<StepResult> {
  const engine = deps.store.engine;
  const job = item.job;
  const run = item.run ?? (await engine.loadRun(job.runId));
  const base = { job, owner: opts.owner, leaseMs: opts.leaseMs };
  if (!run || !ACTIVE.includes(run.status)) {
    if (run)
      await engine.commitStep({
        ...base,
        now: deps.now(),
        run,
        step: cancelledStepRow({ ...job, runId: run.id }, { name: job.nodeId, key: "unknown" }, deps.now().toISOString(), "run was cancelled"),
        queue: { kind: "complete" },
        runEffect: { kind: "none" },
        nodeInfo: nodeInfoOf(undefined),
      });
    return { next: [] };
  }
  let graph: IndexedGraph;
  try {
    // The cached graph without an await (a promise and a turn of the microtask queue per step).
    graph = cachedVersionGraph(run.automationId, run.version) ?? (await getVersionGraph(deps.store, run.automationId, run.version));
  } catch (e) {
    // A database that failed to answer is not a deleted automation: the step is given back and runs
    // again (found by the chaos suite: runs failed "automation deleted" on a loaded database).
    if (!(e instanceof VersionMissingError)) throw e;
    // The automation (or its workspace) was deleted while work was queued: end the run.
    const finished = await deps.store.runs.finish(
      run.id,
      "failed",
      { message: "The automation was deleted", code: "automation_deleted" },
      deps.now(),
      nodeInfoOf(undefined),
    );
    if (finished) countFinishedRun(run, "failed", deps.now());
    return { next: [], finished: finished ? { runId: run.id, status: "failed" } : undefined };
  }
  const node = graph.byId.get(job.nodeId);
  const unit: AnyComponent | undefined = node ? findComponent(node.key) : undefined;
  // Test runs only: where the test started (that node always really runs), and the pinned outputs that
  // stand in for the other nodes after it. A production run never reads pinned data.
  const test = run.mode === "test" ? (item.test !== undefined ? item.test : ((await deps.store.runs.get(run.id))?.test ?? null)) : null;
  const pin =
    test && node && node.id !== test.nodeId && graph.pinned.has(node.id)
      ? (await pinnedOutputs(deps.store, run.automationId, run.version)).get(node.id)
      : undefined;
  let origin: StepOrigin | null = null;
  const existing = item.fresh ? undefined : await engine.loadStep(job.id);
  const chain: Chain = item.chain ?? { trigger: await engine.loadEvent(run.eventId), steps: await engine.loadChain(job.parentStepId) };
  const startedAt = deps.now();
  const startedIso = isoTime(startedAt);
  const logs: StepLog[] = existing?.logs ?? [];
  let input: unknown = null;
  let outcome: Outcome;

  if (!node || !unit) {
    outcome = { kind: "error", retryable: false, message: node ? `Unknown component "${node.key}"` : `Node ${job.nodeId} is not in version ${run.version}` };
  } else if (pin) {
    outcome = { kind: "emit", output: { ...pin.output, data: pin.output.data ?? null } };
    origin = { kind: "pinned", version: run.version };
    logs.push({ at: startedIso, level: "info", message: "test run: emitted this node's pinned output instead of running it" });
  } else if (job.stops >= opts.quarantineAfter) {
    // Its process died or hung while running it, again and again: resuming it would take the next one down too.
    outcome = {
      kind: "error",
      retryable: false,
      message: `this step stopped its worker ${job.stops} times (its process died or hung while running it), so it was not run again`,
    };
  } else {
    if (job.stops > 0)
      logs.push({
        at: startedIso,
        level: "warn",
        message: `resumed: the worker running this step stopped (${job.stops} of ${opts.quarantineAfter} allowed)`,
      });
    const controller = new AbortController();
    const signal = controller.signal;
    let timedOut = false;
    let rejectAborted: (e: Error) => void = () => undefined;
    const aborted = new Promise<never>((_, reject) => (rejectAborted = reject));
    aborted.catch(() => undefined);
    // Whoever stops the step (its timeout, a cancel, a stop that cannot wait) calls this: the signal is
    // aborted for the component and the step stops waiting for it (no listener on the signal needed).
    const abort = (reason?: unknown) => {
      if (signal.aborted) return;
      controller.abort(reason);
      rejectAborted(
        signal.reason instanceof ShutdownAbort
          ? signal.reason
          : timedOut
            ? new RetryableError(`step timed out after ${opts.stepTimeoutMs} ms`)
            : new Error("cancelled"),
      );
    };
    const untrack = opts.track(run.id, { abort });
    const timer = setTimeout(() => {
      timedOut = true;
      abort();
    }, opts.stepTimeoutMs);
    try {
      const config = opts.hooks.openSecrets(node.key, node.config);
      // Most configs resolve on this thread without a promise (direct.ts); the others as before.
      const direct = resolveExpressionsDirect(config, chain);
      const resolved = withLegacyDefaults(
        unit,
        direct !== NOT_DIRECT ? direct : await Promise.race([resolveExpressions(config, chain, { plain: true, signal }), aborted]),
      );
      const parsed = unit.config.safeParse(resolved);
      input = maskInputs(unit, resolved);
      if (!parsed.success) {
        const first = describeInputIssues(node.config, resolved, parsed.error.issues);
        throw Object.assign(new Error(`invalid input after resolving expressions: ${first}`), { permanent: true });
      }
      const connection = node.connectionId ? await opts.hooks.loadConnection(node.connectionId, run.workspaceId) : undefined;
      if (unit.needsConnection !== false && !connection) throw Object.assign(new Error("this step needs a connection"), { permanent: true });
      const result: ComponentResult = await Promise.race([
        unit.run(
          new StepContext(
            parsed.data,
            connection,
            signal,
            {
              runId: run.id,
              automationId: run.automationId,
              workspaceId: run.workspaceId,
              nodeId: node.id,
              nodeName: node.name,
              attempt: job.attempts,
              stepId: job.id,
            },
            chain.trigger,
            chain.steps,
            existing?.state,
            () => deps.now(),
            unit.outputType,
            { logs, base: deps.log, workspaceId: run.workspaceId, openMemory: opts.hooks.openMemory, test: run.mode === "test" },
          ),
        ),
        aborted,
      ]);
      if (!result || typeof result !== "object") throw new Error("component returned nothing");
      if ("kind" in result && result.kind === "wait")
        outcome = { kind: "wait", delayMs: Math.max(0, result.delayMs), state: result.state, reason: result.reason };
      else if ("kind" in result && result.kind === "stop") outcome = { kind: "stop", reason: result.reason };
      else outcome = { kind: "emit", output: result as Envelope };
    } catch (e) {
      if (e instanceof ShutdownAbort || signal.reason instanceof ShutdownAbort) throw new ShutdownAbort(); // not an outcome: the job is released
      const err = e as Error & { permanent?: boolean };
      const message = e instanceof ExpressionError ? `expression in ${e.field} ${e.stopped ? "stopped" : "failed"}: ${e.reason}` : err.message;
      outcome = { kind: "error", message, retryable: !err.permanent && isRetryable(e), retryAfterMs: retryAfterOf(e) };
    } finally {
      clearTimeout(timer);
      untrack();
    }
  }

  // The emitted envelope is serialised once: its size check, its step row and the chain handed to the next steps.
  let outputJson: string | undefined;
  if (outcome.kind === "emit") {
    outputJson = JSON.stringify(outcome.output);
    const size = Buffer.byteLength(outputJson);
    if (size > opts.maxEnvelopeBytes) {
      outcome = { kind: "error", retryable: false, message: `emitted envelope is ${size} bytes, above the ${opts.maxEnvelopeBytes}-byte limit` };
    }
  }
  const finishedAt = deps.now();
  const attempt: StepAttempt = {
    startedAt: startedIso,
    finishedAt: isoTime(finishedAt),
    durationMs: finishedAt.getTime() - startedAt.getTime(),
  };
  if (outcome.kind === "error") Object.assign(attempt, { error: outcome.message, retryable: outcome.retryable });
  if (outcome.kind === "error")
    deps.log[outcome.retryable ? "warn" : "error"]("step failed", {
      workspaceId: run.workspaceId,
      automationId: run.automationId,
      runId: run.id,
      nodeId: job.nodeId,
      key: node?.key,
      attempt: job.attempts,
      retryable: outcome.retryable,
      reason: outcome.message.slice(0, 500),
    });
  if (!origin)
    recordStepMetrics(
      node?.key ?? "unknown",
      outcome.kind === "error" ? (outcome.retryable ? "retryable_error" : "failed") : outcome.kind,
      attempt.durationMs ?? 0,
    );
  // A pinned node did not run: no attempt. Otherwise the wait since a failed attempt is an automatic
  // retry's backoff, unless a person retried the run after it (the step's attempt is marked then).
  const previous = existing?.attempts.at(-1);
  const waitedMs = automaticRetryWaitMs(previous, startedAt);
  const attempts = origin ? (existing?.attempts ?? []) : [...(existing?.attempts ?? []), attempt];
  const maxAttempts = unit?.retry?.maxAttempts ?? opts.retry.maxAttempts;
  const now = deps.now();
  const iso = isoTime(now);
  const row = {
    id: job.id,
    runId: run.id,
    nodeId: job.nodeId,
    name: node?.name ?? job.nodeId,
    key: node?.key ?? "unknown",
    parentStepId: job.parentStepId,
    input,
    attempts,
    logs,
    createdAt: existing?.createdAt ?? startedIso,
    startedAt: existing?.startedAt ?? startedIso,
    origin,
  };
  const commit: Omit<StepCommit, "step" | "queue" | "runEffect"> = { ...base, now, run, nodeInfo: nodeInfoOf(graph) };
  let c: StepCommit;
  let counted: string | undefined;
  switch (outcome.kind) {
    case "emit":
      c = {
        ...commit,
        step: { ...row, status: "succeeded", output: outcome.output, outputJson, state: null, error: null, finishedAt: iso },
        queue: { kind: "complete" },
        children: test?.single ? [] : (graph.children.get(job.nodeId) ?? []),
        runEffect: { kind: "completeIfDone" },
      };
      counted = "steps.succeeded";
      break;
    case "stop":
      logs.push({ at: iso, level: "info", message: `branch stopped${outcome.reason ? `: ${outcome.reason}` : ""}` });
      c = {
        ...commit,
        step: { ...row, status: "skipped", output: null, state: null, error: null, finishedAt: iso },
        queue: { kind: "complete" },
        runEffect: { kind: "completeIfDone" },
      };
      counted = "steps.skipped";
      break;
    case "wait":
      logs.push({ at: iso, level: "info", message: outcome.reason ?? `waiting ${outcome.delayMs} ms` });
      c = {
        ...commit,
        step: { ...row, status: "waiting", output: null, state: outcome.state, error: null, finishedAt: null },
        queue: { kind: "reschedule", atMs: now.getTime() + outcome.delayMs, resetAttempts: true },
        runEffect: { kind: "waitingIfIdle" },
      };
      break;
    case "error":
      if (outcome.retryable && job.attempts < maxAttempts) {
        const delay = retryDelayMs(job.attempts, opts.retry, outcome.retryAfterMs);
        logs.push({ at: iso, level: "warn", message: `attempt ${job.attempts} failed, retrying in ${delay} ms: ${outcome.message}` });
        c = {
          ...commit,
          step: { ...row, status: "queued", output: null, state: existing?.state ?? null, error: outcome.message, finishedAt: null },
          queue: { kind: "reschedule", atMs: now.getTime() + delay, resetAttempts: false },
          runEffect: { kind: "none" },
        };
      } else {
        const message = outcome.retryable ? `${outcome.message} (gave up after ${job.attempts} attempts)` : outcome.message;
        c = {
          ...commit,
          step: { ...row, status: "failed", output: null, state: null, error: message, finishedAt: iso },
          queue: { kind: "complete" },
          runEffect: { kind: "fail", error: { message: `${node?.name ?? job.nodeId}: ${message}`, nodeId: job.nodeId } },
        };
        counted = "steps.failed";
      }
      break;
  }
  const result = await commitKept(engine, c, opts, deps.now);
  if (result.kind !== "ok") return { next: [] };
  if (run.mode !== "test") {
    if (counted) countUsage(run.workspaceId, counted, 1, now);
    if (!origin) countStepAttempt(run.workspaceId, { durationMs: attempt.durationMs ?? 0, waitedMs }, now);
  }
  if (result.finished) countFinishedRun(run, result.finished.status, now);
  // The chain holds plain JSON only (expressions skip their defensive copy): re-parse the output once.
  const nextChain: Chain | undefined =
    outcome.kind === "emit" && result.next.length
      ? { trigger: chain.trigger, steps: { ...chain.steps, [node!.name]: JSON.parse(outputJson!) as Envelope } }
      : undefined;
  return {
    next: result.next.map((j) => ({ job: j, run: { ...run, status: "running" }, chain: nextChain, fresh: true, test })),
    // Only a failed run or a line task's run has follow-ups (the engine set its followupAt then): a
    // succeeded run of an automation skips the lookup (it was a quarter of the runner's CPU).
    finished: result.finished && (run.taskId || result.finished.status !== "succeeded") ? { runId: run.id, status: result.finished.status } : undefined,
  };
}
