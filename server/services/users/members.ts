/** Members and invitations (admins invite by link; the link is shown once, stored hashed, 7 days). */
import { createHash } from "node:crypto";
import { and, eq, gt, isNull } from "drizzle-orm";
import { invitations, memberships, users } from "@/db/schema";
import { transaction, type Db } from "@/db/client";
import type { AppDeps } from "../../deps";
import { assertCan, type Actor, type Role } from "../../auth/permissions";
import { AppError } from "../../errors";
import { newId, newToken, nowIso } from "../../ids";
import { hashPassword, MIN_PASSWORD_LENGTH } from "../../auth/password";
import { recordAudit } from "../audit/record-audit";

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
export type InviteRole = Exclude<Role, "owner">;

export async function listMembers({ db }: AppDeps, actor: Actor) {
  assertCan(actor, "member.read");
  return db
    .select({ userId: users.id, email: users.email, name: users.name, role: memberships.role, since: memberships.createdAt, lastSignInAt: users.lastSignInAt })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.organizationId, actor.organizationId!));
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
  transaction(deps.db, (tx) => {
    tx.insert(invitations).values(row).run();
    recordAudit(tx, { organizationId: row.organizationId, actor: actor.label, action: "member.invite", target: row.id, data: { role: row.role } });
  });
  return { id: row.id, url: `${deps.publicUrl}/invite/${token}`, expiresAt: row.expiresAt, role: row.role };
}

export async function findInvitation(deps: AppDeps, token: string) {
  return deps.db.query.invitations.findFirst({
    where: and(eq(invitations.tokenHash, sha256(token)), isNull(invitations.acceptedAt), gt(invitations.expiresAt, deps.now().toISOString())),
  });
}

export async function acceptInvitation(deps: AppDeps, input: { token: string; email: string; password: string; name?: string }) {
  const inv = await findInvitation(deps, input.token);
  if (!inv) throw new AppError("not_found", "This invitation link is invalid, used or expired. Ask an admin for a new one.");
  const email = input.email.trim().toLowerCase();
  if (inv.email && inv.email !== email) throw new AppError("validation_failed", "This invitation is for another email address.", [{ path: "email", message: "Not the invited address" }]);
  if (input.password.length < MIN_PASSWORD_LENGTH) {
    throw new AppError("validation_failed", `The password needs at least ${MIN_PASSWORD_LENGTH} characters.`, [{ path: "password", message: `At least ${MIN_PASSWORD_LENGTH} characters` }]);
  }
  const passwordHash = await hashPassword(input.password);
  return transaction(deps.db, (tx) => {
    const now = nowIso();
    const user = { id: newId("usr"), email, name: input.name?.trim() || email.split("@")[0]!, passwordHash, createdAt: now };
    // Single use, atomically: of concurrent accepts only the one whose guarded update changed the row goes on.
    if (!claimInvitation(tx, inv.id, user.id, now)) throw new AppError("not_found", "This invitation link is invalid, used or expired. Ask an admin for a new one.");
    if (tx.select().from(users).where(eq(users.email, email)).get()) {
      throw new AppError("conflict", "An account with this email exists already; sign in instead.");
    }
    tx.insert(users).values(user).run();
    tx.insert(memberships).values({ organizationId: inv.organizationId, userId: user.id, role: inv.role, createdAt: now }).run();
    recordAudit(tx, { organizationId: inv.organizationId, actor: `user:${email}`, action: "member.join", target: user.id, data: { role: inv.role } });
    return { userId: user.id, email };
  });
}

/** Marks the invitation used unless it already is (or expired); true when this call claimed it. */
export function claimInvitation(tx: Db, invitationId: string, userId: string, at: string): boolean {
  const res = tx
    .update(invitations)
    .set({ acceptedAt: at, acceptedBy: userId })
    .where(and(eq(invitations.id, invitationId), isNull(invitations.acceptedAt), gt(invitations.expiresAt, at)))
    .run();
  return res.changes === 1;
}

export async function changeMemberRole(deps: AppDeps, actor: Actor, userId: string, role: InviteRole) {
  assertCan(actor, "member.manage");
  const member = await deps.db.query.memberships.findFirst({ where: eq(memberships.userId, userId) });
  if (!member || member.organizationId !== actor.organizationId) throw new AppError("not_found", `Member ${userId} not found.`);
  if (member.role === "owner") throw new AppError("conflict", "The owner's role cannot be changed.");
  transaction(deps.db, (tx) => {
    tx.update(memberships).set({ role }).where(eq(memberships.userId, userId)).run();
    recordAudit(tx, { organizationId: member.organizationId, actor: actor.label, action: "member.role", target: userId, data: { role } });
  });
}

export async function removeMember(deps: AppDeps, actor: Actor, userId: string) {
  assertCan(actor, "member.manage");
  const member = await deps.db.query.memberships.findFirst({ where: eq(memberships.userId, userId) });
  if (!member || member.organizationId !== actor.organizationId) throw new AppError("not_found", `Member ${userId} not found.`);
  if (member.role === "owner") throw new AppError("conflict", "The owner cannot be removed.");
  transaction(deps.db, (tx) => {
    tx.delete(users).where(eq(users.id, userId)).run();
    recordAudit(tx, { organizationId: member.organizationId, actor: actor.label, action: "member.remove", target: userId });
  });
}
