"use client";
/** One run: the canvas of the version it ran with each node's status, and the selected step's details. Polls while live. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Background, BackgroundVariant, Controls, ReactFlow, ReactFlowProvider } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { ArrowLeft, Ban, FlaskConical, Pencil } from "lucide-react";
import Link from "next/link";
import { useMemo, useState } from "react";
import { toast } from "sonner";
import { useTRPC } from "@/components/providers/trpc-provider";
import { CatalogProvider } from "@/components/canvas/catalog-context";
import { Dialog } from "@/components/canvas/dialog";
import { docToFlow } from "@/components/canvas/graph-utils";
import { nodeTypes } from "@/components/canvas/node-types";
import { CanvasModeContext } from "@/components/canvas/nodes/unit-node";
import type { StepStatus } from "@/components/canvas/nodes/node-run-status";
import type { CatalogIntegration } from "@/components/canvas/types";
import { LoadError } from "@/components/shared/load-error";
import { RunStatusBadge } from "./run-status-badge";
import { StepDetails } from "./step-details";
import { formatMs } from "./format";
import { RetryActions } from "./retry-actions";
import { RunStarted, RunWaits } from "./run-timing";

const LIVE = new Set(["queued", "running", "waiting"]);

export function RunView({ workspaceId, runId }: { workspaceId: string; runId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const run = useQuery({
    ...trpc.runs.get.queryOptions({ workspaceId, runId }),
    refetchInterval: (q) => (q.state.data && LIVE.has(q.state.data.status) ? 1000 : false),
  });
  const r = run.data;
  const version = useQuery({
    ...trpc.automations.version.queryOptions({ workspaceId, automationId: r?.automationId ?? "", version: r?.version ?? 0 }),
    enabled: !!r,
  });
  const automation = useQuery({ ...trpc.automations.get.queryOptions({ workspaceId, automationId: r?.automationId ?? "" }), enabled: !!r, retry: false });
  const catalog = useQuery(trpc.catalog.list.queryOptions({ workspaceId }));
  const cancel = useMutation(trpc.runs.cancel.mutationOptions());
  const [selectedNode, setSelectedNode] = useState<string | null>(null);
  const [confirmCancel, setConfirmCancel] = useState(false);

  const kindOf = (key: string) => (catalog.data?.some((i) => i.triggers.some((t) => t.key === key)) ? "trigger" : "component") as "trigger" | "component";
  const flow = useMemo(() => (version.data ? docToFlow(version.data.graph, kindOf) : { nodes: [], edges: [] }), [version.data, catalog.data]); // eslint-disable-line react-hooks/exhaustive-deps
  const statuses = useMemo(() => {
    const out: Record<string, StepStatus> = {};
    for (const s of r?.steps ?? []) {
      // A node may run several times (one per event reaching it): show the most telling status.
      const prev = out[s.nodeId];
      if (!prev || s.status === "failed" || (prev === "succeeded" && s.status !== "skipped")) out[s.nodeId] = s.status;
    }
    return out;
  }, [r?.steps]);
  const nodes = useMemo(() => flow.nodes.map((n) => ({ ...n, selected: n.id === selectedNode, draggable: false })), [flow.nodes, selectedNode]);
  const edges = useMemo(
    () => flow.edges.map((e) => ({ ...e, animated: statuses[e.source] === "succeeded" && LIVE.has(statuses[e.target] ?? "") })),
    [flow.edges, statuses],
  );

  // A poll that failed (the server restarting) keeps the run on screen, marked as possibly out of date.
  if (run.isError && !run.data) return <LoadError message={run.error.message} backHref={`/w/${workspaceId}/runs`} backLabel="Back to runs" />;
  if (!r) return <p className="page text-sm text-muted">Loading run…</p>;
  const steps = r.steps.filter((s) => s.nodeId === (selectedNode ?? r.error?.nodeId ?? r.steps[r.steps.length - 1]?.nodeId));
  const focusNode = selectedNode ?? r.error?.nodeId ?? r.steps[r.steps.length - 1]?.nodeId ?? null;
  return (
    // Narrow screens: under the shell's bar, the canvas on top and the step details below it (not beside).
    <div className="flex h-screen flex-col max-md:h-[calc(100dvh-var(--shell-bar-h))]">
      <header className="flex flex-wrap items-center gap-3 border-b border-border bg-surface px-4 py-2.5">
        <Link href={`/w/${workspaceId}/runs?automationId=${r.automationId}`} className="btn btn-ghost btn-sm" aria-label="Back to runs">
          <ArrowLeft size={16} />
        </Link>
        <div className="min-w-0">
          <h1 className="truncate text-base">
            <Link href={`/w/${workspaceId}/automations/${r.automationId}`} className="hover:underline">
              {automation.data?.name ?? "Automation"}
            </Link>
            <span className="ml-2 font-mono text-xs font-normal text-muted">
              run {r.id} · v{r.version}
            </span>
          </h1>
          <p className="text-xs text-muted" data-testid="run-timing">
            Started <RunStarted run={r} /> · worked {formatMs(r.timing.workMs)}
            <RunWaits timing={r.timing} />
            {r.retryOf && (
              <>
                {" "}
                · retry of{" "}
                <Link className="underline" href={`/w/${workspaceId}/runs/${r.retryOf}`} data-testid="retry-of">
                  {r.retryOf}
                </Link>
              </>
            )}
          </p>
        </div>
        <RunStatusBadge status={r.status} />
        {r.mode === "test" && (
          <span
            className="badge gap-1 border-violet-200 bg-violet-50 text-violet-800"
            data-testid="test-run-badge"
            title="Started from the editor at one node; not a production run"
          >
            <FlaskConical size={12} aria-hidden /> Test {r.test?.single ? "of one step" : "from a node on"}
          </span>
        )}
        <div className="ml-auto flex gap-1.5">
          {LIVE.has(r.status) && (
            <button className="btn btn-sm" data-testid="cancel-run" onClick={() => setConfirmCancel(true)}>
              <Ban size={13} aria-hidden /> Cancel run
            </button>
          )}
          <RetryActions workspaceId={workspaceId} run={r} currentVersion={automation.data?.version} />
        </div>
      </header>
      <Dialog open={confirmCancel && LIVE.has(r.status)} onClose={() => setConfirmCancel(false)} title="Cancel this run?">
        <p className="text-sm">Its steps that have not finished will not run. A cancelled run can be retried later.</p>
        <div className="mt-4 flex justify-end gap-2">
          <button className="btn" onClick={() => setConfirmCancel(false)}>
            Keep running
          </button>
          <button
            className="btn btn-danger"
            data-testid="confirm-cancel-run"
            disabled={cancel.isPending}
            onClick={async () => {
              try {
                await cancel.mutateAsync({ workspaceId, runId });
                setConfirmCancel(false);
                toast.success("Run cancelled");
                qc.invalidateQueries({ queryKey: trpc.runs.get.queryKey() });
              } catch (e) {
                toast.error((e as Error).message);
              }
            }}
          >
            Cancel run
          </button>
        </div>
      </Dialog>
      {run.isError && (
        <p role="status" className="border-b border-amber-200 bg-amber-50 px-4 py-1.5 text-xs text-amber-900" data-testid="run-stale">
          Lost contact with the server ({run.error.message}): this is the run as last seen. Still trying…
        </p>
      )}
      {r.error && (
        <div role="alert" className="flex flex-wrap items-start gap-x-3 gap-y-1 border-b border-red-200 bg-red-50 px-4 py-2 text-sm text-danger">
          {/* At least 16rem for the message: narrower, the editor link goes under it (a phone had the
              message broken into a column a few letters wide beside the link). */}
          <span className="min-w-0 flex-[1_1_16rem] break-words" data-testid="run-error">
            {r.error.message}
          </span>
          {/* Where the fix is made: the failing node's settings in the editor (its current version). */}
          {r.error.nodeId && automation.data && (
            <Link
              href={`/w/${workspaceId}/automations/${r.automationId}?node=${encodeURIComponent(r.error.nodeId)}`}
              className="btn btn-sm shrink-0"
              data-testid="fix-in-editor"
            >
              <Pencil size={13} aria-hidden /> Open {r.steps.find((s) => s.nodeId === r.error?.nodeId)?.name ?? "the node"} in the editor
            </Link>
          )}
        </div>
      )}
      <div className="flex min-h-0 flex-1 max-md:flex-col">
        <div className="relative min-w-0 flex-1 max-md:min-h-56 max-md:flex-[0_0_40%]" data-testid="run-canvas">
          <CatalogProvider integrations={(catalog.data ?? []) as CatalogIntegration[]}>
            <CanvasModeContext.Provider value={{ mode: "run", statuses }}>
              <ReactFlowProvider>
                <ReactFlow
                  nodes={nodes}
                  edges={edges}
                  nodeTypes={nodeTypes}
                  nodesDraggable={false}
                  nodesConnectable={false}
                  onNodeClick={(_, n) => setSelectedNode(n.id)}
                  // Enter or Space on a focused node selects it (React Flow's keyboard selection): show its step too.
                  onNodesChange={(changes) => {
                    const picked = changes.find((c) => c.type === "select" && c.selected);
                    if (picked && "id" in picked) setSelectedNode(picked.id);
                  }}
                  onPaneClick={() => setSelectedNode(null)}
                  fitView
                  fitViewOptions={{ maxZoom: 1.1, padding: 0.25 }}
                  proOptions={{ hideAttribution: true }}
                  className="bg-canvas"
                >
                  <Background variant={BackgroundVariant.Dots} gap={18} size={1.2} color="#d4d4d8" />
                  <Controls showInteractive={false} position="bottom-left" />
                </ReactFlow>
              </ReactFlowProvider>
            </CanvasModeContext.Provider>
          </CatalogProvider>
        </div>
        <aside
          aria-label="Step details"
          className="w-[420px] shrink-0 overflow-y-auto border-l border-border bg-surface p-4 max-md:min-h-0 max-md:w-full max-md:flex-1 max-md:border-t max-md:border-l-0"
          data-testid="step-panel"
        >
          {focusNode && steps.length ? (
            steps.map((s) => (
              <StepDetails key={s.id} step={s} workspaceId={workspaceId} expressionBase={s.nodeId === r.trigger.nodeId ? "$trigger" : undefined} />
            ))
          ) : (
            <div className="space-y-3">
              <p className="text-sm text-muted">
                {focusNode ? "This node did not run in this run." : "Select a node to see its inputs, output, attempts and logs."}
              </p>
              {r.event && (
                <StepDetails
                  expressionBase="$trigger"
                  step={{
                    id: "event",
                    nodeId: r.trigger.nodeId,
                    name: "trigger event",
                    key: "",
                    status: "succeeded",
                    input: undefined,
                    output: r.event,
                    attempts: [],
                    logs: [],
                    error: null,
                    startedAt: null,
                    finishedAt: null,
                  }}
                />
              )}
            </div>
          )}
        </aside>
      </div>
    </div>
  );
}
