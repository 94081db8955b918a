"use client";
/** The automation editor: toolbar, palette, canvas and node panel; loads/saves through tRPC. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ReactFlowProvider, useReactFlow } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { useRouter } from "next/navigation";
import { useShallow } from "zustand/react/shallow";
import { useCallback, useEffect, useMemo, useState } from "react";
import { toast } from "sonner";
import { useTRPC } from "@/components/providers/trpc-provider";
import { startTypeAhead } from "./type-ahead";
import { EditorSkeleton, EmptyCanvasHint } from "./editor-placeholders";
import { useEditorDocument } from "./use-editor-document";
import { CanvasFlow } from "./canvas-flow";
import { useCanvasMenus, focusedNodeId } from "./canvas-menus";
import { useCanvasStore } from "./canvas-store";
import { selectedUnit } from "./graph-utils";
import { useNodeClipboard, warnPinnedLeftOut } from "./use-node-clipboard";
import { CatalogProvider, useCatalog } from "./catalog-context";
import { EditorToolbar } from "./editor-toolbar";
import { BuildingBlocks } from "./palette/building-blocks";
import { PaletteDrawer } from "./palette/palette-drawer";
import { isUnitNode, type CatalogIntegration, type FlowNode, type FlowNodeData } from "./types";
import { revealNode, useAddUnit } from "./use-add-unit";
import { useFittedView } from "./use-fitted-view";
import { useRunFrom } from "./use-run-from";
import { useNarrow } from "./use-narrow";
import { enableRefusedMessage, problemsFromError } from "./use-trpc-problems";
import { useEditorShortcuts } from "./use-editor-shortcuts";
import { LoadError } from "@/components/shared/load-error";
import {
  ConfigPanel,
  ConnectDialog,
  ConnectionDialog,
  RunDialog,
  ShortcutsDialog,
  SiteChooser,
  VersionsDrawer,
  preloadPanels,
  useOpenedOnce,
} from "./lazy-panels";
import { saveOAuthDraft } from "./oauth-draft";
import { LastFailureContext, useLastFailure } from "./use-last-failure";
import { useTestEvent } from "./use-test-event";
import { suspendLeaveGuard } from "./use-leave-guard";
import { ManagedInGitBanner } from "@/components/automations/managed-in-git-banner";
import { LocalDraftBanner } from "./local-draft-banner";

export function CanvasEditor({ workspaceId, automationId }: { workspaceId: string; automationId: string }) {
  const trpc = useTRPC();
  const catalog = useQuery(trpc.catalog.list.queryOptions({ workspaceId }));
  // Start the automation and connections requests now rather than after the catalog (no waterfall).
  useQuery(trpc.automations.get.queryOptions({ workspaceId, automationId }));
  useQuery(trpc.connections.list.queryOptions({ workspaceId }));
  // A failed background refetch (the server restarting) keeps what was loaded: only a first load that failed is an error page.
  if (catalog.isError && !catalog.data) return <p className="page text-danger">Could not load the catalog: {catalog.error.message}</p>;
  if (!catalog.data) return <EditorSkeleton />;
  return (
    <CatalogProvider integrations={catalog.data as CatalogIntegration[]}>
      <ReactFlowProvider>
        <EditorBody workspaceId={workspaceId} automationId={automationId} />
      </ReactFlowProvider>
    </CatalogProvider>
  );
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
  const problems = useCanvasStore((s) => s.problems);

  const ids = useMemo(() => ({ workspaceId, automationId }), [workspaceId, automationId]);
  const automation = useQuery(trpc.automations.get.queryOptions(ids));
  const connections = useQuery(trpc.connections.list.queryOptions({ workspaceId }));
  const me = useQuery(trpc.me.get.queryOptions());
  const readOnly = me.data ? !me.data.can.editAutomations : false;
  const canRun = me.data ? me.data.can.runAutomations : false;

  const [canvasEl, setCanvasEl] = useState<HTMLDivElement | null>(null);
  const view = useFittedView(canvasEl);
  const narrow = useNarrow();
  const fitAll = useCallback(() => view.fit(0), [view]);
  const { name, setName, metaDirty, setMetaDirty, siteFor, setSiteFor, dirty, localDraft, doSave, saving, showSaved } = useEditorDocument({
    workspaceId,
    automationId,
    automation: automation.data,
    readOnly,
    kindOf,
    fit: fitAll,
  });

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
      toast.error(enabled ? enableRefusedMessage(err) : (err as Error).message);
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
      duplicate: () => !readOnly && warnPinnedLeftOut(store.getState().duplicateSelected()),
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
        if (readOnly || !id) return;
        startTypeAhead();
        setConnectFrom(id);
      },
      menu: menus.openFromKeyboard,
    }),
    [doSave, readOnly, store, copy, paste, view, menus.openFromKeyboard],
  );
  useEditorShortcuts(handlers);

  // ---- runs: manual start
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

  // ---- test data for the node panel: a test event or the latest run (fetched once a node is selected)
  const everSelected = useOpenedOnce(!!selected);
  // Only a saved trigger has trigger info (asking for a new one's answers 404, an error in the console).
  const savedTrigger = selected?.type === "trigger" && automation.data?.graph.nodes.some((n) => n.id === selected.id) ? selected.id : null;
  const testData = useTestEvent(workspaceId, automationId, savedTrigger, everSelected);
  const lastFailure = useLastFailure(workspaceId, automationId);

  const resourceClient = useQueryClient();
  const loadResources = useCallback(
    (args: { connectionId: string; type: string; config: Record<string, unknown>; search?: string; cursor?: string }) =>
      resourceClient.fetchQuery(trpc.resources.list.queryOptions({ workspaceId, ...args })),
    [resourceClient, trpc, workspaceId],
  );

  // Panels and dialogs: their code is fetched when first opened (the node panel's once the canvas is up).
  const loaded = !!automation.data;
  useEffect(() => (loaded ? preloadPanels() : undefined), [loaded]);
  const helpMounted = useOpenedOnce(helpOpen);
  const connectMounted = useOpenedOnce(!!connectFrom);
  const runMounted = useOpenedOnce(runOpen);
  const historyMounted = useOpenedOnce(historyOpen);
  const connectionMounted = useOpenedOnce(!!connectFor);
  const siteMounted = useOpenedOnce(!!siteFor);

  if (automation.isError && !automation.data)
    return <LoadError message={automation.error.message} backHref={`/w/${workspaceId}/automations`} backLabel="Back to automations" />;
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
        saving={saving}
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
      {localDraft.offer && !readOnly && (
        <LocalDraftBanner draft={localDraft.offer} version={a.version} onRestore={localDraft.restore} onDiscard={localDraft.discard} />
      )}
      <div className="flex min-h-0 flex-1">
        {/* max-md:hidden too: before hydration settles, `narrow` is not known yet. */}
        {!readOnly && !narrow && <BuildingBlocks className="h-full w-60 max-md:hidden" hideable onAdd={(u) => addUnit(u)} onAddNote={addNoteInView} />}
        {!readOnly && narrow && <PaletteDrawer open={paletteOpen} onClose={() => setPaletteOpen(false)} onAdd={(u) => addUnit(u)} onAddNote={addNoteInView} />}
        <div ref={setCanvasEl} className="relative min-w-0 flex-1" data-testid="canvas">
          <LastFailureContext.Provider value={lastFailure}>
            <CanvasFlow
              onAddUnit={addUnit}
              readOnly={readOnly}
              onNodeMenu={menus.openForNodes}
              onPaneMenu={menus.openForPane}
              onUserMove={view.onUserMove}
              onFitted={view.onFitted}
            />
          </LastFailureContext.Provider>
          {menus.element}
          {empty && <EmptyCanvasHint narrow={narrow} />}
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
              lastRun={testData.sample}
              readOnly={readOnly}
              trigger={{
                info: testData.triggerInfo,
                saved: !!a.triggers.find((t) => t.nodeId === selected.id),
                dirty,
                listening: testData.listening,
                onListen: testData.setListening,
                onRunNow: (args) => runNow({ nodeId: selected.id, ...args }),
                onUseEvent: testData.chooseEvent,
              }}
              test={{ workspaceId, automationId, ensureSaved, runFrom: (id) => void runFrom(id), lastRun: testData.lastRun, canRun }}
            />
          </div>
        )}
      </div>
      {helpMounted && <ShortcutsDialog open={helpOpen} onClose={() => setHelpOpen(false)} />}
      {connectMounted && <ConnectDialog nodeId={connectFrom} onClose={() => setConnectFrom(null)} />}
      {runMounted && (
        <RunDialog
          open={runOpen}
          busy={start.isPending}
          onClose={() => setRunOpen(false)}
          onStart={(payload) => runNow({ nodeId: manualTriggerId ?? undefined, payload })}
        />
      )}
      {historyMounted && (
        <VersionsDrawer
          open={historyOpen}
          onClose={() => setHistoryOpen(false)}
          workspaceId={workspaceId}
          automationId={automationId}
          currentVersion={a.version}
          dirty={dirty}
          onRestored={(restored) => {
            showSaved(restored);
            void view.fit();
            qc.setQueryData(trpc.automations.get.queryKey(ids), restored);
          }}
        />
      )}
      {connectionMounted && (
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
            saveOAuthDraft(automationId, { version: a.version, name, graph: store.getState().toDocument(), nodeId: selected?.id ?? null });
            suspendLeaveGuard();
          }}
        />
      )}
      {siteMounted && (
        <SiteChooser
          workspaceId={workspaceId}
          connectionId={siteFor}
          onClose={() => setSiteFor(null)}
          onChosen={() => qc.invalidateQueries({ queryKey: trpc.connections.list.queryKey() })}
        />
      )}
    </div>
  );
}
