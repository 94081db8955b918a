/**
 * Plain text ⇄ Atlassian Document Format (ADF, the v3 rich-text format of descriptions and comments).
 * Text → ADF: blank lines split paragraphs, single newlines become hard breaks.
 * ADF → text: text, mentions, emoji, cards, code and list items, paragraphs on their own lines.
 * Wiki-markup strings (older payloads) pass through unchanged.
 */
export interface AdfNode {
  type: string;
  text?: string;
  attrs?: Record<string, unknown>;
  content?: AdfNode[];
  marks?: unknown[];
}
export interface AdfDoc extends AdfNode {
  type: "doc";
  version: 1;
  content: AdfNode[];
}

export function textToAdf(text: string): AdfDoc {
  const paragraphs = text
    .replace(/\r\n?/g, "\n")
    .split(/\n{2,}/)
    .filter((p) => p.trim().length);
  return {
    type: "doc",
    version: 1,
    content: paragraphs.map((p) => ({
      type: "paragraph",
      content: p.split("\n").flatMap((line, i): AdfNode[] => [...(i ? [{ type: "hardBreak" }] : []), ...(line ? [{ type: "text", text: line }] : [])]),
    })),
  };
}

/** Blocks that end a paragraph (blank line) and those that end a line. */
const PARAGRAPHS = new Set(["paragraph", "heading", "blockquote", "codeBlock", "panel", "rule", "mediaSingle"]);
const LINES = new Set(["listItem", "tableRow", "decisionItem", "taskItem"]);

function walk(node: AdfNode, out: string[]) {
  switch (node.type) {
    case "text":
      out.push(node.text ?? "");
      return;
    case "hardBreak":
      out.push("\n");
      return;
    case "mention":
      out.push(String(node.attrs?.text ?? ""));
      return;
    case "emoji":
      out.push(String(node.attrs?.text ?? node.attrs?.shortName ?? ""));
      return;
    case "inlineCard":
    case "blockCard":
      out.push(String(node.attrs?.url ?? ""));
      return;
    case "date":
      out.push(node.attrs?.timestamp ? new Date(Number(node.attrs.timestamp)).toISOString().slice(0, 10) : "");
      return;
    case "status":
      out.push(String(node.attrs?.text ?? ""));
      return;
  }
  for (const child of node.content ?? []) walk(child, out);
  if (PARAGRAPHS.has(node.type)) out.push("\n\n");
  else if (LINES.has(node.type)) out.push("\n");
  if (node.type === "tableCell" || node.type === "tableHeader") out.push("\t");
}

/** Extracts readable text; "" when the body holds no text (e.g. only an image). */
export function adfToText(body: unknown): string {
  if (typeof body === "string") return body.trim();
  if (!body || typeof body !== "object") return "";
  const out: string[] = [];
  walk(body as AdfNode, out);
  return out
    .join("")
    .split("\n")
    .map((l) => l.replace(/[\t ]+$/g, ""))
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
