/**
 * Credentials sign-in with rate limiting: at most 10 failed attempts per email and per client
 * address in 15 minutes; further attempts are refused without checking the password.
 */
import type { AppDeps } from "../../deps";
import { verifyPassword } from "../../auth/password";

const WINDOW_MS = 15 * 60 * 1000;
const MAX_FAILURES = 10;

export type SignInResult =
  | { ok: true; user: { id: string; email: string; name: string } }
  | { ok: false; reason: "invalid" | "rate_limited" };

async function failures({ store, now }: AppDeps, subject: string): Promise<number> {
  return store.users.failuresSince(subject, now().getTime() - WINDOW_MS);
}

export async function signInWithPassword(deps: AppDeps, input: { email: string; password: string; clientAddress?: string }): Promise<SignInResult> {
  const email = input.email.trim().toLowerCase();
  const subjects = [`email:${email}`, ...(input.clientAddress ? [`ip:${input.clientAddress}`] : [])];
  for (const s of subjects) if ((await failures(deps, s)) >= MAX_FAILURES) return { ok: false, reason: "rate_limited" };
  const user = await deps.store.users.findByEmail(email);
  const member = user ? await deps.store.users.membership(user.id) : undefined;
  // Verify even when the user is unknown so timing does not reveal which emails exist.
  const ok = await verifyPassword(input.password, user?.passwordHash ?? "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
  const at = deps.now().getTime();
  const success = Boolean(ok && user && member);
  await deps.store.users.recordSignInAttempts(subjects.map((subject) => ({ subject, at, ok: success })));
  if (!success || !user) return { ok: false, reason: "invalid" };
  await deps.store.users.touchSignIn(user.id, new Date(at).toISOString());
  return { ok: true, user: { id: user.id, email: user.email, name: user.name } };
}
