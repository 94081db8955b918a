/**
 * Intakes: the public `/hooks/<token>` URLs. `trigger` intakes belong to one trigger node of an
 * automation, `shared` ones to a connection (one per shared key), `webhook` ones to a line.
 * (The ingress reads them on its own hot path.)
 */
import { and, asc, eq, gt, inArray, or, sql, type SQL } from "drizzle-orm";
import { first, type Ctx } from "../store-kit";
import type { IntakeRow } from "../types";

const sharedKeyOf = (r: IntakeRow) => (r.config as { sharedKey?: string } | null)?.sharedKey;

export const intakesStore = {
  async get(c: Ctx, workspaceId: string, intakeId: string): Promise<IntakeRow | undefined> {
    const { intakes } = c.t;
    return first(c.h.select().from(intakes).where(and(eq(intakes.id, intakeId), eq(intakes.workspaceId, workspaceId))).limit(1));
  },

  /** Oldest first, keyset-paginated by (createdAt, id). */
  async list(c: Ctx, workspaceId: string, opts: { limit: number; after?: { createdAt: string; id: string } | null }): Promise<IntakeRow[]> {
    const { intakes } = c.t;
    const conds: SQL[] = [eq(intakes.workspaceId, workspaceId)];
    const a = opts.after;
    if (a) conds.push(or(gt(intakes.createdAt, a.createdAt), and(eq(intakes.createdAt, a.createdAt), gt(intakes.id, a.id)))!);
    return c.h.select().from(intakes).where(and(...conds)).orderBy(asc(intakes.createdAt), asc(intakes.id)).limit(opts.limit);
  },

  /** The `trigger` intakes of these automations. */
  async triggersOf(c: Ctx, automationIds: string[]): Promise<IntakeRow[]> {
    if (!automationIds.length) return [];
    const { intakes } = c.t;
    return c.h.select().from(intakes).where(and(inArray(intakes.automationId, automationIds), eq(intakes.kind, "trigger"))).orderBy(asc(intakes.createdAt), asc(intakes.id));
  },

  /** The `shared` intakes of these connections. */
  async sharedOf(c: Ctx, connectionIds: string[]): Promise<IntakeRow[]> {
    if (!connectionIds.length) return [];
    const { intakes } = c.t;
    return c.h.select().from(intakes).where(and(inArray(intakes.connectionId, connectionIds), eq(intakes.kind, "shared"))).orderBy(asc(intakes.createdAt), asc(intakes.id));
  },

  /** The intake of one trigger node. */
  async ofNode(c: Ctx, automationId: string, nodeId: string): Promise<IntakeRow | undefined> {
    const { intakes } = c.t;
    return first(c.h.select().from(intakes).where(and(eq(intakes.automationId, automationId), eq(intakes.nodeId, nodeId))).limit(1));
  },

  /**
   * The connection's `shared` intake for `row.config.sharedKey`, inserting `row` when there is none.
   * Atomic: the connection row is locked first (a guarded no-op UPDATE), so concurrent saves of
   * automations on one connection create one shared intake, not one each.
   */
  async ensureShared(c: Ctx, row: IntakeRow & { connectionId: string }): Promise<IntakeRow> {
    const { intakes, connections } = c.t;
    const key = sharedKeyOf(row);
    return c.tx(async (x) => {
      await x.h.update(connections).set({ tokenVersion: sql`${connections.tokenVersion}` }).where(eq(connections.id, row.connectionId));
      const rows = await x.h.select().from(intakes).where(and(eq(intakes.connectionId, row.connectionId), eq(intakes.kind, "shared"))).orderBy(asc(intakes.createdAt), asc(intakes.id));
      const found = rows.find((r) => sharedKeyOf(r) === key);
      if (found) return found;
      await x.h.insert(intakes).values(row);
      return row;
    });
  },

  async insert(c: Ctx, row: IntakeRow): Promise<void> {
    await c.h.insert(c.t.intakes).values(row);
  },

  async update(c: Ctx, intakeId: string, patch: Partial<Omit<IntakeRow, "id" | "workspaceId" | "token">>): Promise<void> {
    const { intakes } = c.t;
    await c.h.update(intakes).set(patch).where(eq(intakes.id, intakeId));
  },

  /** Status of one trigger node's intake (after its upstream set-up). */
  async setNodeStatus(c: Ctx, automationId: string, nodeId: string, patch: Pick<IntakeRow, "status" | "statusMessage" | "updatedAt">): Promise<void> {
    const { intakes } = c.t;
    await c.h.update(intakes).set(patch).where(and(eq(intakes.automationId, automationId), eq(intakes.nodeId, nodeId)));
  },

  async delete(c: Ctx, intakeIds: string[]): Promise<void> {
    if (!intakeIds.length) return;
    const { intakes } = c.t;
    await c.h.delete(intakes).where(inArray(intakes.id, intakeIds));
  },
};
