/**
 * Docs tab: what the node does (its markdown docs rendered with react-markdown; raw HTML is never
 * rendered), its inputs (from the schema) and an example of the event it emits.
 */
import Markdown, { type Components } from "react-markdown";
import type { PaletteUnit } from "../types";
import { labelOf, orderedProperties, unwrap } from "./schema-utils";

const MD: Components = {
  p: ({ children }) => <p className="mt-2 text-zinc-700">{children}</p>,
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noreferrer noopener" className="text-accent underline">
      {children}
    </a>
  ),
  code: ({ children }) => <code className="rounded bg-zinc-100 px-1 font-mono text-[12px]">{children}</code>,
  pre: ({ children }) => <pre className="mt-2 overflow-auto rounded-md bg-zinc-50 p-2 text-[11px] [&_code]:bg-transparent [&_code]:p-0">{children}</pre>,
  ul: ({ children }) => <ul className="mt-2 list-disc space-y-0.5 pl-5 text-zinc-700">{children}</ul>,
  ol: ({ children }) => <ol className="mt-2 list-decimal space-y-0.5 pl-5 text-zinc-700">{children}</ol>,
  h1: ({ children }) => <h4 className="mt-3 font-semibold">{children}</h4>,
  h2: ({ children }) => <h4 className="mt-3 font-semibold">{children}</h4>,
  h3: ({ children }) => <h4 className="mt-3 font-semibold">{children}</h4>,
};

/** A component's markdown docs (CommonMark; HTML in the source is dropped, links open in a new tab). */
export function DocsMarkdown({ source }: { source: string }) {
  return (
    <div data-testid="unit-docs">
      <Markdown skipHtml components={MD}>
        {source}
      </Markdown>
    </div>
  );
}

export function DocsTab({ unit }: { unit?: PaletteUnit }) {
  if (!unit) return <p className="text-sm text-muted">No documentation: this key is not in the catalog.</p>;
  const props = orderedProperties(unwrap(unit.config));
  const required = new Set(unit.config.required ?? []);
  return (
    <div className="space-y-5 text-sm">
      <section>
        <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-muted">What it does</h3>
        <p>{unit.description}</p>
        {unit.docs && <DocsMarkdown source={unit.docs} />}
        <p className="mt-2 text-xs text-muted">
          Key <code className="rounded bg-zinc-100 px-1">{unit.key}</code> · emits <code className="rounded bg-zinc-100 px-1">{unit.outputType}</code>
        </p>
      </section>
      <section>
        <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-muted">Inputs</h3>
        {props.length === 0 ? (
          <p className="text-muted">None.</p>
        ) : (
          <dl className="space-y-2">
            {props.map(([k, s]) => (
              <div key={k}>
                <dt className="font-medium">
                  {labelOf(k, s)} <code className="text-xs text-muted">{k}</code>
                  {required.has(k) && <span className="ml-1 text-xs text-danger">required</span>}
                  {unwrap(s).expression && <span className="ml-1 text-xs text-accent">expression</span>}
                </dt>
                {s.description && <dd className="text-xs text-muted">{s.description}</dd>}
              </div>
            ))}
          </dl>
        )}
      </section>
      <section>
        <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-muted">Example output</h3>
        <pre className="max-h-80 overflow-auto rounded-md bg-zinc-950 p-3 text-[11px] leading-relaxed text-zinc-100">
          {JSON.stringify({ type: unit.outputType, timestamp: "2026-01-01T00:00:00.000Z", data: unit.example ?? {} }, null, 2)}
        </pre>
      </section>
    </div>
  );
}
