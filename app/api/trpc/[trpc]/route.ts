import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "@/server/trpc/root";
import { getDeps } from "@/server/deps";
import { getSessionActor } from "@/server/auth/session";

/** Browser state-changing calls must be same-origin (CSRF defence on top of SameSite cookies). */
function sameOrigin(req: Request): boolean {
  if (req.method === "GET") return true;
  const origin = req.headers.get("origin");
  if (!origin) return true; // non-browser clients do not send Origin; cookies are SameSite=Lax anyway
  const host = req.headers.get("x-forwarded-host") ?? req.headers.get("host");
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

/** GET/POST /api/trpc/*: the editor's API (session-authenticated). */
const handler = async (req: Request) => {
  if (!sameOrigin(req)) return new Response("Cross-origin request refused", { status: 403 });
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: async () => ({ deps: await getDeps(), actor: await getSessionActor() }),
  });
};

export { handler as GET, handler as POST };
