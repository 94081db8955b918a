/**
 * `{{ … }}` template syntax, pure (no evaluation): shared by the server (expressions.ts, which
 * evaluates them in the sandbox) and the editor bundle (reference checks, previews), which must not
 * pull the server's worker-process pool in.
 */
export type Part = { text: string } | { expr: string };

/** How an expression's value reads among text in a template: nothing for null or undefined, a string as is, JSON otherwise (runner and editor preview alike). */
export const textInTemplate = (v: unknown): string => (v === undefined || v === null ? "" : typeof v === "string" ? v : JSON.stringify(v));

/** Splits a template into text and expression parts (braces inside the expression are balanced, strings skipped). */
export function parseTemplate(template: string): Part[] {
  const parts: Part[] = [];
  let i = 0;
  let textStart = 0;
  while (i < template.length) {
    if (template.startsWith("{{", i)) {
      const end = findClose(template, i + 2);
      if (end < 0) throw new Error("unclosed {{ (missing }})");
      if (i > textStart) parts.push({ text: template.slice(textStart, i) });
      parts.push({ expr: template.slice(i + 2, end).trim() });
      i = end + 2;
      textStart = i;
    } else i++;
  }
  if (textStart < template.length) parts.push({ text: template.slice(textStart) });
  return parts;
}

function findClose(s: string, from: number): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = from; i < s.length; i++) {
    const c = s[i]!;
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'" || c === "`") quote = c;
    else if (c === "{") depth++;
    else if (c === "}") {
      if (depth === 0 && s[i + 1] === "}") return i;
      depth--;
    }
  }
  return -1;
}

export function hasExpression(value: unknown): value is string {
  return typeof value === "string" && value.includes("{{");
}
