/**
 * GET /oauth/[integration]/callback: the provider sends the browser back here after consent.
 * Completes the code exchange (state is bound to the signed-in user), then returns to where the
 * flow started (connections page or the editor), asking for a site when the account has several.
 */
import { NextResponse, type NextRequest } from "next/server";
import { getDeps } from "@/server/deps";
import { getSessionActor } from "@/server/auth/session";
import { OAuthCallbackError, completeOAuth } from "@/server/services/connections";
import { safeReturnPath } from "@/server/http/return-path";

async function back(req: NextRequest, path: string, params: Record<string, string>) {
  // The public URL, not req.nextUrl.origin: behind `next start` the latter is the bind host (e.g. localhost),
  // a different cookie host than the one the user signed in on.
  const { publicUrl } = await getDeps();
  // A path on this site only (a stored returnTo of `/\\evil.example` would otherwise leave it).
  const url = new URL(safeReturnPath(path), publicUrl || req.nextUrl.origin);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return NextResponse.redirect(url, { status: 303 });
}

export async function GET(req: NextRequest) {
  const actor = await getSessionActor();
  const q = req.nextUrl.searchParams;
  if (!actor) return back(req, "/sign-in", { callbackUrl: req.nextUrl.pathname + req.nextUrl.search });
  const state = q.get("state") ?? "";
  const code = q.get("code");
  const deps = await getDeps();
  try {
    const providerError = q.get("error");
    const result = await completeOAuth(deps, {
      state,
      code,
      providerError: providerError ? `${providerError}${q.get("error_description") ? `: ${q.get("error_description")}` : ""}` : undefined,
      userId: actor.userId,
    });
    const target = result.returnTo ?? `/w/${result.connection.workspaceId}/connections`;
    if (result.needsSiteChoice) return back(req, target, { chooseSite: result.connection.id });
    return back(req, target, { connected: result.connection.id });
  } catch (err) {
    deps.log.warn("oauth callback failed", { integration: req.nextUrl.pathname.split("/")[2], error: (err as Error).message });
    // Back where the flow started (connections page or the editor), which shows the message.
    const target = err instanceof OAuthCallbackError ? (err.returnTo ?? `/w/${err.workspaceId}/connections`) : "/";
    return back(req, target, { oauthError: (err as Error).message.slice(0, 300) });
  }
}
