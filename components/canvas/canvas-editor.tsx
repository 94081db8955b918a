"use client";
/** The automation editor: toolbar, palette, canvas and node panel; loads/saves through tRPC. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ReactFlowProvider, useReactFlow } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { useRouter } from "next/navigation";
import { useShallow } from "zustand/react/shallow";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { toast } from "sonner";
import { useTRPC } from "@/components/providers/trpc-provider";
import { ConnectionDialog } from "@/components/connections/connection-dialog";
import { SiteChooser } from "@/components/connections/site-chooser";
import { CanvasFlow } from "./canvas-flow";
import { useCanvasMenus, focusedNodeId } from "./canvas-menus";
import { useCanvasStore } from "./canvas-store";
import { ConnectDialog } from "./connect-dialog";
import { useNodeClipboard } from "./use-node-clipboard";
import { CatalogProvider, useCatalog } from "./catalog-context";
import { ConfigPanel } from "./config-panel/config-panel";
import type { SampleData } from "./config-panel/use-expression-env";
import type { TriggerEventSummary } from "./config-panel/trigger-panel";
import { EditorToolbar } from "./editor-toolbar";
import { BuildingBlocks } from "./palette/building-blocks";
import { PaletteDrawer } from "./palette/palette-drawer";
import { RunDialog } from "./run-dialog";
import { ShortcutsDialog } from "./shortcuts-dialog";
import { isUnitNode, isWarning, type CatalogIntegration, type FlowNode, type FlowNodeData, type GraphDoc } from "./types";
import { revealNode, useAddUnit } from "./use-add-unit";
import { useFittedView } from "./use-fitted-view";
import { useRunFrom } from "./use-run-from";
import { useNarrow } from "./use-narrow";
import { problemsFromError, problemsFromList } from "./use-trpc-problems";
import { useEditorShortcuts } from "./use-editor-shortcuts";
import { suspendLeaveGuard, useLeaveGuard } from "./use-leave-guard";
import { VersionsDrawer } from "./versions-drawer";
import { ManagedInGitBanner } from "@/components/automations/managed-in-git-banner";

const draftKey = (automationId: string) => `conveyor:draft:${automationId}`;

interface OAuthDraft {
  version: number;
  name: string;
  graph: GraphDoc;
  nodeId: string | null;
}

export function CanvasEditor({ workspaceId, automationId }: { workspaceId: string; automationId: string }) {
  const trpc = useTRPC();
  const catalog = useQuery(trpc.catalog.list.queryOptions({ workspaceId }));
  // Start the automation and connections requests now rather than after the catalog (no waterfall).
  useQuery(trpc.automations.get.queryOptions({ workspaceId, automationId }));
  useQuery(trpc.connections.list.queryOptions({ workspaceId }));
  if (catalog.isError) return <p className="page text-danger">Could not load the catalog: {catalog.error.message}</p>;
  if (!catalog.data) return <EditorSkeleton />;
  return (
    <CatalogProvider integrations={catalog.data as CatalogIntegration[]}>
      <ReactFlowProvider>
        <EditorBody workspaceId={workspaceId} automationId={automationId} />
      </ReactFlowProvider>
    </CatalogProvider>
  );
}

/** The selected node when exactly one unit node is selected: its id, type and data (stable across drag frames). */
function selectedUnit(nodes: FlowNode[]): { id: string | null; type: string | null; data: FlowNodeData | null } {
  let one: FlowNode | null = null;
  for (const n of nodes) {
    if (!n.selected) continue;
    if (one) return { id: null, type: null, data: null };
    one = n;
  }
  return one && isUnitNode(one) ? { id: one.id, type: one.type ?? null, data: one.data as FlowNodeData } : { id: null, type: null, data: null };
}

function EditorSkeleton() {
  return <div className="flex h-screen items-center justify-center text-sm text-muted">Loading editor…</div>;
}

