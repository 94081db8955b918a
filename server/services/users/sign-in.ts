/**
 * Credentials sign-in with rate limiting: at most 10 attempts per email and per client address in a
 * 15-minute window. Each attempt is counted atomically in SQL *before* the password is checked, so
 * 40 concurrent wrong passwords get 10 checks, not 40. A success clears the email's counter and
 * gives the address its attempt back. The client address is the trusted one (see
 * server/http/client-address.ts: X-Forwarded-For only from CONVEYOR_TRUST_PROXY).
 */
import type { AppDeps } from "../../deps";
import { verifyPassword } from "../../auth/password";

export const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
export const SIGN_IN_MAX_ATTEMPTS = 10;
const DUMMY_HASH = "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

export type SignInResult = { ok: true; user: { id: string; email: string; name: string } } | { ok: false; reason: "invalid" | "rate_limited" };

export async function signInWithPassword(deps: AppDeps, input: { email: string; password: string; clientAddress?: string }): Promise<SignInResult> {
  const email = input.email.trim().toLowerCase().slice(0, 320);
  const emailSubject = `email:${email}`;
  const addressSubject = input.clientAddress ? `ip:${input.clientAddress}` : undefined;
  const at = deps.now().getTime();
  // Count first, compare after: every subject is counted even when another one is already over.
  const counts = await deps.store.users.countSignInAttempts([emailSubject, ...(addressSubject ? [addressSubject] : [])], at, SIGN_IN_WINDOW_MS);
  if (counts.some((n) => n > SIGN_IN_MAX_ATTEMPTS)) return { ok: false, reason: "rate_limited" };
  const user = await deps.store.users.findByEmail(email);
  const member = user ? await deps.store.users.membership(user.id) : undefined;
  // Verify even when the user is unknown so timing does not reveal which emails exist.
  const ok = await verifyPassword(input.password, user?.passwordHash ?? DUMMY_HASH);
  if (!ok || !user || !member) return { ok: false, reason: "invalid" };
  await deps.store.users.settleSignInSuccess(emailSubject, addressSubject);
  await deps.store.users.touchSignIn(user.id, new Date(at).toISOString());
  return { ok: true, user: { id: user.id, email: user.email, name: user.name } };
}
