/**
 * What must hold after every chaos scenario, checked in PostgreSQL against the recorded answers:
 * - every delivery answered 202 has exactly one event and one run (none lost, none doubled);
 * - no delivery answered with a non-2xx status created a run (a delivery with no answer at all,
 *   e.g. cut off by a killed ingress, may or may not have: at most one run);
 * - every run ends (awaited with a generous deadline) and no step has two successful outcomes;
 * - no run exists that no delivery asked for.
 */
import type { Cluster } from "./cluster";
import type { Delivery, Effects } from "./load";

export interface Figures {
  scenario: string;
  sent: number;
  accepted: number;
  /** Non-2xx answers by status. */
  refused: Record<string, number>;
  noAnswer: number;
  runs: number;
  succeeded: number;
  failed: number;
  /** Failed runs: a step quarantined after its runner died under it CONVEYOR_STEP_QUARANTINE_AFTER times. */
  quarantined: number;
  lost: number;
  duplicated: number;
  /** Slow steps that ran more than once (at-least-once after a crash; their outcome is recorded once). */
  rerun: number;
  /** Seconds from the end of the fault until every process was ready again. */
  readyS?: number;
  /** Seconds from the end of the fault until the last run of the scenario finished. */
  lastRunS?: number;
  violations: string[];
}

const ACTIVE = "('queued', 'running', 'waiting')";

/** Waits until the automation has no unfinished run; returns false at the deadline. */
export async function awaitRunsEnd(c: Cluster, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await c.sql<{ n: number }>(`select count(*)::int as n from runs where automation_id = ? and status in ${ACTIVE}`, c.automationId);
    if (row!.n === 0) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 250));
  }
}

