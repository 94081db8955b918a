import { describe, expect, it } from "vitest";
import { adfToText, textToAdf } from "./adf";

describe("ADF", () => {
  it("builds paragraphs and hard breaks from plain text and reads them back", () => {
    const doc = textToAdf("a\nb\n\nc");
    expect(doc).toEqual({
      type: "doc",
      version: 1,
      content: [
        { type: "paragraph", content: [{ type: "text", text: "a" }, { type: "hardBreak" }, { type: "text", text: "b" }] },
        { type: "paragraph", content: [{ type: "text", text: "c" }] },
      ],
    });
    expect(adfToText(doc)).toBe("a\nb\n\nc");
  });

  it("extracts mentions, emoji, links and list items; nothing from media-only bodies", () => {
    const doc = {
      type: "doc",
      version: 1,
      content: [
        {
          type: "paragraph",
          content: [
            { type: "mention", attrs: { id: "1", text: "@Mia" } },
            { type: "text", text: " see " },
            { type: "inlineCard", attrs: { url: "https://x.example" } },
            { type: "emoji", attrs: { shortName: ":fire:" } },
          ],
        },
        { type: "bulletList", content: [{ type: "listItem", content: [{ type: "paragraph", content: [{ type: "text", text: "one" }] }] }] },
      ],
    };
    expect(adfToText(doc)).toBe("@Mia see https://x.example:fire:\n\none");
    expect(adfToText({ type: "doc", version: 1, content: [{ type: "mediaSingle", content: [{ type: "media", attrs: { id: "m" } }] }] })).toBe("");
    expect(adfToText("h1. wiki body")).toBe("h1. wiki body");
    expect(adfToText(null)).toBe("");
  });
});
