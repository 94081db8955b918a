/** JSON payload block with a copy button (resolved inputs are already masked by the runner). */
import { CopyButton } from "@/components/canvas/copy-button";

export function PayloadViewer({ title, value, testId }: { title: string; value: unknown; testId?: string }) {
  const text = value === undefined ? "" : JSON.stringify(value, null, 2);
  return (
    <section aria-label={title}>
      <div className="mb-1 flex items-center justify-between">
        <h3 className="text-xs font-semibold uppercase tracking-wide text-muted">{title}</h3>
        {text && <CopyButton text={text} label={`Copy ${title}`} />}
      </div>
      {value === undefined || value === null ? (
        <p className="text-xs text-muted">Nothing.</p>
      ) : (
        <pre className="max-h-80 overflow-auto rounded-md bg-zinc-950 p-3 text-[11px] leading-relaxed text-zinc-100" data-testid={testId}>
          {text}
        </pre>
      )}
    </section>
  );
}
