// @vitest-environment jsdom
/** The output viewer: JSON exactly as stored, a table and a schema view, each value's expression path copied. */
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { expressionPath, inferSchema, jsonLines, linesText } from "./json-paths";
import { OutputViewer } from "./output-viewer";

const silence = {
  type: "metrics.silence",
  timestamp: "2026-11-22T03:51:56.249Z",
  data: {
    silenceID: "996cc6d7",
    matchers: [
      { name: "alertname", value: "DiskFull", isRegex: false },
      { name: "team", value: null, isRegex: true },
    ],
    labels: { "app.kubernetes.io/name": "api" },
    empty: {},
    none: [],
  },
};

afterEach(cleanup);

describe("json paths", () => {
  it("renders exactly JSON.stringify(v, null, 2)", () => {
    for (const v of [silence, [], {}, "x", 1, null, [[1, { a: [] }]], { a: { b: { c: [true, false] } } }])
      expect(linesText(jsonLines(v))).toBe(JSON.stringify(v, null, 2));
  });

  it("writes JSONata paths, back-quoting names that are not identifiers", () => {
    expect(expressionPath("$steps.createSilence", ["data", "matchers", 0, "name"])).toBe("$steps.createSilence.data.matchers[0].name");
    expect(expressionPath("$trigger", ["data", "labels", "app.kubernetes.io/name"])).toBe("$trigger.data.labels.`app.kubernetes.io/name`");
  });

  it("infers one schema row per field, merging array items", () => {
    const rows = inferSchema(silence).map((n) => `${"  ".repeat(n.depth)}${n.key}: ${n.type}`);
    expect(rows).toContain("      [].value: string | null");
    expect(rows).toContain("      [].isRegex: boolean");
    expect(rows).toContain("  data: object");
    expect(rows).toContain("    matchers: array<object>");
    expect(rows).toContain("    none: array<empty>");
  });
});

describe("OutputViewer", () => {
  it("shows the JSON as stored and copies a value's expression", async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    render(<OutputViewer title="Output" value={silence} base="$steps.createSilence" testId="out" />);
    const pre = screen.getByTestId("out");
    expect(JSON.parse(pre.textContent!)).toEqual(silence);
    fireEvent.click(within(pre).getByRole("button", { name: "Copy expression {{ $steps.createSilence.data.matchers[1].value }}" }));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith("{{ $steps.createSilence.data.matchers[1].value }}"));
  });

  it("has a table view (one row per field, or records for a list) and a schema view, both with paths", () => {
    const { rerender } = render(<OutputViewer title="Output" value={silence} base="$trigger" testId="out" />);
    fireEvent.click(screen.getByRole("tab", { name: "Table" }));
    const table = screen.getByTestId("out-table");
    expect(within(table).getByText("data.labels.`app.kubernetes.io/name`")).toBeTruthy();
    expect(within(table).getByRole("button", { name: "Copy expression {{ $trigger.data.silenceID }}" })).toBeTruthy();

    rerender(
      <OutputViewer
        title="Output"
        value={{
          type: "metrics.query",
          timestamp: "t",
          data: [
            { metric: "up", value: 1 },
            { metric: "up", value: 0, extra: "x" },
          ],
        }}
        base="$steps.q"
        testId="out"
      />,
    );
    const records = screen.getByTestId("out-table");
    expect(
      within(records)
        .getAllByRole("columnheader")
        .map((h) => h.textContent),
    ).toEqual(["#", "metric", "value", "extra"]);
    expect(within(records).getByRole("button", { name: "Copy expression {{ $steps.q.data[1].extra }}" })).toBeTruthy();

    fireEvent.click(screen.getByRole("tab", { name: "Schema" }));
    const schema = screen.getByTestId("out-schema");
    expect(schema.textContent).toMatch(/data\s*array<object>/);
    expect(within(schema).getByRole("button", { name: "Copy expression {{ $steps.q.data[0].extra }}" })).toBeTruthy();
  });
});
