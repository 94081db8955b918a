import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "@/server/trpc/root";
import { getDeps } from "@/server/deps";
import { getSessionActor } from "@/server/auth/session";
import { isSameOrigin } from "@/server/http/same-origin";
import { screenTrpcRequest } from "@/server/trpc/screen-request";

/** GET/POST /api/trpc/*: the editor's API (session-authenticated). */
const handler = async (req: Request) => {
  const deps = await getDeps();
  if (!isSameOrigin(req, deps.publicUrl)) {
    return Response.json({ error: { message: "Cross-origin request refused: the Origin is not this site's public URL.", code: "FORBIDDEN" } }, { status: 403 });
  }
  // The editor's inputs get the same limits as REST and webhooks (size, nesting, no NUL character).
  const screened = await screenTrpcRequest(req);
  if ("refused" in screened) return screened.refused;
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req: screened.request,
    router: appRouter,
    createContext: async () => ({ deps, actor: await getSessionActor() }),
  });
};

export { handler as GET, handler as POST };
