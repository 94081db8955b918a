/** Plain text → Atlassian Document Format (paragraphs on blank lines, hard breaks on single newlines). */
export interface AdfDoc { type: "doc"; version: 1; content: unknown[] }

export function plainTextToAdf(text: string): AdfDoc {
  const paragraphs = text.replace(/\r\n?/g, "\n").split(/\n{2,}/);
  return {
    type: "doc",
    version: 1,
    content: paragraphs.map((p) => {
      const lines = p.split("\n");
      const content: unknown[] = [];
      lines.forEach((line, i) => {
        if (i > 0) content.push({ type: "hardBreak" });
        if (line) content.push({ type: "text", text: line });
      });
      return { type: "paragraph", content };
    }),
  };
}
