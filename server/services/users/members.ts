/** Members and invitations (admins invite by link; the link is shown once, stored hashed, 7 days). */
import { createHash } from "node:crypto";
import type { AppDeps } from "../../deps";
import { assertCan, type Actor, type Role } from "../../auth/permissions";
import { AppError } from "../../errors";
import { newId, newToken, nowIso } from "../../ids";
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

export async function findInvitation(deps: AppDeps, token: string) {
  return deps.store.users.findOpenInvitation(sha256(token), deps.now().toISOString());
}

export async function acceptInvitation(deps: AppDeps, input: { token: string; email: string; password: string; name?: string }) {
  const inv = await findInvitation(deps, input.token);
  if (!inv) throw new AppError("not_found", "This invitation link is invalid, used or expired. Ask an admin for a new one.");
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
    const now = nowIso();
    const user = { id: newId("usr"), email, name: input.name?.trim() || email.split("@")[0]!, passwordHash, createdAt: now, lastSignInAt: null };
    // Single use, atomically: of concurrent accepts exactly one claims the invitation.
    if (!(await s.users.claimInvitation(inv.id, user.id, now)))
      throw new AppError("not_found", "This invitation link is invalid, used or expired. Ask an admin for a new one.");
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
