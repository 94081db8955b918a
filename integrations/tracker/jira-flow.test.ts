/**
 * The Jira units through the real engine: an OAuth tracker connection made against the fake Atlassian (two sites →
 * site choice), `tracker.onIssue → tracker.transitionIssue` and a second automation with
 * `tracker.onIssueComment` sharing the connection's one Jira webhook registration; an issue created in the
 * fake is delivered to the app's shared intake and the run transitions it (a 429 with Retry-After on the way
 * is honoured). Also: duplicate deliveries start one run, the registration is shrunk / removed as triggers go,
 * refreshed before expiry by maintenance, two processes racing on a refresh end with one valid token, and a
 * refused refresh leaves the connection "needs reconnect".
 */
import { runnerHooks } from "../../server/runner-hooks";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { waitFor } from "@/server/runner/testing/wait";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSecretBox } from "@/server/crypto/secret-box";
import { createTestDeps } from "@/server/testing";
import { seedWorkspace } from "@/server/runner/testing/seed";
import { startRunner, type Runner } from "@/server/runner/runner-loop";
import { getConnectionOrThrow, loadConnectionHandle } from "@/server/services/connections";
import { createAutomation, patchAutomation } from "@/server/services/automations";
import { maintainTriggers } from "@/server/services/automations/trigger-lifecycle";
import { getRunOrThrow } from "@/server/services/runs";
import { handleHookRequest } from "@/server/webhooks/lean-listener";
import { ConnectionAuthError } from "../core/errors";
import { adfToText } from "./adf";
import { DEMO } from "./testing/fake-atlassian/seed";
import { startFakeAtlassian, type FakeAtlassian } from "./testing/fake-atlassian/server";
import { connectTrackerThroughEngine } from "./testing/connect-engine";

const key = randomBytes(32);
let hooks: http.Server;
let deps: Awaited<ReturnType<typeof createTestDeps>>;
let fake: FakeAtlassian;
let runner: Runner;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;

beforeAll(async () => {
  hooks = http.createServer((req, res) => handleHookRequest(req, res, deps));
  await new Promise<void>((r) => hooks.listen(0, "127.0.0.1", r));
  deps = await createTestDeps({ publicUrl: `http://127.0.0.1:${(hooks.address() as AddressInfo).port}`, box: createSecretBox(key) });
  ws = await seedWorkspace(deps);
  fake = await startFakeAtlassian({ consentMode: "auto", secondSite: true });
  runner = startRunner(deps, runnerHooks(deps), { concurrency: 4, pollMs: 20, retry: { baseMs: 50, maxMs: 200 }, maintenance: false });
});

afterAll(async () => {
  await runner?.stop();
  await fake?.stop();
  await new Promise<void>((r) => hooks.close(() => r()));
  await deps?.close();
});

const site = () => fake.state.site(DEMO.cloudId)!;

async function connectTracker(): Promise<string> {
  const con = await connectTrackerThroughEngine(deps, ws, fake);
  expect(con.authorizeUrl).not.toContain("ops-alert");
  expect(con.needsSiteChoice).toBe(true);
  return con.id;
}

async function expireToken(id: string) {
  const row = (await deps.store.connections.getById(id))!;
  const tokens = deps.box.decryptJson<Record<string, unknown>>(row.tokensEnc!);
  await deps.store.connections.update(id, { tokensEnc: deps.box.encryptJson({ ...tokens, expiresAt: Date.now() - 1000 }), tokenExpiresAt: Date.now() - 1000 });
}
const storedRefreshToken = async (id: string) =>
  deps.box.decryptJson<{ refreshToken: string }>((await deps.store.connections.getById(id))!.tokensEnc!).refreshToken;
const runsOf = (automationId: string) =>
  deps.sql<{ id: string; status: string }>("select id, status from runs where automation_id = ? order by created_at", automationId);
const registrations = () => deps.sql<{ expiresAt: string | null }>('select expires_at as "expiresAt" from webhook_registrations');