export async function checkInvariants(
  c: Cluster,
  effects: Effects,
  scenario: string,
  records: Delivery[],
  all: Delivery[],
  times: { faultEnd?: number; readyAt?: number; endDeadlineMs?: number } = {},
): Promise<Figures> {
  const violations: string[] = [];
  const ended = await awaitRunsEnd(c, times.endDeadlineMs ?? 240_000);
  if (!ended) {
    const stuck = await c.sql<{ id: string; status: string }>(
      `select id, status from runs where automation_id = ? and status in ${ACTIVE} limit 5`,
      c.automationId,
    );
    violations.push(`runs still unfinished after the deadline: ${stuck.map((s) => `${s.id} ${s.status}`).join(", ")}`);
  }
  const keys = [...new Set(records.map((d) => `chaos-${d.n}`))];
  const rows = await c.sql<{ k: string; events: number; runs: number; ids: string[] | null; statuses: string[] | null; fin: string | null }>(
    `select e.dedupe_key as k, count(distinct e.id)::int as events, count(r.id)::int as runs, array_agg(r.id) filter (where r.id is not null) as ids,
       array_agg(r.status) filter (where r.id is not null) as statuses, max(r.finished_at) as fin
     from events e left join runs r on r.event_id = e.id
     where e.dedupe_scope = ? and e.dedupe_key = any(?::text[]) group by e.dedupe_key`,
    c.intakeId,
    keys,
  );
  const byKey = new Map(rows.map((r) => [r.k, r]));
  const byNumber = new Map<number, Delivery[]>();
  for (const d of records) byNumber.set(d.n, [...(byNumber.get(d.n) ?? []), d]);

  const f: Figures = {
    scenario,
    sent: records.length,
    accepted: 0,
    refused: {},
    noAnswer: 0,
    runs: 0,
    succeeded: 0,
    failed: 0,
    quarantined: 0,
    lost: 0,
    duplicated: 0,
    rerun: 0,
    violations,
  };
  let lastFinished = 0;
  for (const [n, copies] of byNumber) {
    const row = byKey.get(`chaos-${n}`);
    const runs = row?.runs ?? 0;
    const ok = copies.filter((d) => d.status !== undefined && d.status >= 200 && d.status < 300);
    for (const d of copies) {
      if (d.status === undefined) f.noAnswer++;
      else if (d.status >= 200 && d.status < 300) f.accepted++;
      else f.refused[d.status] = (f.refused[d.status] ?? 0) + 1;
    }
    f.runs += runs;
    for (const s of row?.statuses ?? []) {
      if (s === "succeeded") f.succeeded++;
      else if (s === "failed" || s === "cancelled") f.failed++;
    }
    if (row?.fin) lastFinished = Math.max(lastFinished, Date.parse(row.fin));
    if ((row?.events ?? 0) > 1) violations.push(`delivery ${n}: ${row!.events} events`);
    if (runs > 1) {
      f.duplicated += runs - 1;
      violations.push(`delivery ${n}: ${runs} runs`);
    }
    if (ok.length) {
      if (runs === 0) {
        f.lost++;
        violations.push(`delivery ${n}: answered ${ok[0]!.status} but has no run`);
      }
      const promised = ok.flatMap((d) => d.body?.runIds ?? []);
      if (promised.length > 1) violations.push(`delivery ${n}: ${promised.length} run ids promised`);
      if (promised.length === 1 && row?.ids?.[0] !== promised[0]) violations.push(`delivery ${n}: promised run ${promised[0]} but has ${row?.ids?.join(",")}`);
      if (ok.some((d) => d.status !== 202)) violations.push(`delivery ${n}: answered ${ok.map((d) => d.status).join(",")} (expected 202)`);
    } else if (copies.some((d) => d.status !== undefined) && runs > 0) {
      violations.push(`delivery ${n}: answered ${copies.map((d) => d.status ?? d.error).join(",")} yet created a run`);
    }
    if ((effects.calls("/slow").get(n) ?? 0) > 1) f.rerun += effects.calls("/slow").get(n)! - 1;
  }

  // No step with two successful outcomes, and every succeeded run has each of its steps once.
  const doubled = await c.sql<{ run: string; node: string; n: number }>(
    `select s.run_id as run, s.node_id as node, count(*)::int as n from run_steps s join runs r on r.id = s.run_id
     where r.automation_id = ? and s.status = 'succeeded' group by s.run_id, s.node_id having count(*) > 1`,
    c.automationId,
  );
  for (const d of doubled) violations.push(`run ${d.run}: step ${d.node} succeeded ${d.n} times`);
  f.duplicated += doubled.length;
  const incomplete = await c.sql<{ id: string; n: number }>(
    `select r.id, count(s.id) filter (where s.status = 'succeeded' and s.node_id in ('slow', 'check', 'notify'))::int as n
     from runs r left join run_steps s on s.run_id = r.id where r.automation_id = ? and r.status = 'succeeded' group by r.id
     having count(s.id) filter (where s.status = 'succeeded' and s.node_id in ('slow', 'check', 'notify')) <> 3`,
    c.automationId,
  );
  for (const r of incomplete) violations.push(`run ${r.id} succeeded with ${r.n} of its 3 steps`);
  // A run may fail only by the quarantine of a step whose runner died under it too often
  // (CONVEYOR_STEP_QUARANTINE_AFTER); anything else that failed is a fault the product let through.
  const failures = await c.sql<{ id: string; error: string | null }>(
    "select r.id, r.error::text as error from runs r join events e on e.id = r.event_id where r.automation_id = ? and r.status in ('failed', 'cancelled') and e.dedupe_key = any(?::text[])",
    c.automationId,
    keys,
  );
  for (const r of failures) {
    if (r.error?.includes("stopped its worker")) f.quarantined++;
    else violations.push(`run ${r.id} failed: ${r.error}`);
  }
  // Runs nobody asked for (the whole suite so far).
  const asked = [...new Set(all.map((d) => `chaos-${d.n}`))];
  const [phantom] = await c.sql<{ n: number }>(
    `select count(*)::int as n from runs r join events e on e.id = r.event_id where r.automation_id = ? and (e.dedupe_key is null or not (e.dedupe_key = any(?::text[])))`,
    c.automationId,
    asked,
  );
  if (phantom!.n) violations.push(`${phantom!.n} run(s) that no delivery asked for`);

  if (times.faultEnd !== undefined) {
    if (times.readyAt !== undefined) f.readyS = Math.max(0, (times.readyAt - times.faultEnd) / 1000);
    if (lastFinished) f.lastRunS = Math.max(0, (lastFinished - times.faultEnd) / 1000);
  }
  return f;
}

export function figuresTable(all: Figures[]): string {
  const head =
    "| Scenario | Deliveries | 202 | Non-2xx (status: count) | No answer | Runs: succeeded / failed (quarantined) | Lost | Duplicated | Slow steps re-run | Ready again | Last run finished |";
  const rows = all.map((f) => {
    const refused =
      Object.entries(f.refused)
        .map(([s, n]) => `${s}: ${n}`)
        .join(", ") || "0";
    const s = (v?: number) => (v === undefined ? "–" : `${v.toFixed(1)} s`);
    return `| ${f.scenario} | ${f.sent} | ${f.accepted} | ${refused} | ${f.noAnswer} | ${f.runs}: ${f.succeeded} / ${f.failed} (${f.quarantined}) | ${f.lost} | ${f.duplicated} | ${f.rerun} | ${s(f.readyS)} | ${s(f.lastRunS)} |`;
  });
  return [head, `|${"---|".repeat(11)}`, ...rows].join("\n");
}
