/**
 * First run: the organization and its owner. Refused once an owner exists (later users join by invitation).
 */
import { count, eq } from "drizzle-orm";
import { memberships, organizations, users } from "@/db/schema";
import type { Db } from "@/db/client";
import { transaction } from "@/db/client";
import { AppError } from "../../errors";
import { newId, nowIso } from "../../ids";
import { hashPassword, MIN_PASSWORD_LENGTH } from "../../auth/password";
import type { AppDeps } from "../../deps";
import { createWorkspaceRow } from "../workspaces/create-workspace";
import { recordAudit } from "../audit/record-audit";

export async function hasOwner(db: Db): Promise<boolean> {
  const [row] = await db.select({ n: count() }).from(memberships).where(eq(memberships.role, "owner"));
  return (row?.n ?? 0) > 0;
}

export async function getOrganization(db: Db) {
  return db.query.organizations.findFirst();
}

export interface SetupOwnerInput {
  email: string;
  password: string;
  name?: string;
  organizationName?: string;
}

export async function setupOwner({ db }: AppDeps, input: SetupOwnerInput) {
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
  return transaction(db, (tx) => {
    const owner = tx.select({ n: count() }).from(memberships).where(eq(memberships.role, "owner")).get();
    if ((owner?.n ?? 0) > 0) throw new AppError("conflict", "An owner already exists; ask an admin for an invitation.");
    const now = nowIso();
    let org = tx.select().from(organizations).get();
    if (!org) {
      org = { id: newId("org"), name: input.organizationName ?? "My organization", createdAt: now };
      tx.insert(organizations).values(org).run();
    }
    const user = { id: newId("usr"), email, name: input.name ?? email.split("@")[0]!, passwordHash, createdAt: now, lastSignInAt: null };
    tx.insert(users).values(user).run();
    tx.insert(memberships).values({ organizationId: org.id, userId: user.id, role: "owner", createdAt: now }).run();
    const workspace = createWorkspaceRow(tx, org.id, "My workspace");
    recordAudit(tx, { organizationId: org.id, workspaceId: workspace.id, actor: `user:${email}`, action: "owner.setup", target: user.id });
    return { organization: org, user: { id: user.id, email: user.email, name: user.name }, workspace };
  });
}
