import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDeps } from "../../testing";
import { ROLES, type Actor, type Role } from "../../auth/permissions";
import { setupOwner } from "../users/setup-owner";
import { createWorkspace } from "./create-workspace";
import { listWorkspaces } from "./list-workspaces";
import { deleteWorkspace, renameWorkspace } from "./update-workspace";
import { createInvitation } from "../users/members";

let deps: Awaited<ReturnType<typeof createTestDeps>>;
let orgId: string;
let firstWs: string;

beforeEach(async () => {
  deps = await createTestDeps();
  const r = await setupOwner(deps, { email: "owner@example.test", password: "long enough pw" });
  orgId = r.organization.id;
  firstWs = r.workspace.id;
});
afterEach(async () => deps.close());

const user = (role: Role): Actor => ({ kind: "user", userId: "usr_x", organizationId: orgId, role, label: `user:${role}` });

describe("workspace services enforce roles", () => {
  const atLeast = (role: Role, min: Role) => ROLES.indexOf(role) >= ROLES.indexOf(min);
  for (const role of ROLES) {
    it(`${role}: list always; create/rename/delete only admin+; invite only admin+`, async () => {
      const actor = user(role);
      expect((await listWorkspaces(deps, actor)).map((w) => w.id)).toContain(firstWs);
      // Started together; a no-op catch keeps an early rejection from counting as unhandled while another is awaited.
      const handled = <T>(p: Promise<T>) => (p.catch(() => undefined), p);
      const create = handled(createWorkspace(deps, actor, { name: `by ${role}` }));
      const rename = handled(renameWorkspace(deps, actor, firstWs, { name: "renamed" }));
      const invite = handled(createInvitation(deps, actor, { role: "viewer" }));
      if (atLeast(role, "admin")) {
        await expect(create).resolves.toMatchObject({ name: `by ${role}` });
        await expect(rename).resolves.toMatchObject({ name: "renamed" });
        await expect(invite).resolves.toMatchObject({ url: expect.stringContaining("/invite/") });
      } else {
        await expect(create).rejects.toMatchObject({ code: "forbidden" });
        await expect(rename).rejects.toMatchObject({ code: "forbidden" });
        await expect(invite).rejects.toMatchObject({ code: "forbidden" });
        expect((await listWorkspaces(deps, actor)).find((w) => w.name === `by ${role}`)).toBeUndefined();
      }
      const del = deleteWorkspace(deps, actor, firstWs);
      if (atLeast(role, "admin")) await expect(del).resolves.toBeUndefined();
      else await expect(del).rejects.toMatchObject({ code: "forbidden" });
    });
  }

  it("every new workspace gets a `default` line", async () => {
    const ws = await createWorkspace(deps, user("admin"), { name: "Payments" });
    expect((await deps.store.lines.list(ws.id, { limit: 10 })).map((l) => l.name)).toEqual(["default"]);
  });

  it("an API key limited to other workspaces sees 404 for this one, not 403", async () => {
    const key: Actor = { kind: "apiKey", keyId: "key_1", organizationId: orgId, role: "admin", workspaceIds: ["ws_other"], label: "key:1" };
    expect(await listWorkspaces(deps, key)).toEqual([]);
    await expect(renameWorkspace(deps, key, firstWs, { name: "x" })).rejects.toMatchObject({ code: "not_found" });
  });

  it("rejects empty or overlong names with a field error", async () => {
    await expect(createWorkspace(deps, user("owner"), { name: "  " })).rejects.toMatchObject({ code: "validation_failed", errors: [{ path: "name" }] });
    await expect(createWorkspace(deps, user("owner"), { name: "x".repeat(101) })).rejects.toMatchObject({ code: "validation_failed" });
  });

  it("only one owner: a second set-up is refused and nothing is written", async () => {
    await expect(setupOwner(deps, { email: "other@example.test", password: "long enough pw" })).rejects.toMatchObject({ code: "conflict" });
    expect(await deps.sql("select id from users")).toHaveLength(1);
    expect((await deps.sql<{ role: string }>("select role from memberships")).map((m) => m.role)).toEqual(["owner"]);
  });
});
