import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConnectionAuthError, IntegrationHttpError } from "../core/errors";
import { createHttpClient } from "../core/http";
import { createTestContext } from "../core/testing";
import { getIssue } from "./components/get-issue";
import { BASE_SCOPES, OPS_SCOPES, trackerConnection, trackerConnectionSchema, trackerOAuth } from "./connection";
import { startFakeAtlassian, type FakeAtlassian } from "./testing/fake-atlassian/server";
import { REDIRECT_URI, authorize, connectionConfig, memoryTokenSource } from "./testing/jira-harness";

let fake: FakeAtlassian;
const http = createHttpClient();
beforeAll(async () => {
  fake = await startFakeAtlassian({ secondSite: true });
});
afterAll(() => fake?.stop());

describe("tracker connection settings", () => {
  it("defaults the base URLs to Atlassian's and keeps ops features off", () => {
    const c = trackerConnectionSchema.parse({ clientId: "id", clientSecret: "s" });
    expect(c).toEqual({
      clientId: "id",
      clientSecret: "s",
      enableOpsFeatures: false,
      authBaseUrl: "https://auth.atlassian.com",
      apiBaseUrl: "https://api.atlassian.com",
    });
    expect(trackerConnection.kind).toBe("oauth2");
  });

  it("marks the client secret sensitive", () => {
    expect(trackerConnectionSchema.shape.clientSecret.meta()).toMatchObject({ sensitive: true });
    expect(trackerConnectionSchema.shape.clientId.meta()?.sensitive).toBeUndefined();
  });
});

