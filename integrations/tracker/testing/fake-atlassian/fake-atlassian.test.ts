import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeAtlassian, type FakeAtlassian } from "./server";

let fake: FakeAtlassian;
let token: string;
let base: string;
beforeAll(async () => {
  fake = await startFakeAtlassian({ consentMode: "page" });
  base = `${fake.url}/ex/jira/${fake.demo.cloudId}/rest/api/3`;
  // Consent through the page (form post), as a browser does.
  const params = new URLSearchParams({
    audience: "api.atlassian.com",
    client_id: fake.demo.clientId,
    scope: "read:jira-work write:jira-work read:jira-user manage:jira-webhook offline_access",
    redirect_uri: "http://127.0.0.1:9/cb",
    state: "s1",
    response_type: "code",
    prompt: "consent",
  });
  const page = await fetch(`${fake.url}/authorize?${params}`);
  expect(await page.text()).toContain("Accept");
  const accepted = await fetch(`${fake.url}/authorize/consent`, {
    method: "POST",
    body: new URLSearchParams({ ...Object.fromEntries(params), decision: "accept" }),
    redirect: "manual",
  });
  const code = new URL(accepted.headers.get("location")!).searchParams.get("code")!;
  const t = await fetch(`${fake.url}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      grant_type: "authorization_code",
      client_id: fake.demo.clientId,
      client_secret: fake.demo.clientSecret,
      code,
      redirect_uri: "http://127.0.0.1:9/cb",
    }),
  });
  token = ((await t.json()) as { access_token: string }).access_token;
});
afterAll(() => fake?.stop());

const call = (path: string, init: RequestInit = {}) =>
  fetch(`${base}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...(init.headers as Record<string, string>) },
  });

