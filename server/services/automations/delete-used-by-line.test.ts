import { afterEach, describe, expect, it } from "vitest";
import { createTestDeps } from "../../testing";
import { setupOwner } from "../users/setup-owner";
import type { Actor } from "../../auth/permissions";
import { createAutomation, deleteAutomation } from "./save-automation";

let deps: Awaited<ReturnType<typeof createTestDeps>>;
afterEach(async () => deps.close());

describe("deleteAutomation", () => {
  it("refuses (409) while a line step names the automation, and deletes once it no longer does", async () => {
    deps = await createTestDeps();
    const r = await setupOwner(deps, { email: "o@example.test", password: "long enough pw" });
    const actor: Actor = { kind: "user", userId: r.user.id, organizationId: r.organization.id, role: "owner", label: "user:o" };
    const a = await createAutomation(deps, actor, r.workspace.id, {
      name: "triage",
      graph: { nodes: [{ id: "n1", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } }], edges: [] },
    });
    const [line] = await deps.store.lines.list(r.workspace.id, { limit: 10 });
    await deps.store.lines.update(line!.id, { steps: [{ name: "Triage", appId: a.id }] });
    await expect(deleteAutomation(deps, actor, r.workspace.id, a.id)).rejects.toMatchObject({
      code: "conflict",
      message: expect.stringContaining('"default"'),
    });
    expect(await deps.store.automations.get(r.workspace.id, a.id)).toBeDefined();
    await deps.store.lines.update(line!.id, { steps: [] });
    await deleteAutomation(deps, actor, r.workspace.id, a.id);
    expect(await deps.store.automations.get(r.workspace.id, a.id)).toBeUndefined();
  });
});
