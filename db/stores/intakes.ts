/**
 * Intakes: the public `/hooks/<token>` URLs. `trigger` intakes belong to one trigger node of an
 * automation, `shared` ones to a connection (one per shared key), `webhook` ones to a line.
 * (The ingress reads them on its own hot path.)
 */
import { and, asc, eq, gt, inArray, isNull, or, sql, type SQL } from "drizzle-orm";
import { first, type Ctx, type Optional } from "../store-kit";
import type { IntakeRow, KeyedRow, ManagedSource, RefusedDelivery } from "../types";

const sharedKeyOf = (r: IntakeRow) => (r.config as { sharedKey?: string } | null)?.sharedKey;

export const intakesStore = {
  async get(c: Ctx, workspaceId: string, intakeId: string): Promise<IntakeRow | undefined> {
    const { intakes } = c.t;
    return first(
      c.h
        .select()
        .from(intakes)
        .where(and(eq(intakes.id, intakeId), eq(intakes.workspaceId, workspaceId)))
        .limit(1),
    );
  },

  /** Oldest first, keyset-paginated by (createdAt, id). */
  async list(c: Ctx, workspaceId: string, opts: { limit: number; after?: { createdAt: string; id: string } | null }): Promise<IntakeRow[]> {
    const { intakes } = c.t;
    const conds: SQL[] = [eq(intakes.workspaceId, workspaceId)];
    const a = opts.after;
    if (a) conds.push(or(gt(intakes.createdAt, a.createdAt), and(eq(intakes.createdAt, a.createdAt), gt(intakes.id, a.id)))!);
    return c.h
      .select()
      .from(intakes)
      .where(and(...conds))
      .orderBy(asc(intakes.createdAt), asc(intakes.id))
      .limit(opts.limit);
  },

  /** The `trigger` intakes of these automations. */
  async triggersOf(c: Ctx, automationIds: string[]): Promise<IntakeRow[]> {
    if (!automationIds.length) return [];
    const { intakes } = c.t;
    return c.h
      .select()
      .from(intakes)
      .where(and(inArray(intakes.automationId, automationIds), eq(intakes.kind, "trigger")))
      .orderBy(asc(intakes.createdAt), asc(intakes.id));
  },

  /** The `shared` intakes of these connections. */
  async sharedOf(c: Ctx, connectionIds: string[]): Promise<IntakeRow[]> {
    if (!connectionIds.length) return [];
    const { intakes } = c.t;
    return c.h
      .select()
      .from(intakes)
      .where(and(inArray(intakes.connectionId, connectionIds), eq(intakes.kind, "shared")))
      .orderBy(asc(intakes.createdAt), asc(intakes.id));
  },

  /** The intake of one trigger node. */
  async ofNode(c: Ctx, automationId: string, nodeId: string): Promise<IntakeRow | undefined> {
    const { intakes } = c.t;
    return first(
      c.h
        .select()
        .from(intakes)
        .where(and(eq(intakes.automationId, automationId), eq(intakes.nodeId, nodeId)))
        .limit(1),
    );
  },

  /**
   * The connection's `shared` intake for `row.config.sharedKey`, inserting `row` when there is none.
   * Atomic: the connection row is locked first (a guarded no-op UPDATE), so concurrent saves of
   * automations on one connection create one shared intake, not one each.
   */
  async ensureShared(c: Ctx, row: Optional<IntakeRow, "key" | "source"> & { connectionId: string }): Promise<IntakeRow> {
    const { intakes, connections } = c.t;
    const full: IntakeRow & { connectionId: string } = { key: null, source: null, ...row };
    const key = sharedKeyOf(full);
    return c.tx(async (x) => {
      await x.h
        .update(connections)
        .set({ tokenVersion: sql`${connections.tokenVersion}` })
        .where(eq(connections.id, full.connectionId));
      const rows = await x.h
        .select()
        .from(intakes)
        .where(and(eq(intakes.connectionId, row.connectionId), eq(intakes.kind, "shared")))
        .orderBy(asc(intakes.createdAt), asc(intakes.id));
      const found = rows.find((r) => sharedKeyOf(r) === key);
      if (found) return found;
      await x.h.insert(intakes).values(full);
      return full;
    });
  },

  /** `key` and `source` default to null. */
  async insert(c: Ctx, row: Optional<IntakeRow, "key" | "source">): Promise<void> {
    await c.h.insert(c.t.intakes).values(row);
  },

  /** The workspace's `webhook` intakes (the ones automations-as-code manages), oldest first. */
  async webhooksOf(c: Ctx, workspaceId: string): Promise<IntakeRow[]> {
    const { intakes } = c.t;
    return c.h
      .select()
      .from(intakes)
      .where(and(eq(intakes.workspaceId, workspaceId), eq(intakes.kind, "webhook")))
      .orderBy(asc(intakes.createdAt), asc(intakes.id));
  },

  /** Id, key, name and creation time of the workspace's `webhook` intakes. */
  async webhookKeys(c: Ctx, workspaceId: string): Promise<KeyedRow[]> {
    const { intakes: i } = c.t;
    return c.h
      .select({ id: i.id, key: i.key, name: i.name, createdAt: i.createdAt })
      .from(i)
      .where(and(eq(i.workspaceId, workspaceId), eq(i.kind, "webhook")));
  },

  /** Stores `key` on an intake that has none yet; false when it has one (or is gone). */
  async setKeyIfUnset(c: Ctx, intakeId: string, key: string): Promise<boolean> {
    const { intakes: i } = c.t;
    return (
      (
        await c.h
          .update(i)
          .set({ key })
          .where(and(eq(i.id, intakeId), isNull(i.key)))
          .returning({ id: i.id })
      ).length > 0
    );
  },

  /**
   * Adds `count` refused deliveries and keeps `last` as the latest one. Does not touch updatedAt
   * (the intake's settings did not change).
   */
  async noteRefused(c: Ctx, intakeId: string, last: RefusedDelivery, count: number): Promise<void> {
    const { intakes: i } = c.t;
    await c.h
      .update(i)
      .set({ refusedCount: sql`${i.refusedCount} + ${count}`, lastRefused: last })
      .where(eq(i.id, intakeId));
  },

  /** Where the intake was last applied from. Does not touch updatedAt. */
  async setSource(c: Ctx, intakeId: string, source: ManagedSource | null): Promise<void> {
    const { intakes: i } = c.t;
    await c.h.update(i).set({ source }).where(eq(i.id, intakeId));
  },

  async update(c: Ctx, intakeId: string, patch: Partial<Omit<IntakeRow, "id" | "workspaceId" | "token">>): Promise<void> {
    const { intakes } = c.t;
    await c.h.update(intakes).set(patch).where(eq(intakes.id, intakeId));
  },

  /** Status of one trigger node's intake (after its upstream set-up). */
  async setNodeStatus(c: Ctx, automationId: string, nodeId: string, patch: Pick<IntakeRow, "status" | "statusMessage" | "updatedAt">): Promise<void> {
    const { intakes } = c.t;
    await c.h
      .update(intakes)
      .set(patch)
      .where(and(eq(intakes.automationId, automationId), eq(intakes.nodeId, nodeId)));
  },

  async delete(c: Ctx, intakeIds: string[]): Promise<void> {
    if (!intakeIds.length) return;
    const { intakes } = c.t;
    await c.h.delete(intakes).where(inArray(intakes.id, intakeIds));
  },
};
