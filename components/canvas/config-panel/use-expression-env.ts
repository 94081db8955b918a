"use client";
/** Builds autocomplete paths and preview data for one node from its upstream nodes. */
import { useMemo } from "react";
import { useCanvasStore } from "../canvas-store";
import { useCatalog } from "../catalog-context";
import { upstreamOf } from "../graph-utils";
import { isUnitNode, type FlowNodeData } from "../types";
import { envelopePaths, mergePaths, type ExpressionPath } from "./expression-paths";

export interface SampleData {
  /** Envelopes from the last real run (or a test event), by node name; `trigger` for the trigger. */
  trigger?: unknown;
  steps: Record<string, unknown>;
  source: string;
  /** The run the data comes from, when it is a run. */
  runId?: string;
}

export function useExpressionEnv(nodeId: string, lastRun?: SampleData) {
  const nodes = useCanvasStore((s) => s.nodes);
  const edges = useCanvasStore((s) => s.edges);
  const { byKey } = useCatalog();
  return useMemo(() => {
    const ups = upstreamOf(nodeId, edges)
      .map((id) => nodes.find((n) => n.id === id))
      .filter((n): n is NonNullable<typeof n> => !!n && isUnitNode(n));
    const lists: ExpressionPath[][] = [];
    const sample: { trigger?: unknown; steps: Record<string, unknown> } = { steps: {} };
    let usedRun = false;
    let usedPin = false;
    for (const n of ups) {
      const d = n.data as FlowNodeData;
      const unit = byKey.get(d.key);
      const example = unit?.example !== undefined ? { type: unit.outputType, timestamp: new Date(0).toISOString(), data: unit.example } : undefined;
      // Pinned data is what test runs use: it wins over the last run.
      const pinned = d.pinned?.output;
      if (n.type === "trigger") {
        const real = pinned ?? lastRun?.trigger;
        lists.push(envelopePaths("$trigger", { outputSchema: unit?.output, example: unit?.example, lastRun: real }));
        if (sample.trigger === undefined) sample.trigger = real ?? example;
        if (real) usedRun = true;
        if (pinned) usedPin = true;
      } else {
        const real = pinned ?? lastRun?.steps[d.name];
        lists.push(envelopePaths(`$steps.${d.name}`, { outputSchema: unit?.output, example: unit?.example, lastRun: real }));
        sample.steps[d.name] = real ?? example;
        if (real) usedRun = true;
        if (pinned) usedPin = true;
      }
    }
    const source = usedPin ? (lastRun ? `pinned data and ${lastRun.source}` : "pinned data") : (lastRun?.source ?? "last run");
    return { paths: mergePaths(...lists), sample, sampleSource: usedRun ? source : "examples" };
  }, [nodeId, nodes, edges, byKey, lastRun]);
}
