/** Workspaces (tenant boundary) of the installation's organization. */
import { and, asc, eq, inArray, type SQL } from "drizzle-orm";
import { first, type Ctx } from "../store-kit";
import type { WorkspaceRow } from "../types";

export const workspacesStore = {
  async get(c: Ctx, workspaceId: string): Promise<WorkspaceRow | undefined> {
    const { workspaces } = c.t;
    return first(c.h.select().from(workspaces).where(eq(workspaces.id, workspaceId)).limit(1));
  },

  /** Oldest first; `onlyIds` limits to those ids (API keys limited to some workspaces). */
  async list(c: Ctx, organizationId: string | null, onlyIds?: string[] | null): Promise<WorkspaceRow[]> {
    const { workspaces } = c.t;
    const conds: SQL[] = [];
    if (organizationId) conds.push(eq(workspaces.organizationId, organizationId));
    if (onlyIds) conds.push(inArray(workspaces.id, onlyIds.length ? onlyIds : [""]));
    return c.h
      .select()
      .from(workspaces)
      .where(and(...conds))
      .orderBy(asc(workspaces.createdAt), asc(workspaces.id));
  },

  async insert(c: Ctx, row: WorkspaceRow): Promise<void> {
    await c.h.insert(c.t.workspaces).values(row);
  },

  async update(c: Ctx, workspaceId: string, patch: Partial<Pick<WorkspaceRow, "name" | "updatedAt">>): Promise<void> {
    const { workspaces } = c.t;
    await c.h.update(workspaces).set(patch).where(eq(workspaces.id, workspaceId));
  },

  async delete(c: Ctx, workspaceId: string): Promise<void> {
    const { workspaces } = c.t;
    await c.h.delete(workspaces).where(eq(workspaces.id, workspaceId));
  },
};
