/** The installation's organization (one per installation). */
import { asc, eq } from "drizzle-orm";
import { first, type Ctx } from "../store-kit";
import type { OrganizationRow } from "../types";

export const organizationsStore = {
  /** The organization, or undefined before the owner is set up. */
  async first(c: Ctx): Promise<OrganizationRow | undefined> {
    const { organizations } = c.t;
    return first(c.h.select().from(organizations).orderBy(asc(organizations.createdAt)).limit(1));
  },

  async get(c: Ctx, id: string): Promise<OrganizationRow | undefined> {
    const { organizations } = c.t;
    return first(c.h.select().from(organizations).where(eq(organizations.id, id)).limit(1));
  },

  async insert(c: Ctx, row: OrganizationRow): Promise<void> {
    await c.h.insert(c.t.organizations).values(row);
  },
};
