import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "@/server/trpc/root";
import { getDeps } from "@/server/deps";
import { getSessionActor } from "@/server/auth/session";
import { isSameOrigin } from "@/server/http/same-origin";
import { jsonDepth, MAX_JSON_DEPTH, tooDeepMessage } from "@/server/http/json-depth";

/** The editor's inputs get the same nesting limit as REST and webhooks (storing a deeper value would overflow). */
async function tooDeep(req: Request): Promise<boolean> {
  const limit = MAX_JSON_DEPTH + 2; // tRPC's own batch/input wrapping
  if (jsonDepth(new URL(req.url).searchParams.get("input") ?? "", limit) > limit) return true;
  return req.method === "POST" && jsonDepth(await req.clone().text(), limit) > limit;
}

/** GET/POST /api/trpc/*: the editor's API (session-authenticated). */
const handler = async (req: Request) => {
  const deps = await getDeps();
  if (!isSameOrigin(req, deps.publicUrl)) {
    return Response.json({ error: { message: "Cross-origin request refused: the Origin is not this site's public URL.", code: "FORBIDDEN" } }, { status: 403 });
  }
  if (await tooDeep(req)) return Response.json({ error: { message: tooDeepMessage(), code: "BAD_REQUEST" } }, { status: 400 });
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: async () => ({ deps, actor: await getSessionActor() }),
  });
};

export { handler as GET, handler as POST };
