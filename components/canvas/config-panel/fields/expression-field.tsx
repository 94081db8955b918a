"use client";
/**
 * `{{ }}` editor: CodeMirror with autocomplete of `$trigger` / `$steps.<name>` paths and a live preview.
 * An expression that does not evaluate is not shown here but handed to `onError`, so the field shows one
 * error inline (the server's, with its position, when it has one for the same field).
 */
import { autocompletion, type CompletionContext, type CompletionResult } from "@codemirror/autocomplete";
import { EditorView } from "@codemirror/view";
import CodeMirror from "@uiw/react-codemirror";
import { useEffect, useMemo, useState } from "react";
import type { ExpressionPath } from "../expression-paths";
import { bracketEdit } from "../template-brackets";
import { useFormEnv } from "../form-context";
import { previewTemplate } from "../preview";

export function completionSource(paths: ExpressionPath[]) {
  return (ctx: CompletionContext): CompletionResult | null => {
    const word = ctx.matchBefore(/\$[A-Za-z0-9_.`[\]]*/);
    if (!word || (word.from === word.to && !ctx.explicit)) return null;
    const typed = word.text;
    const options = paths
      .filter((p) => p.path.startsWith(typed) && p.path !== typed)
      // Offer the next segment first, deeper paths after.
      .sort((a, b) => a.path.length - b.path.length)
      .slice(0, 200)
      .map((p) => ({
        label: p.path,
        detail: p.sample ? `${p.type} · ${p.sample}` : p.type,
        info: `from ${p.source}`,
        type: p.type === "object" || p.type === "array" ? "namespace" : "property",
      }));
    return { from: word.from, options, validFor: /^\$[A-Za-z0-9_.`[\]]*$/ };
  };
}

/** Pairs brackets and quotes inside `{{ }}` only: `[` typed in the template's plain text stays a lone `[`. */
const templateBrackets = EditorView.inputHandler.of((view, from, to, text) => {
  if (view.composing) return false;
  const edit = bracketEdit(view.state.doc.toString(), from, to, text);
  if (!edit) return false;
  view.dispatch({ changes: edit.insert ? { from, to, insert: edit.insert } : undefined, selection: { anchor: edit.cursor } });
  return true;
});

const theme = EditorView.theme({
  "&": { fontSize: "12px", border: "1px solid var(--color-border)", borderRadius: "6px", background: "white" },
  "&.cm-focused": { outline: "2px solid var(--color-accent)", outlineOffset: "1px" },
  ".cm-content": { fontFamily: "var(--font-mono)", padding: "6px 2px" },
  ".cm-gutters": { display: "none" },
});

export function ExpressionField({
  id,
  value,
  onChange,
  label,
  describedBy,
  autoFocus,
  onError,
}: {
  id: string;
  value: string;
  onChange: (v: string) => void;
  label: string;
  describedBy?: string;
  /** Focus the editor once created, the caret inside an empty `{{ }}` (else at the end). */
  autoFocus?: boolean;
  /** The live preview's error against the sample data, or null when it evaluates (or there is nothing to evaluate). */
  onError?: (message: string | null) => void;
}) {
  const env = useFormEnv();
  const extensions = useMemo(
    () => [
      autocompletion({ override: [completionSource(env.expressionPaths)], activateOnTyping: true, icons: false }),
      EditorView.lineWrapping,
      templateBrackets,
      EditorView.contentAttributes.of({ id, "aria-label": label, ...(describedBy ? { "aria-describedby": describedBy } : {}) }),
      theme,
    ],
    [env.expressionPaths, id, label, describedBy],
  );
  const [preview, setPreview] = useState<{ value?: unknown; error?: string } | null>(null);
  useEffect(() => {
    let live = true;
    const t = setTimeout(() => {
      // Nothing to preview yet in an empty `{{ }}` (a fresh toggle): no "Unexpected end of expression".
      if (!env.sample || !value.includes("{{") || /\{\{\s*\}\}/.test(value)) return setPreview(null);
      previewTemplate(value, env.sample).then((r) => live && setPreview(r));
    }, 200);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [value, env.sample]);
  const previewError = preview?.error ?? null;
  useEffect(() => onError?.(previewError), [previewError, onError]);
  useEffect(() => () => onError?.(null), [onError]);
  return (
    <div data-testid={`expression-${id}`}>
      <CodeMirror
        value={value}
        onChange={onChange}
        extensions={extensions}
        basicSetup={{ lineNumbers: false, foldGutter: false, highlightActiveLine: false, autocompletion: false, closeBrackets: false }}
        minHeight="32px"
        editable={!env.readOnly}
        onCreateEditor={(view) => {
          if (!autoFocus || env.readOnly) return;
          const empty = view.state.doc.toString().indexOf("{{  }}");
          view.dispatch({ selection: { anchor: empty >= 0 ? empty + 3 : view.state.doc.length } });
          view.focus();
        }}
      />
      {preview && !preview.error && (
        <div className="mt-1 rounded border border-border bg-zinc-50 px-2 py-1 font-mono text-[11px] text-zinc-700" data-testid={`preview-${id}`}>
          <span className="mr-1 font-sans text-muted">{`Preview${env.sampleSource ? ` (${env.sampleSource})` : ""}:`}</span>
          {preview.value === undefined ? <em>undefined</em> : JSON.stringify(preview.value)}
        </div>
      )}
    </div>
  );
}
