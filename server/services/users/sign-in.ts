/**
 * Credentials sign-in with rate limiting: at most 10 attempts per email and per client address in a
 * 15-minute window. Each attempt is counted atomically in SQL *before* the password is checked, so
 * 40 concurrent wrong passwords get 10 checks, not 40. A success clears the email's counter and
 * gives the address its attempt back. The client address is the trusted one (see
 * server/http/client-address.ts: X-Forwarded-For only from CONVEYOR_TRUST_PROXY).
 */
import { eq, sql } from "drizzle-orm";
import { memberships, signInLimits, users } from "@/db/schema";
import type { Db } from "@/db/client";
import type { AppDeps } from "../../deps";
import { verifyPassword } from "../../auth/password";

export const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
export const SIGN_IN_MAX_ATTEMPTS = 10;
const DUMMY_HASH = "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

export type SignInResult =
  | { ok: true; user: { id: string; email: string; name: string } }
  | { ok: false; reason: "invalid" | "rate_limited" };

/** Counts one attempt for `subject` (a new window when the last one ended) and returns the count in the window. */
export function countSignInAttempt(db: Db, subject: string, now: number): number {
  const expired = sql`${signInLimits.windowStart} <= ${now - SIGN_IN_WINDOW_MS}`;
  const row = db
    .insert(signInLimits)
    .values({ subject, windowStart: now, attempts: 1 })
    .onConflictDoUpdate({
      target: signInLimits.subject,
      set: {
        attempts: sql`case when ${expired} then 1 else ${signInLimits.attempts} + 1 end`,
        windowStart: sql`case when ${expired} then ${now} else ${signInLimits.windowStart} end`,
      },
    })
    .returning({ attempts: signInLimits.attempts })
    .get();
  return row?.attempts ?? 1;
}

/** After a success: the email starts afresh, the address gets its attempt back. */
export function settleSignInSuccess(db: Db, emailSubject: string, addressSubject?: string): void {
  db.delete(signInLimits).where(eq(signInLimits.subject, emailSubject)).run();
  if (addressSubject) db.update(signInLimits).set({ attempts: sql`max(${signInLimits.attempts} - 1, 0)` }).where(eq(signInLimits.subject, addressSubject)).run();
}

export async function signInWithPassword(deps: AppDeps, input: { email: string; password: string; clientAddress?: string }): Promise<SignInResult> {
  const email = input.email.trim().toLowerCase().slice(0, 320);
  const emailSubject = `email:${email}`;
  const addressSubject = input.clientAddress ? `ip:${input.clientAddress}` : undefined;
  const at = deps.now().getTime();
  // Count first, compare after: every subject is counted even when another one is already over.
  const counts = [emailSubject, ...(addressSubject ? [addressSubject] : [])].map((s) => countSignInAttempt(deps.db, s, at));
  if (counts.some((n) => n > SIGN_IN_MAX_ATTEMPTS)) return { ok: false, reason: "rate_limited" };
  const user = await deps.db.query.users.findFirst({ where: eq(users.email, email) });
  const member = user ? await deps.db.query.memberships.findFirst({ where: eq(memberships.userId, user.id) }) : undefined;
  // Verify even when the user is unknown so timing does not reveal which emails exist.
  const ok = await verifyPassword(input.password, user?.passwordHash ?? DUMMY_HASH);
  if (!ok || !user || !member) return { ok: false, reason: "invalid" };
  settleSignInSuccess(deps.db, emailSubject, addressSubject);
  await deps.db.update(users).set({ lastSignInAt: new Date(at).toISOString() }).where(eq(users.id, user.id));
  return { ok: true, user: { id: user.id, email: user.email, name: user.name } };
}