function EditorBody({ workspaceId, automationId }: { workspaceId: string; automationId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const router = useRouter();
  const { integrations, kindOf } = useCatalog();
  const flow = useReactFlow();
  const store = useCanvasStore;
  // Not the node list itself: that changes on every drag frame and every measurement, and this
  // component renders the whole editor. Only what it shows is selected (docs/editor-bench.md).
  const selectedParts = useCanvasStore(useShallow((s) => selectedUnit(s.nodes)));
  const empty = useCanvasStore((s) => s.nodes.length === 0);
  const manualTriggerId = useCanvasStore((s) => s.nodes.find((n) => isUnitNode(n) && (n.data as FlowNodeData).key === "core.manual")?.id ?? null);
  const graphDirty = useCanvasStore((s) => s.dirty);
  const problems = useCanvasStore((s) => s.problems);

  const ids = useMemo(() => ({ workspaceId, automationId }), [workspaceId, automationId]);
  const automation = useQuery(trpc.automations.get.queryOptions(ids));
  const connections = useQuery(trpc.connections.list.queryOptions({ workspaceId }));
  const me = useQuery(trpc.me.get.queryOptions());
  const readOnly = me.data ? !me.data.can.editAutomations : false;
  const canRun = me.data ? me.data.can.runAutomations : false;

  const [name, setName] = useState("");
  const [metaDirty, setMetaDirty] = useState(false);
  const [siteFor, setSiteFor] = useState<string | null>(null);
  const loadedVersion = useRef<string | null>(null);
  const [canvasEl, setCanvasEl] = useState<HTMLDivElement | null>(null);
  const view = useFittedView(canvasEl);
  const narrow = useNarrow();
  useEffect(() => {
    const a = automation.data;
    if (!a) return;
    const stamp = `${a.id}@${a.version}`;
    if (loadedVersion.current === stamp) return;
    // Never clobber unsaved edits with a background refetch.
    if (loadedVersion.current && store.getState().dirty) return;
    loadedVersion.current = stamp;
    store.getState().load(a.graph, kindOf);
    // A draft reopens with its problems marked.
    store.getState().setProblems(problemsFromList(a.problems ?? [], a.graph));
    setName(a.name);
    setMetaDirty(false);
    restoreOAuthDraft(a.id, a.version, kindOf, setName, setSiteFor);
    // A (re)opened automation is shown whole, whatever the previous one's view was.
    void view.fit(0);
  }, [automation.data, kindOf, store, view]);
  const dirty = graphDirty || metaDirty;
  useLeaveGuard(dirty);

  // ---- save (a disabled automation saves as a draft with its problems; an enabled one must have none)
  const save = useMutation(trpc.automations.save.mutationOptions());
  const doSave = useCallback(
    async function saveNow(opts: { asDraft?: boolean } = {}): Promise<void> {
      const a = automation.data;
      if (!a || readOnly) return;
      const graph = store.getState().toDocument();
      const enabled = opts.asDraft ? false : a.enabled;
      try {
        const saved = await save.mutateAsync({
          workspaceId,
          automationId,
          document: { name: name.trim() || a.name, description: a.description, enabled, concurrency: a.concurrency, graph },
        });
        loadedVersion.current = `${saved.id}@${saved.version}`;
        store.getState().markSaved();
        const list = problemsFromList(saved.problems ?? [], graph);
        store.getState().setProblems(list);
        setMetaDirty(false);
        qc.setQueryData(trpc.automations.get.queryKey(ids), saved);
        qc.invalidateQueries({ queryKey: trpc.automations.triggerInfo.queryKey() });
        const errors = list.filter((p) => !isWarning(p)).length;
        const warnings = list.length - errors;
        if (errors) toast.warning(`Saved as a draft · version ${saved.version}. ${errors} problem${errors === 1 ? "" : "s"} to fix before it can be enabled.`);
        else toast.success(`Saved · version ${saved.version}${warnings ? ` · ${warnings} warning${warnings === 1 ? "" : "s"}` : ""}`);
      } catch (err) {
        const list = problemsFromError(err, graph);
        store.getState().setProblems(list);
        if (list.length) {
          toast.error(`Not saved: an enabled automation must have no problems (${list.length} marked on the nodes).`, {
            action: { label: "Disable and save as draft", onClick: () => void saveNow({ asDraft: true }) },
            duration: 10_000,
          });
          const first = list.find((p) => p.nodeId);
          if (first?.nodeId) store.getState().select([first.nodeId]);
        } else toast.error(`Not saved: ${(err as Error).message}`);
      }
    },
    [automation.data, readOnly, save, workspaceId, automationId, name, store, qc, trpc, ids],
  );

  // ---- test runs use the saved version: save first when there are changes
  const ensureSaved = useCallback(async () => {
    if (!readOnly && (store.getState().dirty || metaDirty)) await doSave();
    return !store.getState().dirty;
  }, [readOnly, store, metaDirty, doSave]);
  const runFrom = useRunFrom(workspaceId, automationId, ensureSaved);

  // ---- enable / disable (applies to the saved automation right away)
  const patch = useMutation(trpc.automations.patch.mutationOptions());
  const onEnabled = async (enabled: boolean) => {
    if (dirty) return toast.error("Save your changes first, then enable.");
    try {
      const a = await patch.mutateAsync({ workspaceId, automationId, patch: { enabled } });
      qc.setQueryData(trpc.automations.get.queryKey(ids), a);
      qc.invalidateQueries({ queryKey: trpc.automations.triggerInfo.queryKey() });
      toast.success(enabled ? "Enabled: triggers are live." : "Disabled.");
    } catch (err) {
      store.getState().setProblems(problemsFromError(err, store.getState().toDocument()));
      toast.error((err as Error).message);
    }
  };

  // ---- adding nodes (click: after the selected node, connected; drop: where dropped)
  const addUnit = useAddUnit(readOnly, view, connections.data);
  const [paletteOpen, setPaletteOpen] = useState(false);
  const addNoteInView = () => {
    const c = flow.getViewport();
    store.getState().addNote({ x: -c.x / c.zoom + 80, y: -c.y / c.zoom + 80 });
  };

  const { copy, paste } = useNodeClipboard(readOnly);

  // ---- panels and dialogs
  const [helpOpen, setHelpOpen] = useState(false);
  const [runOpen, setRunOpen] = useState(false);
  const [historyOpen, setHistoryOpen] = useState(false);
  const [connectFor, setConnectFor] = useState<string | null>(null);
  const [connectFrom, setConnectFrom] = useState<string | null>(null);
  const menus = useCanvasMenus(
    useMemo(
      () => ({
        readOnly,
        copy,
        paste,
        connectFrom: setConnectFrom,
        runFrom: canRun ? (id: string) => void runFrom(id) : undefined,
        fit: () => void view.fit(),
        tidy: () =>
          void store
            .getState()
            .tidyUp()
            .then(() => setTimeout(() => void view.fit(), 30)),
      }),
      [readOnly, canRun, runFrom, copy, paste, view, store],
    ),
  );
  const { id: selId, type: selType, data: selData } = selectedParts;
  const selected = useMemo(
    () => (selId && selData ? ({ id: selId, type: selType, data: selData, position: { x: 0, y: 0 } } as FlowNode & { data: FlowNodeData }) : null),
    [selId, selType, selData],
  );

  // Opening the panel narrows the canvas: keep the selected node in view.
  const selectedId = selected?.id;
  useEffect(() => {
    // A fitted view is fitted again to the narrower canvas instead (use-fitted-view.ts).
    if (!selectedId || view.isFitted()) return;
    const t = setTimeout(() => revealNode(flow, selectedId), 80);
    return () => clearTimeout(t);
  }, [selectedId, flow, view]);

  const handlers = useMemo(
    () => ({
      save: () => doSave(),
      undo: () => !readOnly && store.getState().undo(),
      redo: () => !readOnly && store.getState().redo(),
      copy,
      paste,
      duplicate: () => !readOnly && store.getState().duplicateSelected(),
      remove: () => !readOnly && store.getState().deleteSelected(),
      selectAll: () => store.getState().select(store.getState().nodes.map((n) => n.id)),
      help: () => setHelpOpen(true),
      fit: () => void view.fit(),
      tidy: async () => {
        await store.getState().tidyUp();
        setTimeout(() => void view.fit(), 30);
      },
      escape: () => store.getState().select([]),
      disable: () => {
        if (readOnly) return;
        const id = focusedNodeId();
        const sel = store
          .getState()
          .nodes.filter((n) => n.selected)
          .map((n) => n.id);
        store.getState().toggleDisabled(id && !sel.includes(id) ? [id] : sel);
      },
      connect: () => {
        const id = focusedNodeId();
        if (!readOnly && id) setConnectFrom(id);
      },
      menu: menus.openFromKeyboard,
    }),
    [doSave, readOnly, store, copy, paste, view, menus.openFromKeyboard],
  );
  useEditorShortcuts(handlers);

  // ---- runs: last run as expression sample; manual start
  const lastRun = useLastRunSample(workspaceId, automationId);
  const [testEvent, setTestEvent] = useState<SampleData | undefined>();
  const sample = testEvent ?? lastRun;
  const start = useMutation(trpc.runs.start.mutationOptions());

  const runNow = async (args: { nodeId?: string; eventId?: string; payload?: unknown }) => {
    if (dirty) return toast.error("Save first: runs use the saved version.");
    try {
      const run = await start.mutateAsync({ workspaceId, automationId, ...args });
      router.push(`/w/${workspaceId}/runs/${run.id}`);
    } catch (err) {
      toast.error((err as Error).message);
    }
  };

  // ---- trigger info for the selected trigger node
  const [listening, setListening] = useState(false);
  const triggerNodeId = selected?.type === "trigger" ? selected.id : null;
  const triggerInfo = useQuery({
    ...trpc.automations.triggerInfo.queryOptions({ workspaceId, automationId, nodeId: triggerNodeId ?? "" }),
    enabled: !!triggerNodeId,
    refetchInterval: listening ? 1500 : false,
  });
  const seenEvents = useRef<string | null>(null);
  useEffect(() => {
    const latest = triggerInfo.data?.events[0]?.id ?? null;
    if (!listening) {
      seenEvents.current = latest;
      return;
    }
    if (latest && latest !== seenEvents.current) {
      const ev = triggerInfo.data!.events[0];
      setTestEvent({ trigger: ev.envelope, steps: {}, source: "test event" });
      setListening(false);
      toast.success("Test event received: its fields are now offered in expressions.");
    }
  }, [triggerInfo.data, listening]);

  const resourceClient = useQueryClient();
  const loadResources = useCallback(
    (args: { connectionId: string; type: string; config: Record<string, unknown>; search?: string; cursor?: string }) =>
      resourceClient.fetchQuery(trpc.resources.list.queryOptions({ workspaceId, ...args })),
    [resourceClient, trpc, workspaceId],
  );

  if (automation.isError) return <p className="page text-danger">{automation.error.message}</p>;
  if (!automation.data) return <EditorSkeleton />;
  const a = automation.data;
  return (
    // Narrow screens: the shell's top bar takes --shell-bar-h; the editor fills the rest (no page scroll).
    <div className="flex h-screen flex-col max-md:h-[calc(100dvh-var(--shell-bar-h))]">
      <EditorToolbar
        backHref={`/w/${workspaceId}/automations`}
        runsHref={`/w/${workspaceId}/runs?automationId=${automationId}`}
        name={name}
        onName={(v) => {
          setName(v);
          setMetaDirty(true);
        }}
        enabled={a.enabled}
        onEnabled={onEnabled}
        dirty={dirty}
        saving={save.isPending}
        version={a.version}
        problems={problems.length}
        canRun={!!manualTriggerId}
        onRun={() => (dirty ? toast.error("Save first: runs use the saved version.") : setRunOpen(true))}
        onSave={() => doSave()}
        onTidy={handlers.tidy}
        onHistory={() => setHistoryOpen(true)}
        onHelp={() => setHelpOpen(true)}
        onOpenPalette={narrow ? () => setPaletteOpen(true) : undefined}
        readOnly={readOnly}
      />
      <ManagedInGitBanner automationId={a.id} source={a.source} version={a.version} readOnly={readOnly} />
      <div className="flex min-h-0 flex-1">
        {/* max-md:hidden too: before hydration settles, `narrow` is not known yet. */}
        {!readOnly && !narrow && <BuildingBlocks className="h-full w-60 max-md:hidden" onAdd={(u) => addUnit(u)} onAddNote={addNoteInView} />}
        {!readOnly && narrow && <PaletteDrawer open={paletteOpen} onClose={() => setPaletteOpen(false)} onAdd={(u) => addUnit(u)} onAddNote={addNoteInView} />}
        <div ref={setCanvasEl} className="relative min-w-0 flex-1" data-testid="canvas">
          <CanvasFlow
            onAddUnit={addUnit}
            readOnly={readOnly}
            onNodeMenu={menus.openForNodes}
            onPaneMenu={menus.openForPane}
            onUserMove={view.onUserMove}
            onFitted={view.onFitted}
          />
          {menus.element}
          {empty && (
            <div className="pointer-events-none absolute inset-0 flex items-center justify-center p-4">
              <div className="rounded-lg border border-dashed border-zinc-300 bg-surface/80 px-6 py-5 text-center">
                <p className="font-medium">Start with a trigger</p>
                <p className="text-xs text-muted">{narrow ? "Press + to add one." : "Drag one from the left, or press it to add. Press ? for shortcuts."}</p>
              </div>
            </div>
          )}
        </div>
        {selected && (
          // Narrow screens: the panel is a full-width sheet over the canvas, under the toolbar (Save stays reachable).
          <div
            className={
              narrow
                ? "fixed inset-x-0 bottom-0 top-[calc(var(--shell-bar-h)+3.25rem)] z-30 flex [&>aside]:w-full [&>aside]:border-l-0 [&>aside]:border-t"
                : "contents"
            }
          >
            <ConfigPanel
              key={selected.id}
              node={selected}
              onClose={() => store.getState().select([])}
              connections={(connections.data ?? []) as Array<{ id: string; name: string; integration: string; status: string }>}
              onNewConnection={setConnectFor}
              loadResources={loadResources}
              lastRun={sample}
              readOnly={readOnly}
              trigger={{
                info: triggerInfo.data ?? null,
                saved: !!a.triggers.find((t) => t.nodeId === selected.id),
                dirty,
                listening,
                onListen: setListening,
                onRunNow: (args) => runNow({ nodeId: selected.id, ...args }),
                onUseEvent: (e: TriggerEventSummary) => setTestEvent({ trigger: e.envelope, steps: {}, source: "chosen event" }),
              }}
              test={{ workspaceId, automationId, ensureSaved, runFrom: (id) => void runFrom(id), lastRun, canRun }}
            />
          </div>
        )}
      </div>
      <ShortcutsDialog open={helpOpen} onClose={() => setHelpOpen(false)} />
      <ConnectDialog nodeId={connectFrom} onClose={() => setConnectFrom(null)} />
      <RunDialog
        open={runOpen}
        busy={start.isPending}
        onClose={() => setRunOpen(false)}
        onStart={(payload) => runNow({ nodeId: manualTriggerId ?? undefined, payload })}
      />
      <VersionsDrawer
        open={historyOpen}
        onClose={() => setHistoryOpen(false)}
        workspaceId={workspaceId}
        automationId={automationId}
        currentVersion={a.version}
        dirty={dirty}
        onRestored={(restored) => {
          loadedVersion.current = `${restored.id}@${restored.version}`;
          store.getState().load(restored.graph, kindOf);
          void view.fit();
          setName(restored.name);
          setMetaDirty(false);
          qc.setQueryData(trpc.automations.get.queryKey(ids), restored);
        }}
      />
      <ConnectionDialog
        workspaceId={workspaceId}
        integration={integrations.find((i) => i.key === connectFor) ?? null}
        returnTo={typeof window !== "undefined" ? window.location.pathname : undefined}
        onClose={() => setConnectFor(null)}
        onCreated={(c) => {
          qc.invalidateQueries({ queryKey: trpc.connections.list.queryKey() });
          if (selected) store.getState().setConnection(selected.id, c.id);
        }}
        beforeRedirect={() => {
          // OAuth leaves the page: keep the unsaved graph and come back to it.
          const draft: OAuthDraft = { version: a.version, name, graph: store.getState().toDocument(), nodeId: selected?.id ?? null };
          sessionStorage.setItem(draftKey(automationId), JSON.stringify(draft));
          suspendLeaveGuard();
        }}
      />
      <SiteChooser
        workspaceId={workspaceId}
        connectionId={siteFor}
        onClose={() => setSiteFor(null)}
        onChosen={() => qc.invalidateQueries({ queryKey: trpc.connections.list.queryKey() })}
      />
    </div>
  );
}

/** Back from an OAuth consent: restore the unsaved graph and give the new connection to the node that asked. */
function restoreOAuthDraft(
  automationId: string,
  version: number,
  kindOf: (key: string) => "trigger" | "component",
  setName: (v: string) => void,
  setSiteFor: (id: string | null) => void,
) {
  const params = new URLSearchParams(window.location.search);
  const connected = params.get("connected");
  const chooseSite = params.get("chooseSite");
  const error = params.get("oauthError");
  if (!connected && !chooseSite && !error) return;
  window.history.replaceState(null, "", window.location.pathname);
  const raw = sessionStorage.getItem(draftKey(automationId));
  sessionStorage.removeItem(draftKey(automationId));
  if (error) toast.error(`Authorisation failed: ${error}`);
  const connectionId = connected ?? chooseSite;
  if (raw) {
    const draft = JSON.parse(raw) as OAuthDraft;
    if (draft.version === version) {
      const s = useCanvasStore.getState();
      s.load(draft.graph, kindOf);
      useCanvasStore.setState({ dirty: true });
      setName(draft.name);
      if (draft.nodeId && connectionId && !error) {
        s.setConnection(draft.nodeId, connectionId);
        s.select([draft.nodeId]);
      }
    }
  }
  if (chooseSite) setSiteFor(chooseSite);
  else if (connected) toast.success("Connected. Your unsaved changes are back; save when ready.");
}

/** The latest run's envelopes (trigger + steps by name), offered to autocomplete and previews. */
function useLastRunSample(workspaceId: string, automationId: string): SampleData | undefined {
  const trpc = useTRPC();
  const list = useQuery(trpc.runs.list.queryOptions({ workspaceId, automationId, limit: 1 }));
  const runId = list.data?.data[0]?.id;
  const detail = useQuery({ ...trpc.runs.get.queryOptions({ workspaceId, runId: runId ?? "" }), enabled: !!runId });
  return useMemo(() => {
    const d = detail.data;
    if (!d) return undefined;
    const steps: Record<string, unknown> = {};
    for (const s of d.steps) if (s.output) steps[s.name] = s.output;
    return { trigger: d.event ?? undefined, steps, source: "last run", runId: d.id };
  }, [detail.data]);
}
