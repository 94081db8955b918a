/** Installation-wide settings an admin changes (key → JSON value), e.g. `egress`. */
import { eq } from "drizzle-orm";
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
};
