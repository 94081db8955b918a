"use client";
/** metrics.onAlert: the alertmanager.yml receiver snippet (from the trigger's setupInstructions) with copy. */
import { CopyButton } from "../../copy-button";
import type { ExtraProps } from "./index";

export function MetricsOnAlertExtra({ url, instructions }: ExtraProps) {
  const snippets = instructions.length
    ? instructions
    : [
        {
          title: "alertmanager.yml",
          language: "yaml",
          text: `receivers:\n  - name: conveyor\n    webhook_configs:\n      - url: ${url}\n        send_resolved: true\n`,
        },
      ];
  return (
    <>
      {snippets.map((s) => (
        <section key={s.title} aria-label={s.title}>
          <div className="mb-1 flex items-center justify-between">
            <h3 className="text-xs font-semibold uppercase tracking-wide text-muted">{s.title}</h3>
            <CopyButton text={s.text} label={`Copy ${s.title}`} testId="copy-alertmanager-snippet" />
          </div>
          <pre className="max-h-72 overflow-auto rounded-md bg-zinc-950 p-3 text-[11px] leading-relaxed text-zinc-100" data-testid="alertmanager-snippet">
            {s.text}
          </pre>
        </section>
      ))}
      <p className="help">Add the receiver to Alertmanager and route the alerts you want to it; each matching alert starts one run.</p>
    </>
  );
}
