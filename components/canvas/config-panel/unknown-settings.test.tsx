// @vitest-environment jsdom
/**
 * A node config key its component does not have is an error at save, and no form field shows it:
 * the panel names it and removes it (undoably), so an editor user is never stuck with it.
 */
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { useCanvasStore } from "../canvas-store";
import type { FlowNodeData, GraphDoc, Problem } from "../types";
import { UnknownSettings, withoutPath } from "./unknown-settings";

const doc: GraphDoc = {
  nodes: [
    { id: "n1", name: "start", key: "core.manual", config: {} },
    {
      id: "n2",
      name: "call",
      key: "core.http",
      config: { method: "GET", url: "http://127.0.0.1:9/x", timeoutMS: 5, headers: [{ name: "a", value: "b", extra: 1 }] },
    },
  ],
  edges: [{ from: "n1", to: "n2" }],
};
const problems: Problem[] = [
  { nodeId: "n2", path: "graph.nodes.1.config.timeoutMS", severity: "error", message: 'Unknown input "timeoutMS" for core.http' },
  { nodeId: "n2", path: "graph.nodes.1.config.headers.0.extra", severity: "error", message: 'Unknown input "extra" for core.http' },
  { nodeId: "n2", path: "graph.nodes.1.config.url", severity: "error", message: "Required" },
];

const store = () => useCanvasStore.getState();
const config = () => (store().nodes.find((n) => n.id === "n2")!.data as FlowNodeData).config;

function Panel() {
  const cfg = useCanvasStore((s) => (s.nodes.find((n) => n.id === "n2")!.data as FlowNodeData).config);
  return <UnknownSettings nodeId="n2" config={cfg} problems={problems} />;
}

beforeEach(() => store().load(structuredClone(doc), (k) => (k === "core.manual" ? "trigger" : "component")));
afterEach(cleanup);

describe("withoutPath", () => {
  it("removes a key at the top, inside an object and inside a list item; null when nothing is there", () => {
    expect(withoutPath({ a: 1, b: 2 }, "b")).toEqual({ a: 1 });
    expect(withoutPath({ a: { b: 1, c: 2 } }, "a.c")).toEqual({ a: { b: 1 } });
    expect(withoutPath({ l: [{ x: 1, y: 2 }, { x: 3 }] }, "l.0.y")).toEqual({ l: [{ x: 1 }, { x: 3 }] });
    expect(withoutPath({ a: 1 }, "b")).toBeNull();
    expect(withoutPath({ a: 1 }, "a.b")).toBeNull();
    expect(withoutPath({ l: [1] }, "l.0")).toBeNull();
  });
});

describe("unknown settings in the node panel", () => {
  it("lists only the settings the component does not have, and Remove takes each out of the config", () => {
    render(<Panel />);
    const box = screen.getByTestId("unknown-settings");
    expect(box.textContent).toContain("timeoutMS");
    expect(box.textContent).toContain("headers.0.extra");
    expect(box.textContent).not.toContain("url");

    fireEvent.click(screen.getByRole("button", { name: "Remove setting timeoutMS" }));
    expect(config()).not.toHaveProperty("timeoutMS");
    expect(config().url).toBe("http://127.0.0.1:9/x");
    expect(screen.queryByRole("button", { name: "Remove setting timeoutMS" })).toBeNull();

    fireEvent.click(screen.getByRole("button", { name: "Remove setting headers.0.extra" }));
    expect(config().headers).toEqual([{ name: "a", value: "b" }]);
    expect(screen.queryByTestId("unknown-settings")).toBeNull();

    // A removal is one undo step.
    store().undo();
    expect(config().headers).toEqual([{ name: "a", value: "b", extra: 1 }]);
  });
});
