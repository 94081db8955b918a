/**
 * Test runs (the editor's "run step" and "run from here", REST `POST …/apps/{appId}/test-runs`): a run
 * of the saved version that starts at one node, with the trigger event and the outputs of the nodes
 * before it taken from pinned data or from an earlier run, so the node is tried for real (it calls its
 * upstream) without running what comes before it again.
 *
 * - `scope: "step"` runs that node only; `"downstream"` runs it and everything after it, where a node
 *   with pinned data emits that data instead of calling its upstream (the node under test always runs).
 * - `source`: `auto` (default) takes each earlier node's pinned output when it has one, else its output
 *   in the newest run that reached the node; `pinned` uses pinned data only; `run` uses one run only
 *   (`runId`, default the newest that fits) and ignores pinned data.
 * - Recorded as `mode: "test"`: counted apart in usage, never advances a task, never starts an error
 *   handler. Production runs never read pinned data.
 */
import { envelope } from "@/integrations/core/define";
import { findTrigger } from "@/integrations/registry";
import type { DerivedRun, RunRecord, RunStepRow, StepOrigin } from "@/db/types";
import type { Store } from "@/db/store";
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { AppError } from "../../errors";
import type { PinnedData } from "../../contracts/graph";
import { getVersionGraph, pinnedOutputs, type IndexedGraph } from "../../graphs";
import { requireWorkspace } from "../access";
import { loadAutomationRow } from "../automations/save-automation";
import { downstreamIds, nodesBetween, upstreamIds } from "./plans";
import { toRun } from "./to-run";

export interface TestRunInput {
  workspaceId: string;
  automationId: string;
  nodeId: string;
  scope?: "step" | "downstream";
  source?: "auto" | "pinned" | "run";
  runId?: string;
}

/** How many recent runs are searched for data when no run is named. */
const RECENT_RUNS = 20;

type Data = Pick<DerivedRun, "triggerNodeId" | "event" | "seeds"> & { from: string };

export async function startTestRun(deps: AppDeps, actor: Actor, input: TestRunInput) {
  const { store } = deps;
  await requireWorkspace(store, actor, input.workspaceId, "run.start");
  const a = await loadAutomationRow(store, input.workspaceId, input.automationId);
  const graph = await getVersionGraph(store, a.id, a.version);
  const node = graph.byId.get(input.nodeId);
  if (!node) {
    const why = a.graph.nodes.some((n) => n.id === input.nodeId) ? "is disabled" : "is not in it (save your changes first)";
    throw new AppError("validation_failed", `Node ${input.nodeId} ${why}: test runs use the saved version ${a.version}.`, [
      { path: "nodeId", message: `Not a node of version ${a.version}` },
    ]);
  }
  const isTrigger = !!findTrigger(node.key);
  const scope = input.scope ?? (isTrigger ? "downstream" : "step");
  if (isTrigger && scope === "step") {
    throw new AppError("validation_failed", `${node.name} is a trigger: it has no step of its own to run. Run from it (scope "downstream") instead.`, [
      { path: "scope", message: "A trigger has no step" },
    ]);
  }
  const runs = new Set(scope === "step" ? [node.id] : [node.id, ...downstreamIds(graph, node.id)]);
  const errors = (a.problems ?? []).filter((p) => p.severity !== "warning" && p.nodeId && runs.has(p.nodeId));
  if (errors.length) {
    throw new AppError(
      "validation_failed",
      `Fix ${errors.length === 1 ? "the problem" : `the ${errors.length} problems`} of the steps this test runs first (${errors[0]!.message}).`,
      errors,
    );
  }
  const source = input.source ?? "auto";
  const pins = source === "run" ? new Map<string, PinnedData>() : await pinnedOutputs(store, a.id, a.version);
  const data = await findData(store, {
    graph,
    node: node.id,
    isTrigger,
    source,
    pins,
    version: a.version,
    workspaceId: a.workspaceId,
    automationId: a.id,
    runId: input.runId,
    now: deps.now(),
  });

  const seeds = data.seeds;
  const last = seeds.length ? seeds[seeds.length - 1]!.ref : null;
  const start = isTrigger ? (graph.children.get(node.id) ?? []).map((nodeId) => ({ nodeId, parentRef: null })) : [{ nodeId: node.id, parentRef: last }];
  const made = await store.runs.createDerived({
    workspaceId: a.workspaceId,
    automationId: a.id,
    version: a.version,
    triggerNodeId: data.triggerNodeId,
    event: data.event,
    seeds,
    start,
    mode: "test",
    test: { nodeId: node.id, single: scope === "step" },
    at: deps.now(),
  });
  if ("refused" in made) throw new AppError("conflict", "The test run could not be started.");
  if (!made.finished) deps.queue.publish([made.runId]);
  const row = (await store.runs.get(made.runId))!;
  return { ...toRun(row, graph.byId.get(row.triggerNodeId)?.name ?? null), dataFrom: data.from };
}

interface Find {
  graph: IndexedGraph;
  node: string;
  isTrigger: boolean;
  source: "auto" | "pinned" | "run";
  pins: Map<string, PinnedData>;
  version: number;
  workspaceId: string;
  automationId: string;
  runId?: string;
  now: Date;
}

