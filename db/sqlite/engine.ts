/**
 * The SQLite run engine: synchronous prepared statements inside grouped commits (every write of one
 * event-loop tick shares one transaction; each caller resolves after that COMMIT). Writes exactly the
 * rows of the portable store (db/stores/runs.ts), which the contract tests check.
 */
import type { Db } from "../client";
import type { ExistingStep, IntakeHead, IngestItem, IngestResult, RunEngine, RunRow, StepCommit, StepCommitResult, StepJob, StepRowWrite } from "../engine";
import { isoTime } from "../iso-time";
import { sortableId } from "../sortable-id";
import type { Envelope, NewRun } from "../stores/runs";
import { epochOf } from "./backend";
import { groupCommitter } from "./group-commit";
import { statements } from "./statements";
import { cancelledStepRow, stepRowParams } from "../step-params";

type Created = { runId: string; finished: boolean } | null;

/** Event + run + first jobs inside the caller's (synchronous) transaction; mirrors runsStore.create. */
export function createRunSync(db: Db, r: NewRun): Created {
  const s = statements(db);
  const iso = isoTime(r.at);
  let eventId = r.eventId;
  if (!eventId) {
    eventId = sortableId("evt");
    const info = s.event.run(
      eventId,
      r.workspaceId,
      r.intakeId ?? null,
      r.automationId,
      r.triggerNodeId,
      r.dedupeKey ? (r.dedupeScope ?? `automation:${r.automationId}`) : null,
      r.dedupeKey ?? null,
      r.envelope.type,
      JSON.stringify(r.envelope),
      r.source,
      iso,
    );
    if (info.changes === 0) return null;
  }
  const runId = sortableId("run");
  const finished = r.firstNodes.length === 0;
  s.insertRun.run(
    runId,
    r.workspaceId,
    r.automationId,
    r.version,
    finished ? "succeeded" : "queued",
    r.triggerNodeId,
    eventId,
    r.taskId ?? null,
    r.taskStep ?? null,
    r.retryOf ?? null,
    finished && r.taskId ? iso : null,
    iso,
    finished ? iso : null,
    finished ? iso : null,
    iso,
  );
  const atMs = r.at.getTime();
  for (const nodeId of r.firstNodes) insertJob(db, { runId, automationId: r.automationId, nodeId, parentStepId: null, atMs });
  return { runId, finished };
}

export function insertJob(
  db: Db,
  j: {
    runId: string;
    automationId: string;
    nodeId: string;
    parentStepId: string | null;
    atMs: number;
    lease?: { owner: string; token: string; until: number };
  },
): string {
  const id = sortableId("stp");
  statements(db).insertJob.run(
    id,
    j.runId,
    id,
    j.automationId,
    JSON.stringify({ nodeId: j.nodeId, parentStepId: j.parentStepId }),
    j.lease ? "leased" : "queued",
    j.atMs,
    j.lease?.owner ?? null,
    j.lease?.token ?? null,
    j.lease?.until ?? null,
    j.lease ? 1 : 0, // leased at once to its worker: that is its first attempt
    j.atMs,
  );
  return id;
}

/** Rewrites the (leased) job row `fromId` as the next step's job, leased to the same owner; returns its id. */
function advanceJob(db: Db, fromId: string, j: { nodeId: string; parentStepId: string | null; atMs: number }, lease: { token: string; until: number }): string {
  const id = sortableId("stp");
  statements(db).advanceJob.run(id, id, JSON.stringify({ nodeId: j.nodeId, parentStepId: j.parentStepId }), j.atMs, lease.token, lease.until, j.atMs, fromId);
  return id;
}

function writeStep(db: Db, w: StepRowWrite): void {
  statements(db).upsertStep.run(...stepRowParams(w));
}

/** Ends an active run (inside the caller's transaction); false when it was no longer active. */
function finishRunSync(db: Db, c: Pick<StepCommit, "nodeInfo">, run: RunRow, status: "succeeded" | "failed", error: unknown, iso: string): boolean {
  const s = statements(db);
  if (status !== "succeeded") {
    for (const j of s.runJobs.all(run.id) as Array<{ id: string; payload: string }>) {
      if (s.stepExists.get(j.id)) continue;
      const p = JSON.parse(j.payload) as { nodeId: string; parentStepId: string | null };
      const n = c.nodeInfo(p.nodeId);
      writeStep(db, cancelledStepRow({ id: j.id, runId: run.id, nodeId: p.nodeId, parentStepId: p.parentStepId }, n, iso));
    }
    s.deleteRunJobs.run(run.id);
    s.cancelSteps.run(iso, run.id);
  }
  return s.finishRun.run(status, error ? JSON.stringify(error) : null, iso, iso, status, iso, run.id).changes > 0;
}

