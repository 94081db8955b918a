import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AppError } from "../../errors";
import { createTestDeps } from "../../testing";
import { seedWorkspace } from "../../runner/testing/seed";
import { registerStubs } from "../../runner/testing/stub-integration";
import {
  createAutomation,
  exportAutomation,
  listAutomations,
  listVersions,
  patchAutomation,
  replaceAutomation,
  restoreVersion,
  validateAutomationDocument,
  deleteAutomation,
  getAutomationOrThrow,
} from ".";

registerStubs();
let deps: Awaited<ReturnType<typeof createTestDeps>>;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;
beforeEach(async () => {
  deps = await createTestDeps();
  ws = await seedWorkspace(deps);
});
afterEach(async () => deps.close());

const node = (id: string, name: string, key: string, config: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  id,
  name,
  key,
  config,
  ...extra,
});

describe("automation documents", () => {
  it("reports every problem at once, each with node and field", async () => {
    const problems = await validateAutomationDocument(deps, ws.workspaceId, {
      name: "broken",
      graph: {
        nodes: [
          node("t", "start", "core.manual"),
          node("a", "dup", "core.http", { url: "not a url", method: "FETCH" }),
          node("b", "dup", "nope.thing"),
          node("c", "loose", "stub.echo", { value: 1 }),
          node("d", "x1", "stub.echo", { value: 1 }),
          node("e", "x2", "stub.echo", { value: 1 }),
          node("f", "tmpl", "core.http", { url: "{{ $trigger.data.url }}", timeoutMs: "{{ $trigger.data.t }}", body: "{{ 1 + }}" }),
          node("g", "conn", "stub.echo", { value: 1 }, { connectionId: "con_missing" }),
          node("h", "sched", "core.schedule", { cron: "not cron" }),
        ],
        edges: [
          { from: "t", to: "a" },
          { from: "t", to: "zzz" },
          { from: "d", to: "e" },
          { from: "e", to: "d" },
          { from: "t", to: "f" },
          { from: "a", to: "t" },
        ],
      },
    });
    const by = (nodeId: string) => problems.filter((p) => p.nodeId === nodeId).map((p) => `${p.path}: ${p.message}`);
    expect(by("a").join("\n")).toMatch(/graph\.nodes\.1\.config\.url/);
    expect(by("a").join("\n")).toMatch(/graph\.nodes\.1\.config\.method/);
    expect(by("b").join("\n")).toMatch(/name: Another node is already named "dup"/);
    expect(by("b").join("\n")).toMatch(/key: Unknown trigger or component "nope.thing"/);
    expect(by("c").join("\n")).toMatch(/no path from a trigger/);
    expect(by("d").join("\n") + by("e").join("\n")).toMatch(/cycle/);
    expect(by("f")).toEqual([expect.stringMatching(/graph\.nodes\.6\.config\.body: Expression: syntax error/)]); // url/timeoutMs expressions are checked at run time
    expect(problems.some((p) => p.path === "graph.edges.1" && /unknown node "zzz"/.test(p.message))).toBe(true);
    expect(by("t").join("\n")).toMatch(/cannot have incoming edges/);
    expect(by("h").join("\n")).toMatch(/config\.cron/);
    await expect(
      createAutomation(deps, ws.actor, ws.workspaceId, { name: "x", enabled: true, graph: { nodes: [node("a", "a", "nope.x")], edges: [] } }),
    ).rejects.toMatchObject({ code: "validation_failed", errors: [expect.objectContaining({ nodeId: "a" })] });
  });

  it("versions every save, guards with ifVersion, restores, exports the document unchanged", async () => {
    const doc = {
      name: "v",
      description: "d",
      concurrency: 3,
      graph: {
        nodes: [node("t", "start", "core.manual"), node("a", "a", "stub.echo", { value: "{{ $trigger.data }}" }, { position: { x: 1, y: 2 } })],
        edges: [{ from: "t", to: "a" }],
      },
    };
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, doc);
    expect(a.version).toBe(1);
    const b = await replaceAutomation(deps, ws.actor, ws.workspaceId, a.id, { ...doc, name: "v2" }, { ifVersion: 1 });
    expect(b.version).toBe(2);
    const stale = await replaceAutomation(deps, ws.actor, ws.workspaceId, a.id, doc, { ifVersion: 1 }).catch((e) => e);
    expect(stale).toBeInstanceOf(AppError);
    expect(stale.code).toBe("precondition_failed");
    expect((await listVersions(deps, ws.actor, ws.workspaceId, a.id)).map((v) => v.version)).toEqual([2, 1]);
    const r = await restoreVersion(deps, ws.actor, ws.workspaceId, a.id, 1);
    expect(r.version).toBe(3);
    expect(r.name).toBe("v");
    const exported = await exportAutomation(deps, ws.actor, ws.workspaceId, a.id);
    expect(exported.graph).toEqual(doc.graph);
    const imported = await createAutomation(deps, ws.actor, ws.workspaceId, exported);
    expect(await exportAutomation(deps, ws.actor, ws.workspaceId, imported.id)).toEqual(exported);
    const page = await listAutomations(deps, ws.actor, ws.workspaceId, { limit: 1 });
    expect(page.data).toHaveLength(1);
    expect(page.nextCursor).toBeTruthy();
  });

  it("concurrent saves with the same ifVersion: exactly one wins, the others are refused (412), no version is lost", async () => {
    const doc = { name: "c", graph: { nodes: [node("t", "start", "core.manual")], edges: [] } };
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, doc);
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => replaceAutomation(deps, ws.actor, ws.workspaceId, a.id, { ...doc, name: `c${i}` }, { ifVersion: 1 })),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(results.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason.code)).toEqual(Array(5).fill("precondition_failed"));
    expect((await listVersions(deps, ws.actor, ws.workspaceId, a.id)).map((v) => v.version)).toEqual([2, 1]);
    // Without a version guard every save lands as its own version.
    await Promise.all(Array.from({ length: 4 }, (_, i) => replaceAutomation(deps, ws.actor, ws.workspaceId, a.id, { ...doc, name: `d${i}` })));
    expect((await getAutomationOrThrow(deps, ws.actor, ws.workspaceId, a.id)).version).toBe(6);
  });

  it("enabling creates the trigger intake (stable URL), disabling disables it, deleting removes it", async () => {
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, {
      name: "h",
      graph: { nodes: [node("t", "hook", "core.webhook"), node("a", "a", "stub.echo", { value: 1 })], edges: [{ from: "t", to: "a" }] },
    });
    const url = a.triggers[0]!.url;
    expect(url).toMatch(/\/hooks\/[A-Za-z0-9_-]{40,}$/);
    const intake = async () => (await deps.sql<{ status: string }>("select status from intakes where automation_id = ?", a.id))[0];
    expect((await intake())!.status).toBe("disabled");
    await patchAutomation(deps, ws.actor, ws.workspaceId, a.id, { enabled: true });
    expect((await intake())!.status).toBe("active");
    const again = await replaceAutomation(deps, ws.actor, ws.workspaceId, a.id, {
      name: "h2",
      enabled: true,
      graph: (await getAutomationOrThrow(deps, ws.actor, ws.workspaceId, a.id)).graph,
    });
    expect(again.triggers[0]!.url).toBe(url);
    await deleteAutomation(deps, ws.actor, ws.workspaceId, a.id);
    expect(await intake()).toBeUndefined();
  });
});