/** The trigger event and the outputs of the nodes before `node`: pinned data, an earlier run, or both. */
async function findData(store: Store, f: Find): Promise<Data> {
  const { graph, node } = f;
  const nameOf = (id: string) => graph.byId.get(id)?.name ?? id;
  const triggers = f.isTrigger ? [node] : [...upstreamIds(graph, node)].filter((id) => !!findTrigger(graph.byId.get(id)!.key));
  if (!triggers.length) throw new AppError("unprocessable", `${nameOf(node)} has no trigger before it.`);
  const pinnedSeed = (id: string, ref: string, parentRef: string | null): DerivedRun["seeds"][number] => {
    const n = graph.byId.get(id)!;
    const p = f.pins.get(id)!;
    return {
      ref,
      parentRef,
      nodeId: id,
      name: n.name,
      key: n.key,
      input: null,
      output: { ...p.output, data: p.output.data ?? null },
      origin: { kind: "pinned", version: f.version },
    };
  };
  const chain = (list: Array<Omit<DerivedRun["seeds"][number], "parentRef">>) => list.map((s, i) => ({ ...s, parentRef: i ? list[i - 1]!.ref : null }));
  const missing: string[] = [];

  // 1. Pinned data alone: a pinned trigger event and every node in between pinned.
  const fromPins = (allowManual: boolean): Data | undefined => {
    for (const t of triggers) {
      const between = f.isTrigger ? [] : nodesBetween(graph, t, node);
      const manual = graph.byId.get(t)!.key === "core.manual";
      if (!f.pins.has(t) && !(allowManual && manual)) continue;
      if (!between.every((id) => f.pins.has(id))) continue;
      const pin = f.pins.get(t);
      const env = pin ? { ...pin.output, data: pin.output.data ?? null } : envelope(findTrigger("core.manual")!.outputType, {}, f.now);
      return {
        triggerNodeId: t,
        event: { envelope: env, source: "test" },
        seeds: chain(between.map((id, i) => pinnedSeed(id, `p${i}`, null))),
        from: pin ? "pinned data" : "an empty manual event and pinned data",
      };
    }
    return undefined;
  };
  if (f.source !== "run") {
    const hit = fromPins(false);
    if (hit) return hit;
  }

  // 2. An earlier run (pinned data still wins node by node unless `source` is "run").
  if (f.source !== "pinned") {
    let candidates: RunRecord[];
    if (f.runId) {
      const r = await store.runs.get(f.runId, f.workspaceId);
      // A body field, not the path: the automation exists, so this is a 422 naming `runId`, not a 404.
      if (!r || r.automationId !== f.automationId)
        throw new AppError(
          "validation_failed",
          `Run ${f.runId} is not a run of this automation; pass one of its run ids, or leave runId out for the newest that fits.`,
          [{ path: "runId", message: "Not a run of this automation" }],
        );
      candidates = [r];
    } else candidates = await store.runs.list(f.workspaceId, { automationId: f.automationId }, { limit: RECENT_RUNS });
    for (const r of candidates) {
      if (!triggers.includes(r.triggerNodeId)) continue;
      const between = f.isTrigger ? [] : nodesBetween(graph, r.triggerNodeId, node);
      const need = between.filter((id) => !f.pins.has(id));
      const steps = need.length ? await store.runs.steps(r.id) : [];
      const latest = new Map<string, RunStepRow>();
      for (const s of steps) if (s.status === "succeeded" && s.output) latest.set(s.nodeId, s);
      const lacking = need.filter((id) => !latest.has(id));
      if (lacking.length) {
        if (f.runId) missing.push(...lacking);
        continue;
      }
      const seeds = between.map((id, i) => {
        if (f.pins.has(id)) return pinnedSeed(id, `s${i}`, null);
        const s = latest.get(id)!;
        const n = graph.byId.get(id)!;
        const origin: StepOrigin = s.origin ?? { kind: "run", runId: r.id, stepId: s.id, version: r.version };
        return {
          ref: `s${i}`,
          parentRef: null,
          nodeId: id,
          name: n.name,
          key: n.key,
          input: s.input ?? null,
          output: s.output as DerivedRun["seeds"][number]["output"],
          origin,
        };
      });
      return { triggerNodeId: r.triggerNodeId, event: { id: r.eventId }, seeds: chain(seeds), from: `run ${r.id}` };
    }
  }

  // 3. A manual trigger needs no event: an empty one, with pinned data for the nodes in between.
  if (f.source !== "run") {
    const hit = fromPins(true);
    if (hit) return hit;
  }
  const lacking = [
    ...new Set(missing.length ? missing : f.isTrigger ? [] : triggers.flatMap((t) => nodesBetween(graph, t, node)).filter((id) => !f.pins.has(id))),
  ].map(nameOf);
  const what = f.isTrigger
    ? `event for ${nameOf(node)}`
    : `data for ${[...triggers.filter((t) => !f.pins.has(t) && graph.byId.get(t)!.key !== "core.manual").map(nameOf), ...lacking].join(", ") || "the nodes before it"}`;
  const how = f.isTrigger
    ? "pin an event on it (its Test tab), or let a real event arrive first"
    : f.source === "pinned"
      ? "pin their output"
      : f.runId
        ? `run ${f.runId} did not reach ${nameOf(node)}; pick another run or pin data`
        : `pin their output, or run the automation once so that it reaches ${nameOf(node)}`;
  throw new AppError("unprocessable", `No ${what} yet: ${how}.`, [{ path: "nodeId", message: `No earlier data for the nodes before ${nameOf(node)}` }]);
}