function commitSync(db: Db, c: StepCommit): StepCommitResult {
  const s = statements(db);
  const iso = isoTime(c.now);
  const lease = s.jobLease.get(c.job.id) as { owner: string | null; token: string | null } | undefined;
  const held = lease !== undefined && lease.owner === c.owner && lease.token === c.job.token;
  // An ended run has no jobs (every way a run ends deletes them in the same transaction), so a lease
  // still held means the run is active: its status is read only when the lease is gone or taken.
  if (!held) {
    const current = s.runStatus.get(c.run.id) as { status: string } | undefined;
    if (!current || (current.status !== "running" && current.status !== "waiting" && current.status !== "queued")) {
      // The run ended (cancelled) while the step ran: keep its record, drop its job.
      writeStep(db, { ...c.step, status: "cancelled", output: null, state: null, error: "run was cancelled", finishedAt: iso });
      s.removeJob.run(c.job.id);
      return { kind: "cancelled" };
    }
    return { kind: "fenced" };
  }
  writeStep(db, c.step);
  const children = c.children ?? [];
  // A completed job's row becomes its first next step's (same run, same worker): the row is rewritten
  // in place, which costs less than deleting it and inserting another.
  let reuse = c.queue.kind === "complete" && children.length > 0;
  if (c.queue.kind === "complete") {
    if (!reuse) s.removeJob.run(c.job.id);
  } else (c.queue.resetAttempts ? s.rescheduleFresh : s.reschedule).run(c.queue.atMs, c.job.id);
  const next: StepJob[] = [];
  const nowMs = c.now.getTime();
  for (const nodeId of children) {
    const token = sortableId("lt");
    const job = { runId: c.run.id, automationId: c.run.automationId, nodeId, parentStepId: c.job.id, atMs: nowMs };
    const lease = { owner: c.owner, token, until: nowMs + c.leaseMs };
    const id = reuse ? advanceJob(db, c.job.id, job, lease) : insertJob(db, { ...job, lease });
    reuse = false;
    next.push({ id, runId: c.run.id, automationId: c.run.automationId, nodeId, parentStepId: c.job.id, attempts: 1, runStatus: "running", token, stops: 0 });
  }
  const effect = c.runEffect;
  if (effect.kind === "completeIfDone" && !next.length) {
    if ((s.activeJobs.get(c.run.id) as { n: number }).n === 0 && finishRunSync(db, c, c.run, "succeeded", null, iso)) {
      return { kind: "ok", next, finished: { status: "succeeded", run: c.run } };
    }
  } else if (effect.kind === "fail") {
    if (finishRunSync(db, c, c.run, "failed", effect.error, iso)) return { kind: "ok", next, finished: { status: "failed", run: c.run } };
  } else if (effect.kind === "waitingIfIdle") {
    if ((s.leasedOthers.get(c.run.id, c.job.id) as { n: number }).n === 0) s.setRunStatus.run("waiting", iso, c.run.id);
  }
  return { kind: "ok", next };
}

