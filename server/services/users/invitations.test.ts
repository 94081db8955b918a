/** Pending invitations: listed without their links, revocable, and a revoked link says so and cannot be used. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "../../auth/permissions";
import { createTestDeps } from "../../testing";
import { setupOwner } from "./setup-owner";
import { getUserActor } from "./get-user-actor";
import { acceptInvitation, createInvitation, listInvitations, lookupInvitation, revokeInvitation } from "./members";

let deps: Awaited<ReturnType<typeof createTestDeps>>;
let owner: NonNullable<Awaited<ReturnType<typeof getUserActor>>>;
const PASSWORD = "correct horse battery staple";
const tokenOf = (inv: { url: string }) => inv.url.split("/").pop()!;

beforeAll(async () => {
  deps = await createTestDeps();
  const setup = await setupOwner(deps, { email: "owner@example.com", password: PASSWORD });
  owner = (await getUserActor(deps, setup.user.id))!;
});
afterAll(async () => deps.close());

describe("pending invitations", () => {
  it("lists pending invitations with who, role, creator and dates, but never the link", async () => {
    const inv = await createInvitation(deps, owner, { role: "editor", email: "Pending@Example.com" });
    const list = await listInvitations(deps, owner);
    const row = list.find((r) => r.id === inv.id);
    expect(row).toEqual({
      id: inv.id,
      email: "pending@example.com",
      role: "editor",
      createdBy: "user:owner@example.com",
      createdAt: expect.any(String),
      expiresAt: inv.expiresAt,
    });
    expect(JSON.stringify(list)).not.toContain(tokenOf(inv));
  });

  it("does not list used or expired invitations", async () => {
    const used = await createInvitation(deps, owner, { role: "viewer" });
    await acceptInvitation(deps, { token: tokenOf(used), email: "joined@example.com", password: PASSWORD });
    const expiring = await createInvitation(deps, owner, { role: "viewer" });
    const ids = (await listInvitations(deps, owner)).map((r) => r.id);
    expect(ids).not.toContain(used.id);
    expect(ids).toContain(expiring.id);

    const realNow = deps.now;
    deps.now = () => new Date(Date.now() + 8 * 24 * 3600 * 1000);
    try {
      expect((await listInvitations(deps, owner)).map((r) => r.id)).not.toContain(expiring.id);
      expect(await lookupInvitation(deps, tokenOf(expiring))).toMatchObject({ state: "expired", message: expect.stringMatching(/expired/) });
      await expect(acceptInvitation(deps, { token: tokenOf(expiring), email: "late@example.com", password: PASSWORD })).rejects.toThrow(/expired/);
    } finally {
      deps.now = realNow;
    }
    expect(await lookupInvitation(deps, tokenOf(used))).toMatchObject({ state: "used", message: expect.stringMatching(/already been used/) });
    expect(await lookupInvitation(deps, "no-such-token")).toMatchObject({ state: "invalid" });
  });

  it("only admins see and revoke invitations", async () => {
    const inv = await createInvitation(deps, owner, { role: "viewer" });
    const editor: Actor = { kind: "user", userId: "usr_x", organizationId: owner.organizationId, role: "editor", label: "user:editor" };
    await expect(listInvitations(deps, editor)).rejects.toMatchObject({ code: "forbidden" });
    await expect(revokeInvitation(deps, editor, inv.id)).rejects.toMatchObject({ code: "forbidden" });
    const elsewhere: Actor = { ...owner, organizationId: "org_other" };
    await expect(revokeInvitation(deps, elsewhere, inv.id)).rejects.toMatchObject({ code: "not_found" });
    expect(await lookupInvitation(deps, tokenOf(inv))).toMatchObject({ state: "pending" });
  });
});

describe("revoking an invitation", () => {
  it("kills the link: it answers 'revoked', cannot be accepted, and leaves the pending list", async () => {
    const inv = await createInvitation(deps, owner, { role: "admin", email: "leaked@example.com" });
    await revokeInvitation(deps, owner, inv.id);

    const found = await lookupInvitation(deps, tokenOf(inv));
    expect(found).toEqual({ state: "revoked", message: expect.stringMatching(/revoked/) });
    await expect(acceptInvitation(deps, { token: tokenOf(inv), email: "leaked@example.com", password: PASSWORD })).rejects.toMatchObject({
      code: "not_found",
      message: expect.stringMatching(/revoked/),
    });
    expect(await deps.store.users.findByEmail("leaked@example.com")).toBeUndefined();
    expect((await listInvitations(deps, owner)).map((r) => r.id)).not.toContain(inv.id);

    const [row] = await deps.sql<{ revokedBy: string }>('select revoked_by as "revokedBy" from invitations where id = ?', inv.id);
    expect(row!.revokedBy).toBe("user:owner@example.com");
    const audit = await deps.sql<{ action: string }>("select action from audit_log where target = ?", inv.id);
    expect(audit.map((a) => a.action)).toEqual(expect.arrayContaining(["member.invite", "member.invite.revoke"]));

    // Revoking again is harmless (a double click, two admins): still revoked, one audit entry.
    await revokeInvitation(deps, owner, inv.id);
    const revokes = await deps.sql<{ action: string }>("select action from audit_log where target = ? and action = 'member.invite.revoke'", inv.id);
    expect(revokes).toHaveLength(1);
  });

  it("refuses to revoke a used invitation (the member is removed instead)", async () => {
    const inv = await createInvitation(deps, owner, { role: "viewer" });
    await acceptInvitation(deps, { token: tokenOf(inv), email: "member2@example.com", password: PASSWORD });
    await expect(revokeInvitation(deps, owner, inv.id)).rejects.toMatchObject({ code: "conflict", message: expect.stringMatching(/already been used/) });
    expect(await lookupInvitation(deps, tokenOf(inv))).toMatchObject({ state: "used" });
  });

  it("racing an accept: either the member joins or the link is revoked, never both", async () => {
    for (let i = 0; i < 4; i++) {
      const inv = await createInvitation(deps, owner, { role: "viewer" });
      const email = `racer-revoke${i}@example.com`;
      const [accepted, revoked] = await Promise.allSettled([
        acceptInvitation(deps, { token: tokenOf(inv), email, password: PASSWORD }),
        revokeInvitation(deps, owner, inv.id),
      ]);
      const joined = (await deps.store.users.findByEmail(email)) !== undefined;
      const state = (await lookupInvitation(deps, tokenOf(inv))).state;
      expect(joined).toBe(accepted.status === "fulfilled");
      expect(state).toBe(joined ? "used" : "revoked");
      expect(revoked.status).toBe(joined ? "rejected" : "fulfilled");
    }
  });
});
