"use client";
/**
 * The node panel's Test tab: run this step alone (or from it on) as a test run of the saved version,
 * with the data before it taken from pinned outputs or the last run; the result shows here and follows
 * the run live. Before one is started here, the latest test run started at this node shows (test runs
 * never mark a node as failed on the canvas: that mark is production's). Below, the node's pinned output.
 */
import { useMutation, useQuery } from "@tanstack/react-query";
import { ExternalLink, FlaskConical, Play } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "@/components/providers/trpc-provider";
import { OutputViewer } from "@/components/runs/output-viewer";
import { RunStatusBadge } from "@/components/runs/run-status-badge";
import type { FlowNode, FlowNodeData, PaletteUnit } from "../types";
import { PinEditor, type PinSource } from "./pin-editor";
import type { SampleData } from "./use-expression-env";

const LIVE = new Set(["queued", "running", "waiting"]);

export interface TestTabProps {
  workspaceId: string;
  automationId: string;
  /** Saves unsaved changes first (test runs use the saved version); false when the save did not go through. */
  ensureSaved(): Promise<boolean>;
  /** Runs from this node on and opens the run view. */
  runFrom(nodeId: string): void;
  lastRun?: SampleData & { runId?: string };
  canRun: boolean;
  readOnly?: boolean;
}

export function TestTab({
  node,
  unit,
  workspaceId,
  automationId,
  ensureSaved,
  runFrom,
  lastRun,
  canRun,
  readOnly,
}: TestTabProps & { node: FlowNode & { data: FlowNodeData }; unit?: PaletteUnit }) {
  const trpc = useTRPC();
  const isTrigger = node.type === "trigger";
  const test = useMutation(trpc.runs.test.mutationOptions());
  const [started, setStarted] = useState<{ id: string; dataFrom: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The automation's recent test runs, for the latest one started at this node (until one is started here).
  const recentTests = useQuery({
    ...trpc.runs.list.queryOptions({ workspaceId, automationId, mode: "test", limit: 20 }),
    enabled: !started && !isTrigger,
  });
  const previous = started || isTrigger ? undefined : recentTests.data?.data.find((r) => r.test?.nodeId === node.id);
  const shown = started ?? (previous ? { id: previous.id, dataFrom: null } : null);
  const run = useQuery({
    ...trpc.runs.get.queryOptions({ workspaceId, runId: shown?.id ?? "" }),
    enabled: !!shown,
    refetchInterval: (q) => (!q.state.data || LIVE.has(q.state.data.status) ? 700 : false),
  });
  const step = run.data?.steps.filter((s) => s.nodeId === node.id).at(-1);
  const runStep = async () => {
    setError(null);
    if (!(await ensureSaved())) return setError("Save your changes first: test runs use the saved version.");
    try {
      const r = await test.mutateAsync({ workspaceId, automationId, nodeId: node.id, scope: "step" });
      setStarted({ id: r.id, dataFrom: r.dataFrom });
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const sources: PinSource[] = [];
  const fromRun = isTrigger ? lastRun?.trigger : lastRun?.steps[node.data.name];
  if (step?.status === "succeeded" && step.output && !step.origin) sources.push({ label: "the test output", output: step.output, runId: shown?.id });
  if (fromRun && typeof fromRun === "object" && "type" in fromRun)
    sources.push({ label: `the ${lastRun?.source ?? "last run"} output`, output: fromRun as PinSource["output"], runId: lastRun?.runId });

  return (
    <div className="space-y-5" data-testid="test-tab">
      <section aria-label="Test" className="space-y-2">
        <p className="help">
          {isTrigger
            ? "Run everything after this trigger as a test, with its pinned event or the last run's. Nodes with pinned output emit it instead of calling their upstream."
            : `Run ${node.data.name} for real (it calls its upstream), with the output of the steps before it taken from their pinned data or the last run. Nothing before or after it runs. Recorded as a test run: not counted as a production run, no task, no error handler.`}
        </p>
        <div className="flex flex-wrap gap-1.5">
          {!isTrigger && (
            <button type="button" className="btn btn-primary btn-sm" onClick={runStep} disabled={!canRun || test.isPending} data-testid="run-step">
              <FlaskConical size={13} aria-hidden /> {test.isPending ? "Starting…" : "Run step"}
            </button>
          )}
          <button
            type="button"
            className={`btn btn-sm ${isTrigger ? "btn-primary" : ""}`}
            onClick={() => runFrom(node.id)}
            disabled={!canRun}
            data-testid="run-from-here-panel"
          >
            <Play size={13} aria-hidden /> Run from here
          </button>
        </div>
        {error && (
          <p className="field-error" role="alert" data-testid="test-error">
            {error}
          </p>
        )}
      </section>
      {shown && (
        <section aria-label={started ? "Test result" : "Latest test"} className="space-y-2 rounded-md border border-border p-3" data-testid="test-result">
          <div className="flex items-center justify-between gap-2">
            <RunStatusBadge status={step?.status ?? run.data?.status ?? "queued"} />
            <Link className="inline-flex items-center gap-1 text-xs underline" href={`/w/${workspaceId}/runs/${shown.id}`} data-testid="test-run-link">
              Open run <ExternalLink size={11} aria-hidden />
            </Link>
          </div>
          <p className="text-xs text-muted">
            {shown.dataFrom
              ? `Data before it from ${shown.dataFrom}.`
              : `Latest test of this node${previous ? `, ${new Date(previous.createdAt).toLocaleString()}` : ""}.`}
          </p>
          {(step?.error ?? run.data?.error?.message) && (
            <p role="alert" className="rounded-md border border-red-200 bg-red-50 p-2 text-xs text-danger" data-testid="test-step-error">
              {step?.error ?? run.data?.error?.message}
            </p>
          )}
          {step?.output && <OutputViewer title="Output" value={step.output} base={`$steps.${node.data.name}`} testId="test-output" />}
        </section>
      )}
      <PinEditor nodeId={node.id} data={node.data} unit={unit} sources={sources} readOnly={readOnly} />
    </div>
  );
}