export function sqliteEngine(db: Db): RunEngine {
  const s = statements(db);
  const committer = groupCommitter(db);
  // Intake counters (last event, count) are aggregated per grouped commit: one UPDATE per intake per batch.
  const intakeCounts = new Map<string, { n: number; at: string }>();
  committer.onBatchEnd((tx) => {
    for (const [id, c] of intakeCounts) statements(tx).intakeCount.run(c.at, c.n, id);
    intakeCounts.clear();
  });
  // A batch rolled back to be replayed item by item counts its deliveries again.
  committer.onBatchAbort(() => intakeCounts.clear());

  /**
   * Intake heads by token, valid while no other connection committed (PRAGMA data_version) and no
   * store call ran on this one (epochOf): a disable or a rotated secret applies
   * to the next delivery as before, and a steady stream of deliveries skips three lookups (and their
   * read transactions) each. Callers must not modify the returned object.
   */
  const heads = { version: -1, epoch: -1, byToken: new Map<string, IntakeHead | undefined>() };
  const epoch = epochOf(db);
  // Read at most once a millisecond: the pragma opens a read transaction (two lock syscalls per
  // delivery otherwise), and a change another process committed within the last millisecond is as
  // concurrent with a delivery as it can be.
  let seenVersion = -1;
  let seenAt = -Infinity;
  const dataVersion = (): number => {
    const now = performance.now();
    if (now - seenAt >= 1) {
      seenVersion = s.dataVersion.get() as number;
      seenAt = now;
    }
    return seenVersion;
  };
  const readIntakeHead = (token: string): IntakeHead | undefined => {
    // Separate primary-key lookups: measured 4x cheaper than one LEFT JOIN over the three tables.
    const head = s.intakeHead.get(token) as (Omit<IntakeHead, "config"> & { config: string | null }) | undefined;
    if (!head) return undefined;
    const a = head.automationId ? (s.automationHead.get(head.automationId) as { version: number; enabled: number; u: string } | undefined) : undefined;
    const cu = head.connectionId ? (s.connectionStamp.get(head.connectionId) as { u: string } | undefined) : undefined;
    return {
      ...head,
      config: head.config ? (JSON.parse(head.config) as Record<string, unknown>) : null,
      automationVersion: a?.version ?? null,
      automationEnabled: a ? a.enabled === 1 : null,
      automationUpdatedAt: a?.u ?? null,
      connectionUpdatedAt: cu?.u ?? null,
    };
  };

  return {
    async intakeHead(token) {
      const version = dataVersion();
      if (version !== heads.version || epoch.n !== heads.epoch || heads.byToken.size > 10_000) {
        heads.byToken.clear();
        heads.version = version;
        heads.epoch = epoch.n;
      }
      if (heads.byToken.has(token)) return heads.byToken.get(token);
      const head = readIntakeHead(token);
      heads.byToken.set(token, head);
      return head;
    },
    async automationsUsingConnection(workspaceId, connectionId) {
      return s.usingConnection.all(workspaceId, `%${connectionId}%`) as Array<{ id: string; version: number }>;
    },
    ingest(item: IngestItem): Promise<IngestResult> {
      return committer.run((tx) => {
        const out: IngestResult = { runIds: [], duplicates: 0, finished: 0 };
        // A used timestamped signature: nothing of the item is stored (in the same transaction as the runs).
        const sig = item.signature;
        if (sig && statements(tx).useSignature.run(item.intakeId, sig.signature, sig.expiresAtMs).changes === 0) return { ...out, replayed: true };
        let at: string | undefined;
        for (const r of item.runs) {
          const created = createRunSync(tx, r);
          at = isoTime(r.at);
          if (!created) out.duplicates++;
          else {
            out.runIds.push(created.runId);
            if (created.finished) out.finished++;
          }
        }
        if (at && item.intakeId) {
          const cur = intakeCounts.get(item.intakeId);
          if (cur) {
            cur.n++;
            cur.at = at;
          } else intakeCounts.set(item.intakeId, { n: 1, at });
        }
        return out;
      });
    },
    async loadRun(runId) {
      return s.run.get(runId) as RunRow | undefined;
    },
    async loadEvent(eventId) {
      const row = s.eventEnvelope.get(eventId) as { envelope: string } | undefined;
      if (!row) throw new Error(`Event ${eventId} is missing`);
      return JSON.parse(row.envelope) as Envelope;
    },
    async loadStep(stepId): Promise<ExistingStep | undefined> {
      const r = s.step.get(stepId) as { state: string | null; attempts: string; logs: string; startedAt: string | null; createdAt: string } | undefined;
      if (!r) return undefined;
      return {
        state: r.state ? JSON.parse(r.state) : undefined,
        attempts: JSON.parse(r.attempts),
        logs: JSON.parse(r.logs),
        startedAt: r.startedAt,
        createdAt: r.createdAt,
      };
    },
    async loadChain(parentStepId) {
      const steps: Record<string, Envelope> = {};
      let id = parentStepId;
      for (let guard = 0; id && guard < 1000; guard++) {
        const r = s.step.get(id) as { name: string; output: string | null; parentStepId: string | null } | undefined;
        if (!r) break;
        if (r.output && !(r.name in steps)) steps[r.name] = JSON.parse(r.output) as Envelope;
        id = r.parentStepId;
      }
      return steps;
    },
    commitStep(c) {
      return committer.run((tx) => commitSync(tx, c));
    },
  };
}
