"use client";
/** Side panel for the selected node: Settings (generated form), Trigger (URL, snippets, events), Docs. */
import { BookOpen, FlaskConical, Settings2, Webhook, X } from "lucide-react";
import { useState, type ReactNode } from "react";
import { useCatalog } from "../catalog-context";
import { IntegrationIcon } from "../integration-icon";
import type { FlowNode, FlowNodeData } from "../types";
import { DocsTab } from "./docs-tab";
import { NodeSettings, type NodeSettingsProps } from "./node-settings";
import { TestTab, type TestTabProps } from "./test-tab";
import { TriggerPanel, type TriggerPanelProps } from "./trigger-panel";

export interface ConfigPanelProps extends Omit<NodeSettingsProps, "node" | "unit"> {
  node: FlowNode & { data: FlowNodeData };
  onClose: () => void;
  trigger: Omit<TriggerPanelProps, "node" | "unit">;
  test: TestTabProps;
}

type Tab = "settings" | "trigger" | "test" | "docs";

export function ConfigPanel({ node, onClose, trigger, test, ...rest }: ConfigPanelProps) {
  const { byKey } = useCatalog();
  const unit = byKey.get(node.data.key);
  const isTrigger = node.type === "trigger";
  const [tab, setTab] = useState<Tab>("settings");
  const tabs: Array<{ id: Tab; label: string; icon: ReactNode }> = [
    { id: "settings", label: "Settings", icon: <Settings2 size={13} aria-hidden /> },
    ...(isTrigger ? [{ id: "trigger" as Tab, label: "Trigger", icon: <Webhook size={13} aria-hidden /> }] : []),
    { id: "test", label: node.data.pinned ? "Test · pinned" : "Test", icon: <FlaskConical size={13} aria-hidden /> },
    { id: "docs", label: "Docs", icon: <BookOpen size={13} aria-hidden /> },
  ];
  const active = tabs.some((t) => t.id === tab) ? tab : "settings";
  return (
    <aside
      aria-label={`Configure ${node.data.name}`}
      data-canvas-keys="local"
      data-testid="config-panel"
      className="flex h-full w-[380px] shrink-0 flex-col border-l border-border bg-surface"
    >
      <header className="flex items-start gap-3 border-b border-border px-4 py-3">
        <IntegrationIcon integration={unit?.integration.key ?? "core"} icon={unit?.integration.icon} unitKey={node.data.key} size={18} />
        <div className="min-w-0 flex-1">
          <h2 className="truncate">{unit?.title ?? node.data.key}</h2>
          <p className="line-clamp-2 text-xs text-muted">{unit?.description ?? "This component is not in the catalog."}</p>
        </div>
        <button type="button" className="btn btn-ghost btn-sm" aria-label="Close panel" onClick={onClose}>
          <X size={16} />
        </button>
      </header>
      <div role="tablist" aria-label="Node panel" className="flex gap-1 border-b border-border px-3">
        {tabs.map((t) => (
          <button
            key={t.id}
            role="tab"
            type="button"
            id={`tab-${t.id}`}
            aria-selected={active === t.id}
            aria-controls={`panel-${t.id}`}
            data-testid={`panel-tab-${t.id}`}
            onClick={() => setTab(t.id)}
            className={`-mb-px inline-flex items-center gap-1.5 border-b-2 px-2.5 py-2 text-xs font-medium ${active === t.id ? "border-accent text-accent-strong" : "border-transparent text-muted hover:text-ink"}`}
          >
            {t.icon}
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${active}`} aria-labelledby={`tab-${active}`} className="flex-1 overflow-y-auto px-4 py-4">
        {active === "settings" && <NodeSettings node={node} unit={unit} {...rest} />}
        {active === "trigger" && unit && <TriggerPanel node={node} unit={unit} {...trigger} />}
        {active === "test" && <TestTab key={node.id} node={node} unit={unit} readOnly={rest.readOnly} {...test} />}
        {active === "docs" && <DocsTab unit={unit} />}
      </div>
    </aside>
  );
}
