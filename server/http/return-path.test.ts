/**
 * Open redirects after sign-in and OAuth consent. The OAuth `returnTo` was checked with
 * `^\/(?!\/)`, which `/\evil.example` passes, and the URL parser reads it as `//evil.example`: the
 * callback then sent the browser to https://evil.example/. The sign-in form followed any
 * `?callbackUrl=` (an absolute URL included) after a successful sign-in.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDeps } from "../testing";
import { seedWorkspace } from "../runner/testing/seed";
import { createCaller } from "../trpc/root";
import type { TRPCContext } from "../trpc/trpc";
import { OAuthCallbackError, beginOAuth, completeOAuth, createConnection } from "../services/connections";
import { registerStubOAuth } from "../services/connections/testing/stub-oauth";
import { isReturnPath, safeReturnPath } from "./return-path";

registerStubOAuth();

/** Paths that look like paths on this site but leave it once a URL parser reads them. */
const HOSTILE = ["/\\evil.example", "/\\/evil.example", "/\t/evil.example", "/\n/evil.example", "/\r/evil.example", "//evil.example"];
const ELSEWHERE = ["https://evil.example/x", "javascript:alert(1)", "evil.example", "", "data:text/html,x"];

describe("safeReturnPath", () => {
  it("each hostile spelling really leaves the site under the URL parser, and is replaced by the fallback", () => {
    for (const p of HOSTILE) {
      expect(new URL(p, "https://conveyor.example").origin, p).not.toBe("https://conveyor.example");
      expect(safeReturnPath(p, "/home"), JSON.stringify(p)).toBe("/home");
      expect(isReturnPath(p)).toBe(false);
    }
    for (const p of ELSEWHERE) expect(safeReturnPath(p, "/home"), p).toBe("/home");
    // Normalised to `//evil.example`, which is another origin once used as a relative URL.
    expect(safeReturnPath("/a/../..//evil.example", "/home")).toBe("/home");
    expect(safeReturnPath(null)).toBe("/");
  });

  it("keeps paths on the site as they are (query and fragment included)", () => {
    for (const p of ["/", "/w/ws_1/connections", "/w/ws_1/automations/aut_2?node=n1#config", "/%2F%2Fencoded-stays-a-path", "/sign-in?callbackUrl=%2Fw%2Fx"]) {
      expect(safeReturnPath(p, "/home")).toBe(p);
      expect(isReturnPath(p)).toBe(true);
    }
  });
});

describe("OAuth returnTo (both backends: the state row stores it)", () => {
  let deps: Awaited<ReturnType<typeof createTestDeps>>;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  beforeEach(async () => {
    deps = await createTestDeps();
    ws = await seedWorkspace(deps);
  });
  afterEach(async () => deps.close());

  const connection = () =>
    createConnection(deps, ws.actor, ws.workspaceId, {
      integration: "stuboauth",
      name: "t",
      config: { tokenUrl: "http://127.0.0.1:9/token", clientId: "cid", clientSecret: "s3cret-value" },
    });

  it("the editor door refuses a returnTo that would leave the site, and accepts a path", async () => {
    const con = await connection();
    const caller = createCaller({ deps, actor: ws.actor as TRPCContext["actor"] });
    for (const returnTo of HOSTILE)
      await expect(caller.connections.beginOAuth({ workspaceId: ws.workspaceId, connectionId: con.id, returnTo }), JSON.stringify(returnTo)).rejects.toMatchObject({
        code: "BAD_REQUEST",
      });
    const ok = await caller.connections.beginOAuth({ workspaceId: ws.workspaceId, connectionId: con.id, returnTo: `/w/${ws.workspaceId}/connections` });
    expect(ok.state).toBeTruthy();
  });

  it("the service never stores one either: the callback goes back to the connections page instead", async () => {
    const con = await connection();
    for (const returnTo of HOSTILE) {
      const { state } = await beginOAuth(deps, ws.actor, ws.workspaceId, con.id, { redirectUri: "http://127.0.0.1/cb", returnTo });
      const err = await completeOAuth(deps, { state, providerError: "access_denied", userId: "usr_test" }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OAuthCallbackError);
      expect((err as OAuthCallbackError).returnTo, JSON.stringify(returnTo)).toBeNull();
    }
  });
});
