/** Installation-wide settings an admin changes (key → JSON value), e.g. `egress`. */
import { eq, isNotNull, sql } from "drizzle-orm";
import { first, type Ctx } from "../store-kit";
import type { SettingRow } from "../types";

export const settingsStore = {
  async get(c: Ctx, key: string): Promise<SettingRow | undefined> {
    const { settings } = c.t;
    return first(c.h.select().from(settings).where(eq(settings.key, key)).limit(1));
  },

  async put(c: Ctx, row: SettingRow): Promise<void> {
    const { settings } = c.t;
    await c.h
      .insert(settings)
      .values(row)
      .onConflictDoUpdate({ target: settings.key, set: { value: row.value, updatedAt: row.updatedAt, updatedBy: row.updatedBy } });
  },

  /**
   * One stored encrypted value (a connection's secrets or tokens, an intake's secret, a sealed node setting), or undefined
   * when there is none: lets a process check at start that its key is the one they were encrypted with.
   */
  async encryptedSample(c: Ctx): Promise<string | undefined> {
    const { connections, intakes } = c.t;
    const a = await first(c.h.select({ v: connections.secretsEnc }).from(connections).where(isNotNull(connections.secretsEnc)).limit(1));
    if (a?.v) return a.v;
    const b = await first(c.h.select({ v: connections.tokensEnc }).from(connections).where(isNotNull(connections.tokensEnc)).limit(1));
    if (b?.v) return b.v;
    const i = await first(c.h.select({ v: intakes.secretEnc }).from(intakes).where(isNotNull(intakes.secretEnc)).limit(1));
    if (i?.v) return i.v;
    // Sensitive node settings are sealed inside the graph as "secret:<sealed>" strings (server/services/automations/node-secrets.ts).
    const { automations } = c.t;
    const graphText = c.dialect === "postgres" ? sql<string>`${automations.graph}::text` : sql<string>`${automations.graph}`;
    const g = await first(c.h.select({ v: graphText }).from(automations).where(sql`${graphText} like '%"secret:%'`).limit(1));
    return (g?.v ? /"secret:([A-Za-z0-9._~+/=-]+)"/.exec(g.v)?.[1] : undefined) ?? undefined;
  },
};
