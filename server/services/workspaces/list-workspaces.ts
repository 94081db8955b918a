import { and, asc, eq, inArray } from "drizzle-orm";
import { workspaces } from "@/db/schema";
import type { AppDeps } from "../../deps";
import { assertCan, type Actor } from "../../auth/permissions";

export async function listWorkspaces({ db }: AppDeps, actor: Actor) {
  assertCan(actor, "workspace.read");
  const conds = [];
  if (actor.organizationId) conds.push(eq(workspaces.organizationId, actor.organizationId));
  if (actor.kind === "apiKey" && actor.workspaceIds) conds.push(inArray(workspaces.id, actor.workspaceIds));
  return db.select().from(workspaces).where(and(...conds)).orderBy(asc(workspaces.createdAt), asc(workspaces.id));
}
