// @vitest-environment jsdom
/**
 * Editor side of drafts and labels: deleting a node flags the fields that read it, picked labels
 * travel with the document and the node summary, and the toolbar's problem list jumps to a node.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { useCanvasStore } from "./canvas-store";
import { summarize } from "./graph-utils";
import { ProblemsButton } from "./problems-list";
import { enableRefusedMessage, problemsFromList } from "./use-trpc-problems";
import type { FlowNodeData, GraphDoc } from "./types";

const kindOf = (key: string) => (key.includes(".on") ? "trigger" : "component") as "trigger" | "component";
const doc: GraphDoc = {
  nodes: [
    { id: "n1", name: "onAlert", key: "metrics.onAlert", config: { statuses: ["firing"] } },
    {
      id: "n2",
      name: "silence",
      key: "metrics.createSilence",
      config: { matchers: [{ name: "alertname", value: "{{ $trigger.data.labels.alertname }}" }], comment: "x" },
    },
    { id: "n3", name: "check", key: "metrics.getSilence", config: { silence: "{{ $steps.silence.data.silenceID }}" } },
    {
      id: "n4",
      name: "issue",
      key: "tracker.createIssue",
      config: { issueType: "10002", summary: "Silenced {{ $steps.silence.data.silenceID }} at {{ $steps.check.data.status }}" },
      labels: { issueType: { value: "10002", label: "Bug" } },
    },
  ],
  edges: [
    { from: "n1", to: "n2" },
    { from: "n2", to: "n3" },
    { from: "n3", to: "n4" },
  ],
};

const store = () => useCanvasStore.getState();
const data = (id: string) => store().nodes.find((n) => n.id === id)!.data as FlowNodeData;

beforeEach(() => store().load(structuredClone(doc), kindOf));
afterEach(cleanup);

describe("deleting a node", () => {
  it("marks every field that read it, on the nodes that remain", async () => {
    store().deleteNodes(["n2"]);
    await waitFor(() => expect(store().problems).toHaveLength(2));
    expect(store().problems).toEqual([
      { nodeId: "n3", path: "config.silence", severity: "error", message: '"silence" was deleted, so $steps.silence no longer has a value here.' },
      { nodeId: "n4", path: "config.summary", severity: "error", message: '"silence" was deleted, so $steps.silence no longer has a value here.' },
    ]);
    // Undo brings the node back and its problems go.
    store().undo();
    expect(data("n2").name).toBe("silence");
    expect(store().problems).toEqual([]);
    // Redo deletes it again: the fields are marked again.
    store().redo();
    await waitFor(() => expect(store().problems).toHaveLength(2));
    // Editing the field clears its problem.
    store().updateNodeConfig("n3", { silence: "{{ $trigger.data.fingerprint }}" });
    expect(store().problems.map((p) => p.nodeId)).toEqual(["n4"]);
  });
});

describe("renaming a node", () => {
  it("clears the missing-step problems the new name resolves and those of rewritten references", async () => {
    store().setProblems([
      { nodeId: "n3", path: "config.silence", severity: "error", message: '"silence" is on only some of the paths into "check".' },
      { nodeId: "n4", path: "config.summary", severity: "error", message: 'No step is named "mute". Did you mean $steps.issue?' },
      { nodeId: "n4", path: "config.issueType", message: "Required" },
    ]);
    expect(store().renameNode("n2", "mute").ok).toBe(true);
    expect(data("n3").config.silence).toBe("{{ $steps.mute.data.silenceID }}");
    expect(store().problems).toEqual([{ nodeId: "n4", path: "config.issueType", message: "Required" }]);
  });
});

describe("labels", () => {
  it("travel with the document and name picked values in the node summary", () => {
    expect(store().toDocument().nodes[3]!.labels).toEqual({ issueType: { value: "10002", label: "Bug" } });
    expect(summarize(data("n4").config, 80, data("n4").labels)).toMatch(/^issueType: Bug/);
    // A new choice and its label are one undo step.
    store().updateNodeConfig("n4", { issueType: "10001" }, { issueType: { value: "10001", label: "Task" } });
    expect(data("n4").labels).toEqual({ issueType: { value: "10001", label: "Task" } });
    store().undo();
    expect(data("n4")).toMatchObject({ config: { issueType: "10002" }, labels: { issueType: { value: "10002", label: "Bug" } } });
  });
});

describe("problems list", () => {
  it("maps saved problems to nodes, lists errors before warnings, and selects the node clicked", () => {
    store().setProblems(
      problemsFromList(
        [
          { path: "graph.nodes.2.config.silence", nodeId: "n3", severity: "warning", message: 'silence\'s output has no field "silenceId" in data.' },
          { path: "graph.nodes.3.config.summary", severity: "error", message: 'No step is named "chek".' },
        ],
        doc,
      ),
    );
    render(<ProblemsButton />);
    const button = screen.getByTestId("problem-count");
    expect(button.textContent).toBe("1 problem, 1 warning");
    fireEvent.click(button);
    const items = within(screen.getByTestId("problems-list")).getAllByRole("button");
    expect(items.map((i) => i.textContent)).toEqual([
      'issue · summaryNo step is named "chek".',
      'check · silencesilence\'s output has no field "silenceId" in data.',
    ]);
    fireEvent.click(items[0]!);
    expect(
      store()
        .nodes.filter((n) => n.selected)
        .map((n) => n.id),
    ).toEqual(["n4"]);
  });
});

describe("a refused enable", () => {
  // The server's answer, written for API users; the switch says what to do in the UI instead.
  const refused = Object.assign(
    new Error("An enabled automation must have no problems, and this one has 2: … Fix them, or save it with enabled: false to keep it as a draft."),
    {
      data: {
        problems: [
          { path: "graph.nodes.1.config.comment", message: "Required", nodeId: "n2" },
          { path: "graph.nodes.1.config.duration", message: "Required", nodeId: "n2" },
          { path: "graph.nodes.1.config.x", message: "Unknown field", nodeId: "n2", severity: "warning" as const },
        ],
      },
    },
  );

  it("counts the problems to fix and never speaks of `enabled: false`", () => {
    expect(enableRefusedMessage(refused)).toBe("Not enabled: 2 problems to fix first, marked on the nodes. It stays disabled.");
    expect(enableRefusedMessage(refused, "Silence")).toBe("Not enabled: “Silence” has 2 problems to fix first. Open it to see them marked on its nodes.");
    expect(enableRefusedMessage(new Error("Forbidden"))).toBe("Not enabled: Forbidden");
  });
});
