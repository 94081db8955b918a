import NextAuth from "next-auth";
import { authOptions } from "@/server/auth/config";

/** GET/POST /api/auth/*: next-auth sign-in, sign-out, session and CSRF endpoints. */
const handler = NextAuth(authOptions);
export { handler as GET, handler as POST };
