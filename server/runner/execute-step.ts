/**
 * Runs one step: resolve the node's config against the message chain, parse it with the
 * component's schema, call `run(ctx)` (no transaction open), then record the outcome in one
 * group-committed transaction: the step row, the job removed or rescheduled, the next steps'
 * jobs (leased to this worker so it continues the chain without another claim), and the run
 * finished when nothing is left. The only place a component's `run` is called.
 */
import type { AppDeps } from "../deps";
import { openConfigSecrets } from "../services/automations/node-secrets";
import { recordStepMetrics } from "../observability/metrics";
import type { Db } from "@/db/client";
import { groupCommitter } from "@/db/group-commit";
import { envelope, withLegacyDefaults, type AnyComponent, type ComponentResult, type ConnectionHandle, type Envelope, type Logger } from "@/integrations/core/define";
import { ExpressionError, resolveExpressions } from "@/integrations/core/expressions";
import { isRetryable, retryAfterOf, RetryableError } from "@/integrations/core/errors";
import { createHttpClient } from "@/integrations/core/http";
import { findComponent } from "@/integrations/registry";
import type { StepAttempt } from "@/db/schema";
import { completeRunIfDone, finishRun } from "./finalize-run";
import { getVersionGraph } from "./graph-cache";
import { maskInputs } from "./mask";
import { completeJob, insertStepJob, rescheduleJob, type StepJob } from "./queue";
import { retryDelayMs, type RetryOptions } from "./retry-policy";
import { loadChainSteps, loadEventEnvelope, loadExistingStep, loadRun, stepStatements, writeStep, type RunRow, type StepLog } from "./step-store";
import { countUsage } from "./usage";

export interface ExecutorOptions {
  owner: string;
  leaseMs: number;
  retry: RetryOptions;
  stepTimeoutMs: number;
  maxEnvelopeBytes: number;
  /** A step whose worker stopped this many times while running it fails instead of resuming again. */
  quarantineAfter: number;
  /** Loads a connection handle (decrypted) for a node. */
  loadConnection(connectionId: string): Promise<ConnectionHandle>;
  /** Registers the step's abort controller so a cancel can stop it. */
  track(runId: string, controller: AbortController): () => void;
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
}

type Outcome =
  | { kind: "emit"; output: Envelope }
  | { kind: "stop"; reason?: string }
  | { kind: "wait"; delayMs: number; state: unknown; reason?: string }
  | { kind: "error"; message: string; retryable: boolean; retryAfterMs?: number };

const MAX_LOGS = 200;

/** Abort reason used when a worker stops and cannot wait any longer: the step is given back, not failed. */
export class ShutdownAbort extends Error {
  constructor() {
    super("worker shutting down");
    this.name = "ShutdownAbort";
  }
}

