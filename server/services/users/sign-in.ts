/**
 * Credentials sign-in with rate limiting: at most 10 failed attempts per email and per client
 * address in 15 minutes; further attempts are refused without checking the password.
 */
import { and, eq, gt, count } from "drizzle-orm";
import { memberships, signInAttempts, users } from "@/db/schema";
import type { AppDeps } from "../../deps";
import { verifyPassword } from "../../auth/password";

const WINDOW_MS = 15 * 60 * 1000;
const MAX_FAILURES = 10;

export type SignInResult =
  | { ok: true; user: { id: string; email: string; name: string } }
  | { ok: false; reason: "invalid" | "rate_limited" };

async function failures({ db, now }: AppDeps, subject: string): Promise<number> {
  const since = now().getTime() - WINDOW_MS;
  const [row] = await db
    .select({ n: count() })
    .from(signInAttempts)
    .where(and(eq(signInAttempts.subject, subject), eq(signInAttempts.ok, false), gt(signInAttempts.at, since)));
  return row?.n ?? 0;
}

export async function signInWithPassword(deps: AppDeps, input: { email: string; password: string; clientAddress?: string }): Promise<SignInResult> {
  const email = input.email.trim().toLowerCase();
  const subjects = [`email:${email}`, ...(input.clientAddress ? [`ip:${input.clientAddress}`] : [])];
  for (const s of subjects) if ((await failures(deps, s)) >= MAX_FAILURES) return { ok: false, reason: "rate_limited" };
  const user = await deps.db.query.users.findFirst({ where: eq(users.email, email) });
  const member = user ? await deps.db.query.memberships.findFirst({ where: eq(memberships.userId, user.id) }) : undefined;
  // Verify even when the user is unknown so timing does not reveal which emails exist.
  const ok = await verifyPassword(input.password, user?.passwordHash ?? "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
  const at = deps.now().getTime();
  const success = Boolean(ok && user && member);
  await deps.db.insert(signInAttempts).values(subjects.map((subject) => ({ subject, at, ok: success })));
  if (!success || !user) return { ok: false, reason: "invalid" };
  await deps.db.update(users).set({ lastSignInAt: new Date(at).toISOString() }).where(eq(users.id, user.id));
  return { ok: true, user: { id: user.id, email: user.email, name: user.name } };
}
