/** Automation heads and immutable versions, as the runner needs them (graphs are cached by the caller). */
import { and, eq } from "drizzle-orm";
import { first, type Ctx } from "../store-kit";
import type { AutomationRow, StoredGraph } from "../types";

export type AutomationHead = Pick<AutomationRow, "id" | "workspaceId" | "name" | "version" | "enabled" | "errorHandlerId" | "concurrency" | "updatedAt">;

export const versionsStore = {
  async graph(c: Ctx, automationId: string, version: number): Promise<StoredGraph | undefined> {
    const { automationVersions: v } = c.t;
    return (
      await first(
        c.h
          .select({ graph: v.graph })
          .from(v)
          .where(and(eq(v.automationId, automationId), eq(v.version, version)))
          .limit(1),
      )
    )?.graph;
  },

  async head(c: Ctx, automationId: string, workspaceId?: string): Promise<AutomationHead | undefined> {
    const { automations: a } = c.t;
    return first(
      c.h
        .select({
          id: a.id,
          workspaceId: a.workspaceId,
          name: a.name,
          version: a.version,
          enabled: a.enabled,
          errorHandlerId: a.errorHandlerId,
          concurrency: a.concurrency,
          updatedAt: a.updatedAt,
        })
        .from(a)
        .where(workspaceId ? and(eq(a.id, automationId), eq(a.workspaceId, workspaceId)) : eq(a.id, automationId))
        .limit(1),
    );
  },
};