function stepLogger(logs: StepLog[], base: Logger, fields: Record<string, unknown>): Logger {
  const at = (level: "debug" | "info" | "warn" | "error") => (message: string, f?: Record<string, unknown>) => {
    if (logs.length < MAX_LOGS) logs.push({ at: new Date().toISOString(), level, message, ...(f ? { fields: f } : {}) });
    base[level](message, { ...fields, ...f });
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

export async function executeStep(deps: AppDeps, item: LocalItem, opts: ExecutorOptions): Promise<LocalItem[]> {
  const { db } = deps;
  const job = item.job;
  const run = item.run ?? loadRun(db, job.runId);
  if (!run || !["running", "waiting", "queued"].includes(run.status)) {
    await groupCommitter(db).run((tx) => completeJob(tx, job.id));
    return [];
  }
  let graph: ReturnType<typeof getVersionGraph>;
  try {
    graph = getVersionGraph(db, run.automationId, run.version);
  } catch {
    // The automation (or its workspace) was deleted while work was queued: end the run.
    await groupCommitter(db).run((tx) => {
      completeJob(tx, job.id);
      finishRun(tx, run, "failed", { message: "The automation was deleted", code: "automation_deleted" }, deps.now());
    });
    return [];
  }
  const node = graph.byId.get(job.nodeId);
  const unit: AnyComponent | undefined = node ? findComponent(node.key) : undefined;
  const existing = item.fresh ? undefined : loadExistingStep(db, job.id);
  const chain: Chain = item.chain ?? { trigger: loadEventEnvelope(db, run.eventId), steps: loadChainSteps(db, job.parentStepId) };
  const startedAt = deps.now();
  const logs: StepLog[] = existing?.logs ?? [];
  let input: unknown = null;
  let outcome: Outcome;

  if (!node || !unit) {
    outcome = { kind: "error", retryable: false, message: node ? `Unknown component "${node.key}"` : `Node ${job.nodeId} is not in version ${run.version}` };
  } else if (job.stops >= opts.quarantineAfter) {
    // Its process died or hung while running it, again and again: resuming it would take the next one down too.
    outcome = { kind: "error", retryable: false, message: `this step stopped its worker ${job.stops} times (its process died or hung while running it), so it was not run again` };
  } else {
    if (job.stops > 0) logs.push({ at: startedAt.toISOString(), level: "warn", message: `resumed: the worker running this step stopped (${job.stops} of ${opts.quarantineAfter} allowed)` });
    const controller = new AbortController();
    const untrack = opts.track(run.id, controller);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, opts.stepTimeoutMs);
    const signal = controller.signal;
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () =>
        reject(signal.reason instanceof ShutdownAbort ? signal.reason : timedOut ? new RetryableError(`step timed out after ${opts.stepTimeoutMs} ms`) : new Error("cancelled"));
      signal.addEventListener("abort", onAbort, { once: true });
    });
    aborted.catch(() => undefined);
    try {
      const resolved = withLegacyDefaults(unit, await Promise.race([resolveExpressions(openConfigSecrets(deps.box, node.config), chain, { plain: true, signal }), aborted]));
      const parsed = unit.config.safeParse(resolved);
      input = maskInputs(unit, resolved);
      if (!parsed.success) {
        const first = parsed.error.issues.map((i: { path: PropertyKey[]; message: string }) => `${i.path.map(String).join(".") || "config"}: ${i.message}`).join("; ");
        throw Object.assign(new Error(`invalid input after resolving expressions: ${first}`), { permanent: true });
      }
      const connection = node.connectionId ? await opts.loadConnection(node.connectionId) : undefined;
      if (unit.needsConnection !== false && !connection) throw Object.assign(new Error("this step needs a connection"), { permanent: true });
      const log = stepLogger(logs, deps.log, { workspaceId: run.workspaceId, automationId: run.automationId, runId: run.id, nodeId: node.id });
      const now = () => deps.now();
      const result: ComponentResult = await Promise.race([
        unit.run({
          config: parsed.data,
          connection,
          http: createHttpClient({ signal }),
          log,
          signal,
          run: { runId: run.id, automationId: run.automationId, workspaceId: run.workspaceId, nodeId: node.id, nodeName: node.name, attempt: job.attempts, stepId: job.id },
          trigger: chain.trigger,
          steps: chain.steps,
          state: existing?.state,
          now,
          emit: (data) => envelope(unit.outputType, data, now()),
          wait: (delayMs, state, reason) => ({ kind: "wait", delayMs, state, reason }),
          stop: (reason) => ({ kind: "stop", reason }),
        }),
        aborted,
      ]);
      if (!result || typeof result !== "object") throw new Error("component returned nothing");
      if ("kind" in result && result.kind === "wait") outcome = { kind: "wait", delayMs: Math.max(0, result.delayMs), state: result.state, reason: result.reason };
      else if ("kind" in result && result.kind === "stop") outcome = { kind: "stop", reason: result.reason };
      else outcome = { kind: "emit", output: result as Envelope };
    } catch (e) {
      if (e instanceof ShutdownAbort || signal.reason instanceof ShutdownAbort) throw new ShutdownAbort(); // not an outcome: the job is released
      const err = e as Error & { permanent?: boolean };
      const message = e instanceof ExpressionError ? `expression in ${e.field} ${e.stopped ? "stopped" : "failed"}: ${e.reason}` : err.message;
      outcome = { kind: "error", message, retryable: !err.permanent && isRetryable(e), retryAfterMs: retryAfterOf(e) };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort!);
      untrack();
    }
  }

  if (outcome.kind === "emit") {
    const size = Buffer.byteLength(JSON.stringify(outcome.output));
    if (size > opts.maxEnvelopeBytes) {
      outcome = { kind: "error", retryable: false, message: `emitted envelope is ${size} bytes, above the ${opts.maxEnvelopeBytes}-byte limit` };
    }
  }
  const finishedAt = deps.now();
  const attempt: StepAttempt = { startedAt: startedAt.toISOString(), finishedAt: finishedAt.toISOString(), durationMs: finishedAt.getTime() - startedAt.getTime() };
  if (outcome.kind === "error") Object.assign(attempt, { error: outcome.message, retryable: outcome.retryable });
  if (outcome.kind === "error") deps.log[outcome.retryable ? "warn" : "error"]("step failed", { workspaceId: run.workspaceId, automationId: run.automationId, runId: run.id, nodeId: job.nodeId, key: node?.key, attempt: job.attempts, retryable: outcome.retryable, reason: outcome.message.slice(0, 500) });
  recordStepMetrics(node?.key ?? "unknown", outcome.kind === "error" ? (outcome.retryable ? "retryable_error" : "failed") : outcome.kind, attempt.durationMs ?? 0);
  const attempts = [...(existing?.attempts ?? []), attempt];
  const maxAttempts = unit?.retry?.maxAttempts ?? opts.retry.maxAttempts;
  const base = {
    id: job.id, runId: run.id, nodeId: job.nodeId, name: node?.name ?? job.nodeId, key: node?.key ?? "unknown", parentStepId: job.parentStepId,
    input, attempts, logs, createdAt: existing?.createdAt ?? startedAt.toISOString(), startedAt: existing?.startedAt ?? startedAt.toISOString(),
  };

  return groupCommitter(db).run((tx: Db): LocalItem[] => {
    const current = stepStatements(tx).runStatus.get(run.id) as { status: string } | undefined;
    const now = deps.now();
    const iso = now.toISOString();
    if (!current || !["running", "waiting", "queued"].includes(current.status)) {
      writeStep(tx, { ...base, status: "cancelled", output: null, state: null, error: "run was cancelled", finishedAt: iso });
      completeJob(tx, job.id);
      return [];
    }
    switch (outcome.kind) {
      case "emit": {
        writeStep(tx, { ...base, status: "succeeded", output: outcome.output, state: null, error: null, finishedAt: iso });
        completeJob(tx, job.id);
        countUsage(run.workspaceId, "steps.succeeded", 1, now);
        const next: LocalItem[] = [];
        // The chain holds plain JSON only (expressions skip their defensive copy): re-parse the output once.
        const nextChain: Chain = { trigger: chain.trigger, steps: { ...chain.steps, [node!.name]: JSON.parse(JSON.stringify(outcome.output)) } };
        for (const child of graph.children.get(job.nodeId) ?? []) {
          const id = insertStepJob(tx, { runId: run.id, automationId: run.automationId, nodeId: child, parentStepId: job.id, at: now.getTime(), leaseOwner: opts.owner, leaseUntil: now.getTime() + opts.leaseMs });
          next.push({ run: { ...run, status: "running" }, job: { id, runId: run.id, automationId: run.automationId, nodeId: child, parentStepId: job.id, attempts: 1, runStatus: "running", stops: 0 }, chain: nextChain, fresh: true });
        }
        if (!next.length) completeRunIfDone(tx, run, now);
        return next;
      }
      case "stop":
        logs.push({ at: iso, level: "info", message: `branch stopped${outcome.reason ? `: ${outcome.reason}` : ""}` });
        writeStep(tx, { ...base, status: "skipped", output: null, state: null, error: null, finishedAt: iso });
        completeJob(tx, job.id);
        countUsage(run.workspaceId, "steps.skipped", 1, now);
        completeRunIfDone(tx, run, now);
        return [];
      case "wait": {
        logs.push({ at: iso, level: "info", message: outcome.reason ?? `waiting ${outcome.delayMs} ms` });
        writeStep(tx, { ...base, status: "waiting", output: null, state: outcome.state, error: null, finishedAt: null });
        rescheduleJob(tx, job.id, now.getTime() + outcome.delayMs, true);
        const s = stepStatements(tx);
        if ((s.leasedOthers.get(run.id, job.id) as { n: number }).n === 0) s.setRunStatus.run("waiting", iso, run.id);
        return [];
      }
      case "error": {
        if (outcome.retryable && job.attempts < maxAttempts) {
          const delay = retryDelayMs(job.attempts, opts.retry, outcome.retryAfterMs);
          logs.push({ at: iso, level: "warn", message: `attempt ${job.attempts} failed, retrying in ${delay} ms: ${outcome.message}` });
          writeStep(tx, { ...base, status: "queued", output: null, state: existing?.state ?? null, error: outcome.message, finishedAt: null });
          rescheduleJob(tx, job.id, now.getTime() + delay);
          return [];
        }
        const message = outcome.retryable ? `${outcome.message} (gave up after ${job.attempts} attempts)` : outcome.message;
        writeStep(tx, { ...base, status: "failed", output: null, state: null, error: message, finishedAt: iso });
        completeJob(tx, job.id);
        countUsage(run.workspaceId, "steps.failed", 1, now);
        finishRun(tx, run, "failed", { message: `${node?.name ?? job.nodeId}: ${message}`, nodeId: job.nodeId }, now);
        return [];
      }
    }
  });
}