describe("the Jira units through the engine", () => {
  let connectionId: string;
  beforeAll(async () => {
    connectionId = await connectTracker();
  });

  it("onIssue → transitionIssue runs on an issue created in the tracker; triggers share one registration", async () => {
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, {
      name: "Pick up new issues",
      concurrency: 5,
      graph: {
        nodes: [
          { id: "t", name: "issue", key: "tracker.onIssue", connectionId, config: { project: "OPS", events: ["created"] } },
          {
            id: "mv",
            name: "start",
            key: "tracker.transitionIssue",
            connectionId,
            config: { issueKey: "{{ $trigger.data.issue.key }}", targetStatus: "In Progress", comment: "Picked up by Conveyor" },
          },
        ],
        edges: [{ from: "t", to: "mv" }],
      },
    });
    const b = await createAutomation(deps, ws.actor, ws.workspaceId, {
      name: "Watch rollbacks",
      concurrency: 5,
      graph: {
        nodes: [
          { id: "c", name: "comment", key: "tracker.onIssueComment", connectionId, config: { project: "OPS", events: ["created"], contentFilter: "rollback" } },
          { id: "g", name: "read", key: "tracker.getIssue", connectionId, config: { project: "OPS", issueKey: "{{ $trigger.data.issue.key }}" } },
        ],
        edges: [{ from: "c", to: "g" }],
      },
    });
    await patchAutomation(deps, ws.actor, ws.workspaceId, a.id, { enabled: true });
    await patchAutomation(deps, ws.actor, ws.workspaceId, b.id, { enabled: true });
    const hooksNow = [...site().webhooks.values()];
    expect(new Set(hooksNow.map((w) => w.url)).size).toBe(1);
    expect(hooksNow[0]!.url).toContain(`${deps.publicUrl}/hooks/`);
    expect(hooksNow.flatMap((w) => w.events).sort()).toEqual(["comment_created", "jira:issue_created"]);
    expect(await registrations()).toHaveLength(1);

    // Rate limited once on the transition: the runner waits Retry-After before the next attempt.
    fake.fail({ method: "POST", path: /\/transitions$/, status: 429, retryAfter: 1 });
    const issue = site().createIssue(
      {
        projectId: DEMO.projects.ops,
        issueTypeId: DEMO.issueTypes.task,
        summary: "Checkout is slow",
        description: null,
        reporterId: DEMO.users.ravi,
        labels: [],
      },
      DEMO.users.ravi,
    );
    await waitFor(async () => (await runsOf(a.id)).some((r) => r.status === "succeeded" || r.status === "failed"), 20_000, "the run to finish");
    const [run] = await runsOf(a.id);
    const detail = await getRunOrThrow(deps, ws.actor, ws.workspaceId, run!.id);
    expect(detail.steps.map((s) => [s.name, s.status])).toEqual([
      ["issue", "succeeded"],
      ["start", "succeeded"],
    ]);
    expect(site().issue(issue.key)!.statusId).toBe(DEMO.statuses.inProgress);
    expect(adfToText(site().issue(issue.key)!.comments[0]!.body)).toBe("Picked up by Conveyor");
    const posts = fake.state.requests.filter((r) => r.method === "POST" && r.path.endsWith(`/issue/${issue.key}/transitions`));
    expect(posts.map((p) => p.status)).toEqual([429, 204]);
    expect(posts[1]!.at - posts[0]!.at).toBeGreaterThanOrEqual(1000);

    // The transition's comment raised comment_created, which does not match the "rollback" filter: no run of b.
    await fake.webhooks.settled();
    expect(await runsOf(b.id)).toHaveLength(0);
    site().addComment(
      site().issue(issue.key)!,
      { type: "doc", version: 1, content: [{ type: "paragraph", content: [{ type: "text", text: "rollback done" }] }] },
      DEMO.users.ravi,
    );
    await waitFor(async () => (await runsOf(b.id)).some((r) => r.status === "succeeded"), 20_000, "the comment run");

    // Jira delivering the same event again (same delivery id) starts no second run.
    const created = fake.webhooks.deliveries.find((d) => d.body.webhookEvent === "jira:issue_created")!;
    // Its run would be stored before the 202 that ends redeliver(): no wait needed.
    await fake.webhooks.redeliver(created);
    expect(await runsOf(a.id)).toHaveLength(1);

    // Disabling one automation shrinks the registration; disabling the last removes it.
    await patchAutomation(deps, ws.actor, ws.workspaceId, a.id, { enabled: false });
    expect([...site().webhooks.values()].flatMap((w) => w.events)).toEqual(["comment_created"]);
    await patchAutomation(deps, ws.actor, ws.workspaceId, b.id, { enabled: false });
    expect(site().webhooks.size).toBe(0);
    expect(await registrations()).toHaveLength(0);
  }, 40_000);

  it("maintenance refreshes the shared webhook before its 30-day expiry", async () => {
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, {
      name: "Watch deletes",
      concurrency: 5,
      graph: { nodes: [{ id: "t", name: "issue", key: "tracker.onIssue", connectionId, config: { project: "OPS", events: ["deleted"] } }], edges: [] },
    });
    await patchAutomation(deps, ws.actor, ws.workspaceId, a.id, { enabled: true });
    const [hook] = [...site().webhooks.values()];
    await maintainTriggers(deps);
    expect(fake.state.requests.filter((r) => r.path.endsWith("/webhook/refresh"))).toHaveLength(0);
    // Three days before expiry (as after 27 days), maintenance refreshes it.
    const soon = new Date(Date.now() + 3 * 86_400_000).toISOString();
    await deps.sql("update webhook_registrations set expires_at = ?", soon);
    hook!.expiresAt = Date.parse(soon);
    await maintainTriggers(deps);
    expect(fake.state.requests.filter((r) => r.path.endsWith("/webhook/refresh"))).toHaveLength(1);
    expect(hook!.expiresAt - Date.now()).toBeGreaterThan(29 * 86_400_000);
    expect(Date.parse((await registrations())[0]!.expiresAt!)).toBe(hook!.expiresAt);
    await patchAutomation(deps, ws.actor, ws.workspaceId, a.id, { enabled: false });
  });

  it("two processes refreshing at once end with one valid token (rotation stored first)", async () => {
    await expireToken(connectionId);
    const before = await storedRefreshToken(connectionId);
    const startAt = Date.now() + 1500;
    const child = () =>
      new Promise<string>((resolve) => {
        const p = spawn(process.execPath, ["--import", "tsx", "integrations/tracker/testing/refresh-child.ts"], {
          env: { ...process.env, DB_URL: deps.url, SECRET_HEX: key.toString("hex"), CONNECTION_ID: connectionId, START_AT: String(startAt) },
          stdio: ["ignore", "pipe", "inherit"],
        });
        let out = "";
        p.stdout.on("data", (d) => (out += d));
        p.on("exit", () => resolve(out.trim()));
      });
    const [x, y] = await Promise.all([child(), child()]);
    expect(x).toMatch(/^token at-/);
    expect(y).toBe(x);
    const refreshes = fake.state.requests.filter(
      (r) => r.path === "/oauth/token" && (r.body as { grant_type?: string }).grant_type === "refresh_token" && r.at >= startAt - 100,
    );
    expect(refreshes.map((r) => r.status)).toEqual([200]);
    const stored = await storedRefreshToken(connectionId);
    expect(stored).not.toBe(before);
    expect(fake.state.refreshTokens.get(before)!.valid).toBe(false);
    expect(fake.state.refreshTokens.get(stored)!.valid).toBe(true);
    const handle = await loadConnectionHandle(deps, connectionId);
    expect(await handle.oauth!.getAccessToken()).toBe(x.replace("token ", ""));
  }, 30_000);

  it("a refused refresh (grant revoked) marks the connection needs reconnect", async () => {
    fake.state.revokeGrant(DEMO.clientId, DEMO.users.mia);
    await expireToken(connectionId);
    const handle = await loadConnectionHandle(deps, connectionId);
    await expect(handle.oauth!.getAccessToken()).rejects.toBeInstanceOf(ConnectionAuthError);
    const view = await getConnectionOrThrow(deps, ws.actor, ws.workspaceId, connectionId);
    expect(view.status).toBe("needs_reconnect");
    expect(view.statusMessage).toMatch(/invalid_grant|Unknown or invalid refresh token/);
    await expect(loadConnectionHandle(deps, connectionId)).rejects.toBeInstanceOf(ConnectionAuthError);
  });
});
