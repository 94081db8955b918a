/**
 * Bracket pairing for `{{ }}` templates: inside an expression, `(`, `[`, `{` and quotes get their
 * closer and typing a closer steps over it; in the template's plain text nothing is inserted
 * (a title such as "Alert [prod]" is typed as is). `{{` itself is never auto-closed.
 */
const PAIRS: Record<string, string> = { "(": ")", "[": "]", "{": "}", '"': '"', "'": "'" };
const CLOSERS = new Set([")", "]", "}", '"', "'"]);

/** Whether `pos` is inside an open `{{ … }}` of `doc`. */
export function insideExpression(doc: string, pos: number): boolean {
  const before = doc.slice(0, pos);
  return before.lastIndexOf("{{") > before.lastIndexOf("}}");
}

/** The edit for typing `text` over [from, to): what to insert and where the cursor goes, or null for a plain insert. */
export function bracketEdit(doc: string, from: number, to: number, text: string): { insert?: string; cursor: number } | null {
  if (text.length !== 1 || from !== to || !insideExpression(doc, from)) return null;
  if (CLOSERS.has(text) && doc[to] === text) return { cursor: to + 1 };
  const close = PAIRS[text];
  if (!close) return null;
  // A quote right after a word character is an apostrophe or a closing quote, not an opening one.
  if ((text === '"' || text === "'") && /\w/.test(doc[from - 1] ?? "")) return null;
  // The second `{` of `{{`: the user is opening an expression, not an object.
  if (text === "{" && doc[from - 1] === "{") return null;
  return { insert: text + close, cursor: from + 1 };
}
