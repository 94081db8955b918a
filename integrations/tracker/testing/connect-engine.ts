/**
 * A tracker connection stored by the engine, made through the real OAuth flow against the fake
 * Atlassian (authorize → consent → callback → site choice), for tests that run tracker nodes in the runner.
 */
import type { AppDeps } from "@/server/deps";
import type { Actor } from "@/server/auth/permissions";
import { beginOAuth, chooseSite, completeOAuth, createConnection } from "@/server/services/connections";
import { DEMO } from "./fake-atlassian/seed";
import type { FakeAtlassian } from "./fake-atlassian/server";

export async function connectTrackerThroughEngine(
  deps: AppDeps,
  ws: { workspaceId: string; actor: Actor },
  fake: FakeAtlassian,
  name = "acme",
): Promise<{ id: string; authorizeUrl: string; needsSiteChoice: boolean }> {
  const con = await createConnection(deps, ws.actor, ws.workspaceId, {
    integration: "tracker",
    name,
    config: { clientId: DEMO.clientId, clientSecret: DEMO.clientSecret, authBaseUrl: fake.url, apiBaseUrl: fake.url },
  });
  const { authorizeUrl } = await beginOAuth(deps, ws.actor, ws.workspaceId, con.id, { redirectUri: "http://127.0.0.1/oauth/tracker/callback" });
  const back = new URL((await fetch(authorizeUrl, { redirect: "manual" })).headers.get("location")!);
  const done = await completeOAuth(deps, { state: back.searchParams.get("state")!, code: back.searchParams.get("code")!, userId: "usr_test" });
  if (done.needsSiteChoice) {
    const ready = await chooseSite(deps, ws.actor, ws.workspaceId, con.id, DEMO.cloudId);
    if (ready.status !== "ready") throw new Error(`the tracker connection is ${ready.status} after choosing the site`);
  }
  return { id: con.id, authorizeUrl, needsSiteChoice: done.needsSiteChoice };
}