describe("Atlassian OAuth 2.0 (3LO) provider", () => {
  it("builds the consent URL with audience, state, prompt and the scopes; ops scopes only when enabled", () => {
    const base = trackerConnectionSchema.parse({ clientId: "abc", clientSecret: "s" });
    const url = new URL(trackerOAuth.authorizeUrl(base, { state: "xyz", redirectUri: "https://conveyor.example/cb" }));
    expect(url.origin + url.pathname).toBe("https://auth.atlassian.com/authorize");
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      audience: "api.atlassian.com",
      client_id: "abc",
      state: "xyz",
      redirect_uri: "https://conveyor.example/cb",
      response_type: "code",
      prompt: "consent",
    });
    expect(url.searchParams.get("scope")!.split(" ")).toEqual([...BASE_SCOPES]);
    expect(trackerOAuth.authorizeUrl(base, { state: "x", redirectUri: "https://c/cb" })).toContain("scope=read%3Ajira-work%20write%3Ajira-work");
    const ops = new URL(trackerOAuth.authorizeUrl({ ...base, enableOpsFeatures: true }, { state: "x", redirectUri: "https://c/cb" }));
    expect(ops.searchParams.get("scope")!.split(" ")).toEqual([...BASE_SCOPES, ...OPS_SCOPES]);
  });

  it("exchanges the code, and with several accessible sites offers a choice", async () => {
    const config = connectionConfig(fake);
    const tokens = await trackerOAuth.exchangeCode(config, { code: await authorize(fake, config), redirectUri: REDIRECT_URI, http });
    expect(tokens.accessToken).toBeTruthy();
    expect(tokens.refreshToken).toBeTruthy();
    expect(tokens.expiresAt! - Date.now()).toBeGreaterThan(3500_000);
    const after = await trackerOAuth.afterConnect!(config, { accessToken: tokens.accessToken, http });
    expect(after.state).toBeUndefined();
    expect(after.choices).toEqual([
      {
        value: fake.demo.cloudId,
        label: "acme (https://acme.atlassian.net)",
        state: { cloudId: fake.demo.cloudId, siteName: "acme", siteUrl: "https://acme.atlassian.net" },
      },
      {
        value: fake.demo.otherCloudId,
        label: "globex (https://globex.atlassian.net)",
        state: { cloudId: fake.demo.otherCloudId, siteName: "globex", siteUrl: "https://globex.atlassian.net" },
      },
    ]);
  });

  it("stores the only site's cloud id directly", async () => {
    const single = await startFakeAtlassian();
    try {
      const config = connectionConfig(single);
      const tokens = await trackerOAuth.exchangeCode(config, { code: await authorize(single, config), redirectUri: REDIRECT_URI, http });
      expect(await trackerOAuth.afterConnect!(config, { accessToken: tokens.accessToken, http })).toEqual({
        state: { cloudId: single.demo.cloudId, siteName: "acme", siteUrl: "https://acme.atlassian.net" },
      });
    } finally {
      await single.stop();
    }
  });

  it("rejects a code used twice and a wrong client secret", async () => {
    const config = connectionConfig(fake);
    const code = await authorize(fake, config);
    await trackerOAuth.exchangeCode(config, { code, redirectUri: REDIRECT_URI, http });
    await expect(trackerOAuth.exchangeCode(config, { code, redirectUri: REDIRECT_URI, http })).rejects.toMatchObject({ status: 403, retryable: false });
    const wrong = { ...config, clientSecret: "nope" };
    // Said in words the user can act on (the callback shows it on the page the flow started from).
    const refused = trackerOAuth.exchangeCode(wrong, { code: await authorize(fake, config), redirectUri: REDIRECT_URI, http });
    await expect(refused).rejects.toBeInstanceOf(ConnectionAuthError);
    await expect(refused).rejects.toThrow(/Atlassian refused the app's Client ID or Client Secret \(.*401.*\): copy both again/);
  });

  it("rotates refresh tokens: the new one works, the used one is refused with invalid_grant", async () => {
    const config = connectionConfig(fake);
    const first = await trackerOAuth.exchangeCode(config, { code: await authorize(fake, config), redirectUri: REDIRECT_URI, http });
    const second = await trackerOAuth.refresh(config, { refreshToken: first.refreshToken!, http });
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(second.accessToken).not.toBe(first.accessToken);
    const reuse = await trackerOAuth.refresh(config, { refreshToken: first.refreshToken!, http }).catch((e) => e);
    expect(reuse).toBeInstanceOf(IntegrationHttpError);
    expect(reuse.retryable).toBe(false);
    expect(reuse.message).toMatch(/403: invalid_grant|Unknown or invalid refresh token/);
    await expect(trackerOAuth.refresh(config, { refreshToken: second.refreshToken!, http })).resolves.toMatchObject({ accessToken: expect.any(String) });
  });

  it("a 5xx from the token endpoint stays retryable (not a reason to reconnect)", async () => {
    const config = connectionConfig(fake);
    const first = await trackerOAuth.exchangeCode(config, { code: await authorize(fake, config), redirectUri: REDIRECT_URI, http });
    fake.fail({ path: "/oauth/token", status: 503, retryAfter: 3 });
    await expect(trackerOAuth.refresh(config, { refreshToken: first.refreshToken!, http })).rejects.toMatchObject({ retryable: true, retryAfterMs: 3000 });
  });

  it("a refused refresh surfaces as ConnectionAuthError (needs reconnect) from the components", async () => {
    const config = connectionConfig(fake);
    const tokens = await trackerOAuth.exchangeCode(config, { code: await authorize(fake, config), redirectUri: REDIRECT_URI, http });
    const source = memoryTokenSource(config, tokens, http);
    const connection = { id: "con_x", integration: "tracker", config, state: { cloudId: fake.demo.cloudId }, oauth: source };
    fake.state.revokeGrant(config.clientId, fake.demo.users.mia); // user revoked the app
    fake.state.grants.set(`${config.clientId}:${fake.demo.users.mia}`, new Set([fake.demo.cloudId])); // (other tests keep their grant)
    const err = await getIssue.run(createTestContext(getIssue, { config: { project: "OPS", issueKey: "OPS-1" }, connection })).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionAuthError);
    expect(err.message).toMatch(/needs reconnect/);
    expect(source.status.needsReconnect).toBe(true);
  });

  it("verify names the site and the user", async () => {
    const config = connectionConfig(fake);
    const tokens = await trackerOAuth.exchangeCode(config, { code: await authorize(fake, config), redirectUri: REDIRECT_URI, http });
    const connection = {
      id: "con_v",
      integration: "tracker",
      config,
      state: { cloudId: fake.demo.cloudId, siteName: "acme" },
      oauth: memoryTokenSource(config, tokens, http),
    };
    await expect(trackerConnection.verify!({ connection, http })).resolves.toEqual({ message: "Connected to acme as Mia Krystof" });
  });

  it("the fake refuses calls whose token lacks the operation's scopes", async () => {
    const config = connectionConfig(fake);
    const u = new URL(trackerOAuth.authorizeUrl(config, { state: "s", redirectUri: REDIRECT_URI }));
    u.searchParams.set("scope", "read:jira-work offline_access");
    const back = new URL((await fetch(u, { redirect: "manual" })).headers.get("location")!);
    const tokens = await trackerOAuth.exchangeCode(config, { code: back.searchParams.get("code")!, redirectUri: REDIRECT_URI, http });
    const res = await fetch(`${fake.url}/ex/jira/${fake.demo.cloudId}/rest/api/3/webhook`, {
      method: "POST",
      headers: { authorization: `Bearer ${tokens.accessToken}`, "content-type": "application/json" },
      body: JSON.stringify({ url: "https://x.example/h", webhooks: [{ events: ["jira:issue_created"], jqlFilter: "project = OPS" }] }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ message: "Unauthorized; scope does not match" });
  });
});
