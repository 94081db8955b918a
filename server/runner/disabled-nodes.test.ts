import { runnerHooks } from "@/server/runner-hooks";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDeps } from "../testing";
import { createAutomation, getAutomationOrThrow, replaceAutomation } from "../services/automations";
import { getRunOrThrow, startRun } from "../services/runs";
import { handleHookRequest } from "../webhooks/lean-listener";
import { indexGraph } from "../graphs";
import { startRunner, type Runner } from "./runner-loop";
import { registerStubs } from "./testing/stub-integration";
import { seedWorkspace } from "./testing/seed";
import { waitForRun } from "./testing/wait";

registerStubs();

let deps: Awaited<ReturnType<typeof createTestDeps>>;
let runner: Runner;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;

beforeEach(async () => {
  deps = await createTestDeps();
  ws = await seedWorkspace(deps);
  runner = startRunner(deps, runnerHooks(deps), { concurrency: 4, pollMs: 20, maintenance: false });
});
afterEach(async () => {
  await runner.stop();
  deps.close();
});

const node = (id: string, name: string, key: string, config: Record<string, unknown> = {}, disabled?: boolean) => ({
  id,
  name,
  key,
  config,
  ...(disabled ? { disabled } : {}),
});

describe("disabled nodes", () => {
  it("skips a disabled middle node: its downstream still runs, and $steps.<disabled> is absent", async () => {
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, {
      name: "disabled middle",
      graph: {
        nodes: [
          node("t", "start", "core.manual"),
          node("a", "first", "stub.echo", { value: "{{ $trigger.data.n }}" }),
          node("b", "middle", "stub.echo", { value: "should not run" }, true),
          node("c", "last", "stub.echo", { value: "{{ $exists($steps.middle) ? 'middle ran' : 'first said ' & $steps.first.data.value }}" }),
        ],
        edges: [
          { from: "t", to: "a" },
          { from: "a", to: "b" },
          { from: "b", to: "c" },
        ],
      },
    });
    // The flag is part of the saved document.
    expect((await getAutomationOrThrow(deps, ws.actor, ws.workspaceId, a.id)).graph.nodes.find((n) => n.id === "b")?.disabled).toBe(true);
    const r = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id, payload: { n: 7 } });
    expect(await waitForRun(deps, r.id)).toBe("succeeded");
    const detail = await getRunOrThrow(deps, ws.actor, ws.workspaceId, r.id);
    expect(detail.steps.map((s) => [s.name, s.status])).toEqual([
      ["start", "succeeded"],
      ["first", "succeeded"],
      ["last", "succeeded"],
    ]);
    expect(detail.steps.find((s) => s.name === "last")!.output!.data).toEqual({ value: "first said 7" });
  });

  it("rewires edges around a chain of disabled nodes, reaching a node once when it was reached both ways", () => {
    const g = indexGraph({
      nodes: [
        node("t", "t", "core.manual"),
        node("x", "x", "stub.echo", {}, true),
        node("y", "y", "stub.echo", {}, true),
        node("z", "z", "stub.echo"),
        node("w", "w", "stub.echo"),
      ],
      edges: [
        { from: "t", to: "x" },
        { from: "x", to: "y" },
        { from: "y", to: "z" },
        { from: "t", to: "z" },
        { from: "x", to: "w" },
      ],
    });
    expect(g.children.get("t")?.sort()).toEqual(["w", "z"]);
    expect(g.byId.has("x")).toBe(false);
    expect(g.graph.nodes.map((n) => n.id)).toEqual(["t", "z", "w"]);
  });

  it("a disabled trigger does not fire: no manual start, and its webhook URL answers 404 until it is enabled again (same URL)", async () => {
    const graph = (disabled: boolean) => ({
      nodes: [node("t", "hook", "core.webhook", {}, disabled), node("a", "echo", "stub.echo", { value: "{{ $trigger.data.body.n }}" })],
      edges: [{ from: "t", to: "a" }],
    });
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, { name: "hook", enabled: true, graph: graph(true) });
    await expect(startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id, payload: {} })).rejects.toThrow(/no trigger/i);

    const server = http.createServer((req, res) => handleHookRequest(req, res, deps, { maxBytes: 4096 }));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const url = a.triggers[0]!.url!.replace(/^http:\/\/[^/]+/, base);
      const post = () => fetch(url, { method: "POST", body: JSON.stringify({ n: 1 }), headers: { "content-type": "application/json" } });
      expect((await post()).status).toBe(404);
      expect(Number((await deps.sql<{ n: number }>("select count(*) as n from runs"))[0]!.n)).toBe(0);

      const again = await replaceAutomation(deps, ws.actor, ws.workspaceId, a.id, { name: "hook", enabled: true, graph: graph(false) });
      expect(again.triggers[0]!.url).toBe(a.triggers[0]!.url);
      const res = await post();
      expect(res.status).toBe(202);
      const { runIds } = (await res.json()) as { runIds: string[] };
      expect(await waitForRun(deps, runIds[0]!)).toBe("succeeded");
    } finally {
      server.close();
    }
  });
});
