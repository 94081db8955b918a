/**
 * The run engine: the hot paths of the runner and of webhook ingest, implemented per backend
 * (db/sqlite/engine.ts: prepared statements + grouped commits; db/pg/engine.ts: PostgreSQL with
 * leases and fencing). The executor (server/runner) decides what happens; the engine records it.
 *
 * Fencing: a step job is claimed with a lease owner and a token that changes at every claim. A step's
 * outcome is only written while its job is still leased with that token, so a worker that stalled
 * past its lease (and whose step was claimed again elsewhere) cannot overwrite the new owner's work.
 */
import type { Envelope, FinalStatus, NewRun, RunError } from "./stores/runs";
import type { StepAttempt, StepOrigin } from "./types";

export interface StepJob {
  id: string;
  runId: string;
  automationId: string;
  nodeId: string;
  parentStepId: string | null;
  /** Attempt number of this execution (1 = first). */
  attempts: number;
  runStatus: string;
  /** The claim's fencing token. */
  token: string;
  /**
   * How many times this step was in flight when its worker stopped (its lease expired: the process
   * died or hung). Counted in the claim that takes the expired lease over, so a step that kills every
   * process that runs it is still counted; the executor quarantines it at the limit.
   */
  stops: number;
}

/** The run fields the executor needs. */
export interface RunRow {
  id: string;
  workspaceId: string;
  automationId: string;
  version: number;
  status: string;
  triggerNodeId: string;
  eventId: string;
  taskId: string | null;
  taskStep: number | null;
  createdAt: string;
  startedAt: string | null;
  /** `test`: started from the editor at one node (no usage as a production run, no follow-ups, pinned data used). */
  mode: "production" | "test";
}

export interface StepLog {
  at: string;
  level: string;
  message: string;
  fields?: unknown;
}

export interface ExistingStep {
  state: unknown;
  attempts: StepAttempt[];
  logs: StepLog[];
  startedAt: string | null;
  createdAt: string;
}

export type StepStatus = "queued" | "running" | "waiting" | "succeeded" | "failed" | "cancelled" | "skipped";

export interface StepRowWrite {
  id: string;
  runId: string;
  nodeId: string;
  name: string;
  key: string;
  parentStepId: string | null;
  status: StepStatus;
  input: unknown;
  output: Envelope | null;
  /** `JSON.stringify(output)` when the caller already made it (the executor measures the envelope's size with it). */
  outputJson?: string;
  state: unknown;
  attempts: StepAttempt[];
  logs: StepLog[];
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** Set when the output was not produced here (a test run's pinned node). */
  origin?: StepOrigin | null;
}

export interface StepCommit {
  job: StepJob;
  owner: string;
  leaseMs: number;
  now: Date;
  run: RunRow;
  /** The step row to write (status decided by the executor). */
  step: StepRowWrite;
  /** What happens to the step's job. */
  queue: { kind: "complete" } | { kind: "reschedule"; atMs: number; resetAttempts: boolean };
  /** Downstream nodes to queue, leased at once to `owner` (the worker continues the chain locally). */
  children?: string[];
  /** What happens to the run. */
  runEffect: { kind: "none" } | { kind: "completeIfDone" } | { kind: "waitingIfIdle" } | { kind: "fail"; error: RunError };
  /** Names the nodes of steps cancelled when the run fails. */
  nodeInfo(nodeId: string): { name: string; key: string };
}

export type StepCommitResult =
  /** The job's lease was lost (claimed again elsewhere): nothing was written. */
  | { kind: "fenced" }
  /** The run had ended (cancelled): the step was recorded `cancelled`. */
  | { kind: "cancelled" }
  | { kind: "ok"; next: StepJob[]; finished?: { status: FinalStatus; run: RunRow } };

/** One webhook delivery's runs, committed together (grouped with other deliveries of the same tick). */
export interface IngestItem {
  intakeId: string;
  runs: NewRun[];
  /**
   * The intake head the runs were built from, when it came from the engine's cache (`cached`): the
   * commit stores nothing of this item unless the intake, its automation and its connection still
   * match it, and answers `stale` instead.
   */
  guard?: IntakeHead;
  /**
   * A timestamped signature the delivery was verified with: stored with it (db/schema webhook_signatures),
   * unless the intake has it already; then nothing of the item is stored and the result is `replayed`.
   */
  signature?: { signature: string; expiresAtMs: number };
}

export interface IngestResult {
  runIds: string[];
  duplicates: number;
  /** Runs that finished at once (no step downstream of the trigger). */
  finished: number;
  /** The item's guard no longer matched at the commit: nothing of it was stored; look the intake up afresh. */
  stale?: boolean;
  /** The item's signature was used before (by a stored delivery): nothing of it was stored. */
  replayed?: boolean;
}

/** What the ingress needs of an intake, by its URL token (two primary-key lookups; a disable applies at once). */
export interface IntakeHead {
  id: string;
  workspaceId: string;
  kind: "trigger" | "shared" | "webhook" | "tracker";
  automationId: string | null;
  nodeId: string | null;
  connectionId: string | null;
  lineId: string | null;
  status: string;
  updatedAt: string;
  config: Record<string, unknown> | null;
  secretEnc: string | null;
  name: string;
  /** The automation behind a `trigger` intake. */
  automationVersion: number | null;
  automationEnabled: boolean | null;
  automationUpdatedAt: string | null;
  /** Changes when the node's connection changes (a rotated webhook secret must apply at once). */
  connectionUpdatedAt: string | null;
  /**
   * Served from the engine's cache rather than read now (PostgreSQL engine, active trigger intakes):
   * good only for an ingest guarded by it (IngestItem.guard); a refusal must be confirmed on a
   * fresh lookup.
   */
  cached?: boolean;
}

export interface RunEngine {
  /** `fresh`: read it now, never from a cache. */
  intakeHead(token: string, opts?: { fresh?: boolean }): Promise<IntakeHead | undefined>;
  /** Enabled automations of a workspace whose graph names the connection (shared upstream webhooks). */
  automationsUsingConnection(workspaceId: string, connectionId: string): Promise<Array<{ id: string; version: number }>>;
  /** Commits a delivery's events + runs + first steps; resolves after the commit (202 after durable). */
  ingest(item: IngestItem): Promise<IngestResult>;
  loadRun(runId: string): Promise<RunRow | undefined>;
  loadEvent(eventId: string): Promise<Envelope>;
  loadStep(stepId: string): Promise<ExistingStep | undefined>;
  /** Outputs of a step's ancestors by node name (nearest wins). */
  loadChain(parentStepId: string | null): Promise<Record<string, Envelope>>;
  commitStep(c: StepCommit): Promise<StepCommitResult>;
}

export type { Envelope, FinalStatus, NewRun, RunError };
