/**
 * First run: the organization and its owner. Refused once an owner exists (later users join by invitation).
 */
import type { Store } from "@/db/store";
import { AppError } from "../../errors";
import { newId, nowIso } from "../../ids";
import { hashPassword, MIN_PASSWORD_LENGTH } from "../../auth/password";
import type { AppDeps } from "../../deps";
import { createWorkspaceRow } from "../workspaces/create-workspace";
import { recordAudit } from "../audit/record-audit";

export async function hasOwner(store: Store): Promise<boolean> {
  return (await store.users.ownerCount()) > 0;
}

export async function getOrganization(store: Store) {
  return store.organizations.first();
}

export interface SetupOwnerInput {
  email: string;
  password: string;
  name?: string;
  organizationName?: string;
}

export async function setupOwner({ store }: AppDeps, input: SetupOwnerInput) {
  const email = input.email.trim().toLowerCase();
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) {
    throw new AppError("validation_failed", "Enter a valid email address.", [{ path: "email", message: "Invalid email" }]);
  }
  if (input.password.length < MIN_PASSWORD_LENGTH) {
    throw new AppError("validation_failed", `The password needs at least ${MIN_PASSWORD_LENGTH} characters.`, [
      { path: "password", message: `At least ${MIN_PASSWORD_LENGTH} characters` },
    ]);
  }
  const passwordHash = await hashPassword(input.password);
  return store.tx(async (s) => {
    await s.users.lockFirstRun(); // concurrent first visits: exactly one becomes the owner
    if ((await s.users.ownerCount()) > 0) throw new AppError("conflict", "An owner already exists; ask an admin for an invitation.");
    const now = nowIso();
    let org = await s.organizations.first();
    if (!org) {
      org = { id: newId("org"), name: input.organizationName ?? "My organization", createdAt: now };
      await s.organizations.insert(org);
    }
    const user = { id: newId("usr"), email, name: input.name ?? email.split("@")[0]!, passwordHash, createdAt: now, lastSignInAt: null };
    await s.users.insert(user);
    await s.users.insertMembership({ organizationId: org.id, userId: user.id, role: "owner", createdAt: now });
    const workspace = await createWorkspaceRow(s, org.id, "My workspace");
    await recordAudit(s, { organizationId: org.id, workspaceId: workspace.id, actor: `user:${email}`, action: "owner.setup", target: user.id });
    return { organization: org, user: { id: user.id, email: user.email, name: user.name }, workspace };
  });
}
