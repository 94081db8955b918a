/** Users, memberships, invitations and sign-in attempts (the organization's people). */
import { and, count, desc, eq, gt, isNull, sql } from "drizzle-orm";
import { first, type Ctx } from "../store-kit";
import type { InvitationRow, MembershipRow, UserRow } from "../types";

export const usersStore = {
  /**
   * Serialises first-run set-ups until the calling transaction ends: without it, concurrent set-ups on
   * PostgreSQL (READ COMMITTED) each counted no owner and each created an organization and an owner.
   * SQLite transactions are serialised already (one writer).
   */
  async lockFirstRun(c: Ctx): Promise<void> {
    if (!c.inTx) throw new Error("lockFirstRun must run inside a transaction");
    if (c.dialect !== "postgres") return;
    await (c.h as unknown as { execute(q: ReturnType<typeof sql>): Promise<unknown> }).execute(sql`select pg_advisory_xact_lock(hashtext('conveyor.first-run'))`);
  },

  async ownerCount(c: Ctx): Promise<number> {
    const { memberships } = c.t;
    return (await first(c.h.select({ n: count() }).from(memberships).where(eq(memberships.role, "owner"))))?.n ?? 0;
  },

  async get(c: Ctx, userId: string): Promise<UserRow | undefined> {
    const { users } = c.t;
    return first(c.h.select().from(users).where(eq(users.id, userId)).limit(1));
  },

  async findByEmail(c: Ctx, email: string): Promise<UserRow | undefined> {
    const { users } = c.t;
    return first(c.h.select().from(users).where(eq(users.email, email)).limit(1));
  },

  async insert(c: Ctx, row: UserRow): Promise<void> {
    await c.h.insert(c.t.users).values(row);
  },

  async delete(c: Ctx, userId: string): Promise<void> {
    const { users } = c.t;
    await c.h.delete(users).where(eq(users.id, userId));
  },

  async touchSignIn(c: Ctx, userId: string, at: string): Promise<void> {
    const { users } = c.t;
    await c.h.update(users).set({ lastSignInAt: at }).where(eq(users.id, userId));
  },

  async membership(c: Ctx, userId: string): Promise<MembershipRow | undefined> {
    const { memberships } = c.t;
    return first(c.h.select().from(memberships).where(eq(memberships.userId, userId)).limit(1));
  },

  async insertMembership(c: Ctx, row: MembershipRow): Promise<void> {
    await c.h.insert(c.t.memberships).values(row);
  },

  async setRole(c: Ctx, userId: string, role: MembershipRow["role"]): Promise<void> {
    const { memberships } = c.t;
    await c.h.update(memberships).set({ role }).where(eq(memberships.userId, userId));
  },

  async listMembers(c: Ctx, organizationId: string) {
    const { memberships, users } = c.t;
    return c.h
      .select({
        userId: users.id,
        email: users.email,
        name: users.name,
        role: memberships.role,
        since: memberships.createdAt,
        lastSignInAt: users.lastSignInAt,
      })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(eq(memberships.organizationId, organizationId));
  },

  async insertInvitation(c: Ctx, row: Omit<InvitationRow, "acceptedAt" | "acceptedBy" | "revokedAt" | "revokedBy">): Promise<void> {
    await c.h.insert(c.t.invitations).values({ ...row, acceptedAt: null, acceptedBy: null, revokedAt: null, revokedBy: null });
  },

  /** An invitation by token hash whatever its state (the invite page says why a link no longer works). */
  async findInvitationByTokenHash(c: Ctx, tokenHash: string): Promise<InvitationRow | undefined> {
    const { invitations } = c.t;
    return first(c.h.select().from(invitations).where(eq(invitations.tokenHash, tokenHash)).limit(1));
  },

  async getInvitation(c: Ctx, id: string): Promise<InvitationRow | undefined> {
    const { invitations } = c.t;
    return first(c.h.select().from(invitations).where(eq(invitations.id, id)).limit(1));
  },

  /** The organization's pending invitations (not used, revoked or expired), newest first. */
  async listOpenInvitations(c: Ctx, organizationId: string, nowIso: string): Promise<InvitationRow[]> {
    const { invitations } = c.t;
    return c.h
      .select()
      .from(invitations)
      .where(and(eq(invitations.organizationId, organizationId), open(invitations, nowIso)))
      .orderBy(desc(invitations.createdAt), desc(invitations.id));
  },

  /** Marks the invitation used unless it already is (or is revoked or expired), atomically: true for exactly one caller however many race. */
  async claimInvitation(c: Ctx, id: string, userId: string, nowIso: string): Promise<boolean> {
    const { invitations } = c.t;
    const rows = await c.h
      .update(invitations)
      .set({ acceptedAt: nowIso, acceptedBy: userId })
      .where(and(eq(invitations.id, id), open(invitations, nowIso)))
      .returning({ id: invitations.id });
    return rows.length === 1;
  },

  /** Revokes the invitation if it is still pending, atomically against a concurrent accept: true if this call revoked it. */
  async revokeInvitation(c: Ctx, id: string, by: string, nowIso: string): Promise<boolean> {
    const { invitations } = c.t;
    const rows = await c.h
      .update(invitations)
      .set({ revokedAt: nowIso, revokedBy: by })
      .where(and(eq(invitations.id, id), open(invitations, nowIso)))
      .returning({ id: invitations.id });
    return rows.length === 1;
  },

  /** Counts one sign-in attempt for `subject` (a new window when the last one ended); returns the count in the window. */
  /**
   * Counts one attempt against every subject in one transaction, in the order given, and returns
   * each count. Concurrent attempts queue on the first subject's row until commit, so all subjects
   * see the attempts in the same order (counted apart, the email's 10th could be the address's 11th).
   */
  async countSignInAttempts(c: Ctx, subjects: string[], nowMs: number, windowMs: number): Promise<number[]> {
    return c.tx(async (x) => {
      const out: number[] = [];
      for (const s of subjects) out.push(await usersStore.countSignInAttempt(x, s, nowMs, windowMs));
      return out;
    });
  },

  async countSignInAttempt(c: Ctx, subject: string, nowMs: number, windowMs: number): Promise<number> {
    const { signInLimits: l } = c.t;
    const expired = sql`${l.windowStart} <= ${nowMs - windowMs}`;
    const [row] = await c.h
      .insert(l)
      .values({ subject, windowStart: nowMs, attempts: 1 })
      .onConflictDoUpdate({
        target: l.subject,
        set: {
          attempts: sql`case when ${expired} then 1 else ${l.attempts} + 1 end`,
          windowStart: sql`case when ${expired} then ${nowMs} else ${l.windowStart} end`,
        },
      })
      .returning({ attempts: l.attempts });
    return row?.attempts ?? 1;
  },

  /** After a success: the email starts afresh, the address gets its attempt back. */
  async settleSignInSuccess(c: Ctx, emailSubject: string, addressSubject?: string): Promise<void> {
    const { signInLimits: l } = c.t;
    await c.h.delete(l).where(eq(l.subject, emailSubject));
    if (addressSubject)
      await c.h
        .update(l)
        .set({ attempts: sql`case when ${l.attempts} > 0 then ${l.attempts} - 1 else 0 end` })
        .where(eq(l.subject, addressSubject));
  },
};

/** Pending: neither used nor revoked, and not expired at `nowIso`. */
function open(invitations: Ctx["t"]["invitations"], nowIso: string) {
  return and(isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, nowIso));
}
