import { eq } from "drizzle-orm";
import { memberships, users } from "@/db/schema";
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";

/** The Actor for a signed-in user (null when the user or membership no longer exists). */
export async function getUserActor({ db }: AppDeps, userId: string): Promise<(Actor & { kind: "user" }) | null> {
  const user = await db.query.users.findFirst({ where: eq(users.id, userId) });
  if (!user) return null;
  const member = await db.query.memberships.findFirst({ where: eq(memberships.userId, userId) });
  if (!member) return null;
  return { kind: "user", userId, organizationId: member.organizationId, role: member.role, label: `user:${user.email}` };
}
