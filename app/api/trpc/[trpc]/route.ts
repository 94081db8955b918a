import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "@/server/trpc/root";
import { getDeps } from "@/server/deps";
import { getSessionActor } from "@/server/auth/session";
import { isSameOrigin } from "@/server/http/same-origin";
import { hasNulEscape, jsonDepth, MAX_JSON_DEPTH, NUL_MESSAGE, tooDeepMessage } from "@/server/http/json-depth";

/** The editor's inputs get the same limits as REST and webhooks: nesting (storing a deeper value would overflow) and no NUL character. */
async function refusal(req: Request): Promise<string | null> {
  const limit = MAX_JSON_DEPTH + 2; // tRPC's own batch/input wrapping
  const texts = [new URL(req.url).searchParams.get("input") ?? "", req.method === "POST" ? await req.clone().text() : ""];
  if (texts.some((t) => jsonDepth(t, limit) > limit)) return tooDeepMessage();
  if (texts.some(hasNulEscape)) return NUL_MESSAGE;
  return null;
}

/** GET/POST /api/trpc/*: the editor's API (session-authenticated). */
const handler = async (req: Request) => {
  const deps = await getDeps();
  if (!isSameOrigin(req, deps.publicUrl)) {
    return Response.json({ error: { message: "Cross-origin request refused: the Origin is not this site's public URL.", code: "FORBIDDEN" } }, { status: 403 });
  }
  const refused = await refusal(req);
  if (refused) return Response.json({ error: { message: refused, code: "BAD_REQUEST" } }, { status: 400 });
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: async () => ({ deps, actor: await getSessionActor() }),
  });
};

export { handler as GET, handler as POST };
