"use client";
/**
 * Trigger tab: the node's webhook URL (after save) with a copy button, integration-specific set-up
 * (e.g. the alertmanager.yml receiver), the last events received, the deliveries the URL refused, and
 * "listen for a test event".
 */
import { Play, Radio, ShieldAlert, Square } from "lucide-react";
import { CopyButton } from "../copy-button";
import type { FlowNode, FlowNodeData, PaletteUnit } from "../types";
import { hasExtra, NodeExtra } from "../nodes/extras";

export interface TriggerEventSummary {
  id: string;
  receivedAt: string;
  envelope: { type: string; timestamp: string; data?: unknown };
  runId?: string | null;
}

export interface TriggerInfo {
  url: string | null;
  instructions: Array<{ title: string; language?: string; text: string }>;
  events: TriggerEventSummary[];
  /** Deliveries the URL refused: how many, and the latest with what the sender was told. */
  refused?: { count: number; last: { at: string; status: number; code: string; detail: string } | null };
}

export interface TriggerPanelProps {
  node: FlowNode & { data: FlowNodeData };
  unit: PaletteUnit;
  info?: TriggerInfo | null;
  saved: boolean;
  dirty: boolean;
  listening: boolean;
  onListen: (on: boolean) => void;
  onRunNow?: (args: { eventId?: string; payload?: unknown }) => void;
  onUseEvent?: (event: TriggerEventSummary) => void;
}

export function TriggerPanel({ node, unit, info, saved, dirty, listening, onListen, onRunNow, onUseEvent }: TriggerPanelProps) {
  const extra = hasExtra(node.data.key);
  const webhook = unit.delivery === "webhook" || unit.delivery === "shared-webhook";
  return (
    <div className="space-y-5 text-sm">
      {webhook && (
        <section aria-labelledby="wh-title">
          <h3 id="wh-title" className="mb-1 text-xs font-semibold uppercase tracking-wide text-muted">
            Webhook URL
          </h3>
          {info?.url ? (
            <>
              <div className="flex items-center gap-1.5">
                <input
                  readOnly
                  aria-label="Webhook URL"
                  data-testid="trigger-url"
                  className="input font-mono text-xs"
                  value={info.url}
                  onFocus={(e) => e.target.select()}
                />
                <CopyButton text={info.url} label="Copy webhook URL" testId="copy-trigger-url" />
              </div>
              <p className="help">Give this URL to the sender and keep it private: it is the address events come in by (where the trigger or its connection sets a secret, senders must also prove they hold it).</p>
            </>
          ) : (
            <p className="rounded-md border border-dashed border-border px-3 py-2 text-xs text-muted" data-testid="trigger-url-pending">
              {saved && !dirty ? "Enable the automation to get a webhook URL." : "Save the automation to get this trigger's webhook URL."}
            </p>
          )}
        </section>
      )}
      {extra && info?.url && <NodeExtra nodeKey={node.data.key} url={info.url} instructions={info.instructions} />}
      {!extra &&
        info?.instructions.map((ins) => (
          <section key={ins.title}>
            <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-muted">{ins.title}</h3>
            <pre className="overflow-auto rounded-md bg-zinc-950 p-3 text-[11px] text-zinc-100">{ins.text}</pre>
          </section>
        ))}
      <section aria-labelledby="ev-title">
        <div className="mb-1 flex items-center justify-between">
          <h3 id="ev-title" className="text-xs font-semibold uppercase tracking-wide text-muted">
            Recent events
          </h3>
          <div className="flex gap-1">
            {unit.delivery === "manual" && onRunNow && (
              <button type="button" className="btn btn-sm btn-primary" onClick={() => onRunNow({})} disabled={!saved}>
                <Play size={12} aria-hidden /> Run now
              </button>
            )}
            {webhook && (
              <button
                type="button"
                className={`btn btn-sm ${listening ? "border-amber-300 bg-amber-50" : ""}`}
                onClick={() => onListen(!listening)}
                disabled={!info?.url}
                data-testid="listen-toggle"
              >
                {listening ? <Square size={12} aria-hidden /> : <Radio size={12} aria-hidden />}
                {listening ? "Stop listening" : "Listen for test event"}
              </button>
            )}
          </div>
        </div>
        {listening && (
          <p className="mb-2 flex items-center gap-2 rounded-md bg-amber-50 px-2.5 py-1.5 text-xs text-amber-800" role="status">
            <Radio size={12} className="animate-pulse" /> Waiting for the next delivery…
          </p>
        )}
        {!info?.events.length ? (
          <p className="text-xs text-muted">No events received yet.</p>
        ) : (
          <ul className="space-y-1.5">
            {info.events.slice(0, 10).map((e) => (
              <li key={e.id} className="rounded-md border border-border">
                <details>
                  <summary className="flex cursor-pointer items-center justify-between gap-2 px-2.5 py-1.5 text-xs">
                    <span className="font-mono">{e.envelope.type}</span>
                    <time className="text-muted" dateTime={e.receivedAt}>
                      {new Date(e.receivedAt).toLocaleString()}
                    </time>
                  </summary>
                  <pre className="max-h-60 overflow-auto border-t border-border bg-zinc-50 p-2 text-[11px]">{JSON.stringify(e.envelope.data, null, 2)}</pre>
                  <div className="flex gap-1 border-t border-border p-1.5">
                    {onUseEvent && (
                      <button type="button" className="btn btn-sm" onClick={() => onUseEvent(e)}>
                        Use for autocomplete
                      </button>
                    )}
                    {onRunNow && (
                      <button type="button" className="btn btn-sm" onClick={() => onRunNow({ eventId: e.id })}>
                        <Play size={12} aria-hidden /> Replay
                      </button>
                    )}
                  </div>
                </details>
              </li>
            ))}
          </ul>
        )}
        {info?.refused?.last && <RefusedDeliveries count={info.refused.count} last={info.refused.last} />}
      </section>
    </div>
  );
}

/** Why a sender's deliveries are not becoming runs: the URL answered them 4xx (wrong secret, not JSON…). */
function RefusedDeliveries({ count, last }: { count: number; last: NonNullable<NonNullable<TriggerInfo["refused"]>["last"]> }) {
  return (
    <div className="mt-2 rounded-md border border-red-200 bg-red-50 px-2.5 py-1.5 text-xs text-red-800" role="status" data-testid="refused-deliveries">
      <p className="flex items-center gap-1.5 font-medium">
        <ShieldAlert size={12} aria-hidden />
        {count === 1 ? "1 delivery refused" : `${count} deliveries refused`}
        <span className="font-normal text-red-700">
          · latest{" "}
          <time dateTime={last.at} title={last.at}>
            {new Date(last.at).toLocaleString()}
          </time>
        </span>
      </p>
      <p className="mt-0.5">
        <span className="font-mono">{last.status}</span> {last.detail}
      </p>
    </div>
  );
}
