/** Members and invitations (admins invite by link; the link is shown once, stored hashed, 7 days). */
import { createHash } from "node:crypto";
import type { InvitationRow } from "@/db/types";
import type { AppDeps } from "../../deps";
import { assertCan, type Actor, type Role } from "../../auth/permissions";
import { AppError } from "../../errors";
import { newId, newToken } from "../../ids";
import { hashPassword, MIN_PASSWORD_LENGTH } from "../../auth/password";
import { recordAudit } from "../audit/record-audit";

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
export type InviteRole = Exclude<Role, "owner">;

export async function listMembers({ store }: AppDeps, actor: Actor) {
  assertCan(actor, "member.read");
  return store.users.listMembers(actor.organizationId!);
}

export async function createInvitation(deps: AppDeps, actor: Actor, input: { role: InviteRole; email?: string }) {
  assertCan(actor, "member.manage");
  const token = newToken();
  const now = deps.now();
  const row = {
    id: newId("inv"),
    organizationId: actor.organizationId!,
    email: input.email?.trim().toLowerCase() || null,
    role: input.role,
    tokenHash: sha256(token),
    createdBy: actor.label,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + 7 * 24 * 3600 * 1000).toISOString(),
  };
  await deps.store.tx(async (s) => {
    await s.users.insertInvitation(row);
    await recordAudit(s, { organizationId: row.organizationId, actor: actor.label, action: "member.invite", target: row.id, data: { role: row.role } });
  });
  return { id: row.id, url: `${deps.publicUrl}/invite/${token}`, expiresAt: row.expiresAt, role: row.role };
}

/** Why a link does not (or no longer) work; "pending" links can be accepted. */
export type InvitationState = "pending" | "used" | "revoked" | "expired" | "invalid";

const CLOSED_LINK: Record<Exclude<InvitationState, "pending">, string> = {
  invalid: "This invitation link is not valid. Check that it was copied whole, or ask an admin for a new one.",
  used: "This invitation link has already been used. Sign in instead, or ask an admin for a new one.",
  revoked: "This invitation was revoked by an admin and can no longer be used. Ask an admin for a new one.",
  expired: "This invitation link has expired. Ask an admin for a new one.",
};

function stateOf(inv: InvitationRow | undefined, nowIso: string): InvitationState {
  if (!inv) return "invalid";
  if (inv.revokedAt) return "revoked";
  if (inv.acceptedAt) return "used";
  return inv.expiresAt > nowIso ? "pending" : "expired";
}

/** What the invite page shows for a token: the pending invitation, or the reason the link is closed. */
export async function lookupInvitation(
  deps: AppDeps,
  token: string,
): Promise<{ state: "pending"; invitation: InvitationRow } | { state: Exclude<InvitationState, "pending">; message: string }> {
  const inv = await deps.store.users.findInvitationByTokenHash(sha256(token));
  const state = stateOf(inv, deps.now().toISOString());
  return state === "pending" ? { state, invitation: inv! } : { state, message: CLOSED_LINK[state] };
}

/** Pending invitations for the Settings list. The links themselves are not returned: only their hash is stored. */
export async function listInvitations(deps: AppDeps, actor: Actor) {
  assertCan(actor, "member.manage");
  const rows = await deps.store.users.listOpenInvitations(actor.organizationId!, deps.now().toISOString());
  return rows.map((r) => ({ id: r.id, email: r.email, role: r.role, createdBy: r.createdBy, createdAt: r.createdAt, expiresAt: r.expiresAt }));
}

/** Revokes a pending invitation: its link then answers "revoked" and cannot be accepted. */
export async function revokeInvitation(deps: AppDeps, actor: Actor, invitationId: string) {
  assertCan(actor, "member.manage");
  const inv = await deps.store.users.getInvitation(invitationId);
  if (!inv || inv.organizationId !== actor.organizationId) throw new AppError("not_found", `Invitation ${invitationId} not found.`);
  const now = deps.now().toISOString();
  await deps.store.tx(async (s) => {
    // Conditional update: an accept racing this one either claims first (then this refuses) or finds it revoked.
    if (!(await s.users.revokeInvitation(inv.id, actor.label, now))) {
      const state = stateOf(await s.users.getInvitation(inv.id), now);
      if (state === "revoked") return; // already revoked: the outcome the caller wanted
      throw new AppError(
        "conflict",
        state === "used" ? "This invitation has already been used; remove the member instead." : "This invitation has already expired.",
      );
    }
    await recordAudit(s, { organizationId: inv.organizationId, actor: actor.label, action: "member.invite.revoke", target: inv.id, data: { role: inv.role } });
  });
}

export async function acceptInvitation(deps: AppDeps, input: { token: string; email: string; password: string; name?: string }) {
  const found = await lookupInvitation(deps, input.token);
  if (found.state !== "pending") throw new AppError("not_found", found.message);
  const inv = found.invitation;
  const email = input.email.trim().toLowerCase();
  if (inv.email && inv.email !== email)
    throw new AppError("validation_failed", "This invitation is for another email address.", [{ path: "email", message: "Not the invited address" }]);
  if (input.password.length < MIN_PASSWORD_LENGTH) {
    throw new AppError("validation_failed", `The password needs at least ${MIN_PASSWORD_LENGTH} characters.`, [
      { path: "password", message: `At least ${MIN_PASSWORD_LENGTH} characters` },
    ]);
  }
  const passwordHash = await hashPassword(input.password);
  return deps.store.tx(async (s) => {
    if (await s.users.findByEmail(email)) throw new AppError("conflict", "An account with this email exists already; sign in instead.");
    const now = deps.now().toISOString();
    const user = { id: newId("usr"), email, name: input.name?.trim() || email.split("@")[0]!, passwordHash, createdAt: now, lastSignInAt: null };
    // Single use, atomically: of concurrent accepts exactly one claims the invitation (and none after a revoke).
    if (!(await s.users.claimInvitation(inv.id, user.id, now))) {
      const state = stateOf(await s.users.getInvitation(inv.id), now);
      throw new AppError("not_found", CLOSED_LINK[state === "pending" ? "used" : state]);
    }
    await s.users.insert(user);
    await s.users.insertMembership({ organizationId: inv.organizationId, userId: user.id, role: inv.role, createdAt: now });
    await recordAudit(s, { organizationId: inv.organizationId, actor: `user:${email}`, action: "member.join", target: user.id, data: { role: inv.role } });
    return { userId: user.id, email };
  });
}

export async function changeMemberRole(deps: AppDeps, actor: Actor, userId: string, role: InviteRole) {
  assertCan(actor, "member.manage");
  const member = await deps.store.users.membership(userId);
  if (!member || member.organizationId !== actor.organizationId) throw new AppError("not_found", `Member ${userId} not found.`);
  if (member.role === "owner") throw new AppError("conflict", "The owner's role cannot be changed.");
  await deps.store.tx(async (s) => {
    await s.users.setRole(userId, role);
    await recordAudit(s, { organizationId: member.organizationId, actor: actor.label, action: "member.role", target: userId, data: { role } });
  });
}

export async function removeMember(deps: AppDeps, actor: Actor, userId: string) {
  assertCan(actor, "member.manage");
  const member = await deps.store.users.membership(userId);
  if (!member || member.organizationId !== actor.organizationId) throw new AppError("not_found", `Member ${userId} not found.`);
  if (member.role === "owner") throw new AppError("conflict", "The owner cannot be removed.");
  await deps.store.tx(async (s) => {
    await s.users.delete(userId);
    await recordAudit(s, { organizationId: member.organizationId, actor: actor.label, action: "member.remove", target: userId });
  });
}
