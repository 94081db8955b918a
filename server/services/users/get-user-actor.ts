import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";

/** The Actor for a signed-in user (null when the user or membership no longer exists). */
export async function getUserActor({ store }: AppDeps, userId: string): Promise<(Actor & { kind: "user" }) | null> {
  const user = await store.users.get(userId);
  if (!user) return null;
  const member = await store.users.membership(userId);
  if (!member) return null;
  return { kind: "user", userId, organizationId: member.organizationId, role: member.role, label: `user:${user.email}` };
}