describe("fake Atlassian", () => {
  it("denies consent with access_denied back to the app", async () => {
    const params = {
      audience: "api.atlassian.com",
      client_id: fake.demo.clientId,
      scope: "read:jira-work",
      redirect_uri: "http://127.0.0.1:9/cb",
      state: "s2",
      response_type: "code",
      decision: "deny",
    };
    const res = await fetch(`${fake.url}/authorize/consent`, { method: "POST", body: new URLSearchParams(params), redirect: "manual" });
    expect(Object.fromEntries(new URL(res.headers.get("location")!).searchParams)).toMatchObject({ error: "access_denied", state: "s2" });
  });

  it("validates requests against the Jira OpenAPI file and answers 400 with the validator's message", async () => {
    const res = await call("/webhook", {
      method: "POST",
      body: JSON.stringify({ url: "https://x.example/h", webhooks: [{ events: ["jira:issue_created"] }] }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ errorMessages: ["requestBody.webhooks.0 must have required property 'jqlFilter'"], errors: {} });
    const bad = await call("/issue/OPS-1?deleteSubtasks=yes", { method: "DELETE" });
    expect((await bad.json()).errorMessages[0]).toMatch(/deleteSubtasks must be equal to one of the allowed values \(true, false\)/);
    const event = await call("/webhook", {
      method: "POST",
      body: JSON.stringify({ url: "https://x.example/h", webhooks: [{ events: ["issue_moved"], jqlFilter: "project = OPS" }] }),
    });
    expect(event.status).toBe(400);
  });

  it("answers 501 for a real API operation the fake does not implement, 404 for unknown paths", async () => {
    expect((await call("/dashboard")).status).toBe(501);
    expect((await call("/no/such/thing")).status).toBe(404);
  });

  it("answers 401 without a token and for expired tokens", async () => {
    expect((await fetch(`${base}/myself`)).status).toBe(401);
    const me = await call("/myself");
    expect(await me.json()).toMatchObject({ accountId: fake.demo.users.mia, displayName: "Mia Krystof" });
    fake.state.advance(3601_000);
    try {
      const expired = await call("/myself");
      expect(expired.status).toBe(401);
    } finally {
      fake.state.clockOffsetMs = 0;
    }
  });

  it("injects 429 with Retry-After and 5xx on demand", async () => {
    fake.fail({ path: "/myself", status: 429, retryAfter: 5 });
    fake.fail({ path: "/myself", status: 503 });
    const limited = await call("/myself");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("5");
    expect((await call("/myself")).status).toBe(503);
    expect((await call("/myself")).status).toBe(200);
  });

  it("loses an answer on demand: the create happens, then the connection is reset (also via /__fake/faults)", async () => {
    const ops = fake.state.site(fake.demo.cloudId)!;
    const before = ops.issues.size;
    const create = (summary: string) =>
      call("/issue", { method: "POST", body: JSON.stringify({ fields: { project: { key: "OPS" }, issuetype: { id: fake.demo.issueTypes.task }, summary } }) });
    fake.fail({ method: "POST", path: /\/issue$/, lose: "reset" });
    await expect(create("lost once")).rejects.toThrow(/fetch failed/);
    const set = await fetch(`${fake.url}/__fake/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ method: "POST", path: "/rest/api/3/issue", lose: "reset" }),
    });
    expect(set.status).toBe(204);
    await expect(create("lost twice")).rejects.toThrow(/fetch failed/);
    expect([...ops.issues.values()].slice(before).map((i) => i.summary)).toEqual(["lost once", "lost twice"]);
    expect(fake.state.requests.filter((r) => r.lost).map((r) => [r.status, r.lost])).toEqual([
      [201, "reset"],
      [201, "reset"],
    ]);
    expect((await create("answered")).status).toBe(201);
  });

  it("refuses dynamic-webhook JQL clauses Jira does not support, per entry", async () => {
    const res = await call("/webhook", {
      method: "POST",
      body: JSON.stringify({
        url: "https://x.example/h",
        webhooks: [
          { events: ["jira:issue_created"], jqlFilter: "project = OPS" },
          { events: ["comment_created"], jqlFilter: "watchCount > 1" },
        ],
      }),
    });
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(body.webhookRegistrationResult[0]).toEqual({ createdWebhookId: expect.any(Number) });
    expect(body.webhookRegistrationResult[1].errors[0]).toMatch(/watchcount is unsupported/i);
    const list = await (await call("/webhook")).json();
    expect(list.values).toHaveLength(1);
    expect(list.values[0].expirationDate - Date.now()).toBeGreaterThan(29 * 86_400_000);
    expect((await call("/webhook", { method: "DELETE", body: JSON.stringify({ webhookIds: [list.values[0].id] }) })).status).toBe(202);
    expect((await (await call("/webhook")).json()).values).toHaveLength(0);
  });

  it("keeps real issue state: comments need ADF, search orders by update", async () => {
    const a = await (
      await call("/issue", { method: "POST", body: JSON.stringify({ fields: { project: { key: "OPS" }, issuetype: { id: "10001" }, summary: "first" } }) })
    ).json();
    const b = await (
      await call("/issue", { method: "POST", body: JSON.stringify({ fields: { project: { key: "OPS" }, issuetype: { id: "10001" }, summary: "second" } }) })
    ).json();
    expect((await call(`/issue/${a.key}/comment`, { method: "POST", body: JSON.stringify({ body: "wiki text" }) })).status).toBe(400);
    fake.state.advance(1000);
    await call(`/issue/${a.key}`, { method: "PUT", body: JSON.stringify({ fields: { summary: "first, edited" } }) });
    fake.state.clockOffsetMs = 0;
    const found = await (await call(`/search/jql?jql=${encodeURIComponent("project = OPS ORDER BY updated DESC")}&fields=summary`)).json();
    expect(found.issues.slice(0, 2).map((i: { key: string }) => i.key)).toEqual([a.key, b.key]);
  });
});

describe("fake Atlassian test-control endpoints", () => {
  it("creates issues and comments that raise deliveries, and reads them back", async () => {
    const created = await (
      await fetch(`${fake.url}/__fake/jira/issues`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ project: "TEAM", summary: "from control" }),
      })
    ).json();
    expect(created.key).toMatch(/^TEAM-\d+$/);
    expect(
      (
        await fetch(`${fake.url}/__fake/jira/issues/${created.key}/comments`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ text: "hi" }),
        })
      ).status,
    ).toBe(201);
    expect(await (await fetch(`${fake.url}/__fake/jira/issues/${created.key}`)).json()).toMatchObject({ key: created.key, status: "Backlog", comments: 1 });
    expect(
      (
        await fetch(`${fake.url}/__fake/faults`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ path: "/myself", status: 503 }),
        })
      ).status,
    ).toBe(204);
    expect((await call("/myself")).status).toBe(503);
  });
});
