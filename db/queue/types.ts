/**
 * The work queue: how runnable steps reach runners. Two implementations behind one interface; the
 * executor (server/runner) does not know which:
 * - embedded (db/sqlite/queue.ts): the `jobs` table of the SQLite file; runners claim due steps with a
 *   lease in one IMMEDIATE transaction, so processes sharing the file never claim the same step;
 * - BullMQ on Redis (db/queue/bullmq.ts, scale-out mode): one BullMQ job per run with work; the worker
 *   that takes it claims that run's due steps in PostgreSQL with a lease and a fencing token.
 *
 * The operations of a queue map as follows: enqueue = the store writes job rows in the same
 * transaction as the run (and `publish` after the commit); claim with lease = a consumer delivering
 * `StepJob`s; renew = `renew`; complete / fail / delay = `RunEngine.commitStep` (in the same
 * transaction as the step's outcome); release = `release` (and every lease on `stop`).
 */
import type { StepJob } from "../engine";

export interface ConsumerOptions {
  /** Lease owner: unique per runner. */
  owner: string;
  leaseMs: number;
  pollMs: number;
  /** Most runs worked on at once (BullMQ worker concurrency). */
  runs: number;
}

export interface WorkConsumer {
  /** Starts delivering claimed jobs to `deliver`; `room()` says how many more the runner can take. */
  start(deliver: (jobs: StepJob[]) => void, room: () => number): void;
  /** The runner has nothing of this run in flight any more (ends the run's BullMQ job). */
  idle(runId: string): void;
  /** Look for work now (this process just committed some). */
  wake(): void;
  /** Extends every lease this consumer holds. */
  renew(): Promise<void>;
  /** Gives one job back, due again after `delayMs`. */
  release(job: StepJob, delayMs: number): Promise<void>;
  /** Stops claiming new work (in-flight work goes on). */
  drain(): void;
  /** Stops and gives every lease still held back. */
  stop(): Promise<void>;
  /** False while the consumer cannot reach its queue (readiness). */
  healthy(): boolean;
}

/** Figures for /metrics and readiness (this process's view). */
export interface QueueStats {
  /** Whether the queue's server answered the last check (null: the embedded queue has no server). */
  reachable: boolean | null;
  /** Runs republished by this process's sweeper since it started. */
  republished: number;
}

export interface WorkQueue {
  readonly kind: "embedded" | "bullmq";
  /**
   * After a commit that queued work for these runs (ingest, starts, retries, schedules). `again`: the
   * runs had work before and may still hold their previous queue entry (a retry of the same run right
   * after it ended); the queue makes sure the new work is not absorbed by that entry.
   */
  publish(runIds: string[], opts?: { again?: boolean }): void;
  consumer(opts: ConsumerOptions): WorkConsumer;
  /** Starts republishing lost work in the background (scale-out: the sweeper); returns its stop. */
  startSweeper(everyMs?: number): () => Promise<void>;
  /** One sweep now (tests, chaos checks); the number of runs republished. */
  sweepNow(): Promise<number>;
  /** Throws when the queue cannot be reached. */
  ping(): Promise<void>;
  stats(): QueueStats;
  close(): Promise<void>;
}
