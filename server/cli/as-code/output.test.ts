/** How `conveyor plan` prints changes: each field once, readable. */
import { describe, expect, it } from "vitest";
import type { ImportResult } from "../../contracts/as-code";
import { formatPlan } from "./output";

describe("formatPlan", () => {
  it("shows an added edge by its path alone (it printed ': true'), an added field with its value", () => {
    const r = {
      dryRun: true,
      applied: false,
      summary: { create: 0, update: 1, delete: 0, unchanged: 0, unmanaged: 0 },
      entries: [
        {
          kind: "automation",
          key: "hello",
          id: "aut_1",
          action: "update",
          file: "automations/hello.yaml",
          changes: [
            { path: "graph.nodes[check]", op: "add", after: { id: "n2", name: "check", key: "core.filter" } },
            { path: "graph.edges[n1→n2]", op: "add", after: true },
            { path: "graph.edges[n1→n3]", op: "remove", before: true },
          ],
        },
      ],
      conflicts: [],
      setupProblems: [],
    } as unknown as ImportResult;
    expect(formatPlan(r).split("\n")).toEqual([
      "~ automation hello  (automations/hello.yaml)",
      '    + graph.nodes[check]: {"id":"n2","name":"check","key":"core.filter"}',
      "    + graph.edges[n1→n2]",
      "    - graph.edges[n1→n3]",
      "Plan: 0 to create, 1 to change, 0 to delete (0 unchanged).",
    ]);
  });
});
