import NextAuth from "next-auth";
import { NextRequest } from "next/server";
import { authOptions } from "@/server/auth/config";
import { withBoundedBody } from "@/server/http/bounded-body";
import { problemResponse } from "@/server/rest/problem";

/** Sign-in, sign-out and CSRF forms are a few hundred bytes; next-auth itself would read any body whole. */
const MAX_AUTH_BODY_BYTES = 64 * 1024;

const nextAuth = NextAuth(authOptions);

/** GET/POST /api/auth/*: next-auth sign-in, sign-out, session and CSRF endpoints. */
async function handler(req: NextRequest, ctx: { params: Promise<{ nextauth: string[] }> }) {
  const bounded = await withBoundedBody(req, MAX_AUTH_BODY_BYTES);
  if (!bounded) return problemResponse("payload_too_large", `The body is over the limit of ${MAX_AUTH_BODY_BYTES} bytes.`);
  return nextAuth(bounded.request === req ? req : new NextRequest(bounded.request), ctx);
}
export { handler as GET, handler as POST };
