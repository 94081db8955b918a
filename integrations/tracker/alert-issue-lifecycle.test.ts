/**
 * Alert to Jira issue and back, through the real engine: one automation takes Alertmanager's firing
 * and resolved notifications (the captured body, posted to the app's real /hooks door with the
 * connection's bearer secret). On firing it creates an issue in the fake Atlassian and remembers
 * the issue key under the alert's episode (`core.remember`); on resolve it recalls the key
 * (`core.recall`, forgetting it) and moves the issue to Done with a comment. Also: a resolve that
 * arrives before its firing run has remembered anything waits for it; test runs keep a memory of
 * their own.
 */
import { runnerHooks } from "../../server/runner-hooks";
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDeps } from "@/server/testing";
import { seedWorkspace } from "@/server/runner/testing/seed";
import { waitFor, waitForRun } from "@/server/runner/testing/wait";
import { startRunner, type Runner } from "@/server/runner/runner-loop";
import { createConnection } from "@/server/services/connections";
import { createAutomation, patchAutomation } from "@/server/services/automations";
import { getTriggerInfo } from "@/server/services/editor/trigger-info";
import { getRunOrThrow } from "@/server/services/runs";
import { startTestRun } from "@/server/services/runs/test-run";
import { handleHookRequest } from "@/server/webhooks/lean-listener";
import { adfToText } from "./adf";
import { DEMO } from "./testing/fake-atlassian/seed";
import { startFakeAtlassian, type FakeAtlassian } from "./testing/fake-atlassian/server";
import { connectTrackerThroughEngine } from "./testing/connect-engine";

const SECRET = "alert-issue-webhook-secret-0123456789";
const firingSample = JSON.parse(readFileSync(new URL("../metrics/testing/samples/alertmanager-webhook.json", import.meta.url), "utf8")) as {
  status: string;
  alerts: Array<Record<string, unknown> & { labels: Record<string, string>; fingerprint: string; startsAt: string }>;
};

let hooks: http.Server;
let deps: Awaited<ReturnType<typeof createTestDeps>>;
let fake: FakeAtlassian;
let runner: Runner;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;
let hookUrl: string;
let automationId: string;

beforeAll(async () => {
  hooks = http.createServer((req, res) => handleHookRequest(req, res, deps));
  await new Promise<void>((r) => hooks.listen(0, "127.0.0.1", r));
  deps = await createTestDeps({ publicUrl: `http://127.0.0.1:${(hooks.address() as AddressInfo).port}` });
  ws = await seedWorkspace(deps);
  fake = await startFakeAtlassian({ consentMode: "auto" });
  runner = startRunner(deps, runnerHooks(deps), { concurrency: 4, pollMs: 20, retry: { baseMs: 50, maxMs: 200 }, maintenance: false });

  const tracker = await connectTrackerThroughEngine(deps, ws, fake);
  const metrics = await createConnection(deps, ws.actor, ws.workspaceId, {
    integration: "metrics",
    name: "Prometheus",
    config: { metricsBaseUrl: "http://127.0.0.1:9", alertRouterBaseUrl: "http://127.0.0.1:9", apiAuth: { type: "none" }, webhookSecret: SECRET },
  });
  const episode = "{{ $trigger.data.fingerprint }}-{{ $trigger.data.startsAt }}";
  const a = await createAutomation(deps, ws.actor, ws.workspaceId, {
    name: "Alert to ticket and back",
    concurrency: 5,
    graph: {
      nodes: [
        { id: "t", name: "alert", key: "metrics.onAlert", connectionId: metrics.id, config: { statuses: ["firing", "resolved"] } },
        { id: "f1", name: "isFiring", key: "core.filter", config: { condition: "{{ $trigger.data.status = 'firing' }}" } },
        {
          id: "c",
          name: "openTicket",
          key: "tracker.createIssue",
          connectionId: tracker.id,
          config: { project: "OPS", issueType: DEMO.issueTypes.task, summary: "{{ $trigger.data.labels.alertname }} is firing" },
        },
        { id: "m", name: "rememberTicket", key: "core.remember", config: { key: episode, value: "{{ $steps.openTicket.data.key }}", keepFor: "7d" } },
        { id: "f2", name: "isResolved", key: "core.filter", config: { condition: "{{ $trigger.data.status = 'resolved' }}" } },
        { id: "r", name: "ticket", key: "core.recall", config: { key: episode, ifMissing: "wait", waitUpTo: "1m", forget: true } },
        {
          id: "x",
          name: "closeTicket",
          key: "tracker.transitionIssue",
          connectionId: tracker.id,
          config: { issueKey: "{{ $steps.ticket.data.value }}", targetStatus: "Done", resolution: "Done", comment: "Resolved in Alertmanager" },
        },
      ],
      edges: [
        { from: "t", to: "f1" },
        { from: "f1", to: "c" },
        { from: "c", to: "m" },
        { from: "t", to: "f2" },
        { from: "f2", to: "r" },
        { from: "r", to: "x" },
      ],
    },
  });
  await patchAutomation(deps, ws.actor, ws.workspaceId, a.id, { enabled: true });
  automationId = a.id;
  hookUrl = ((await getTriggerInfo(deps, ws.actor, ws.workspaceId, a.id, "t")) as { url: string }).url;
});

afterAll(async () => {
  await runner?.stop();
  await fake?.stop();
  await new Promise<void>((r) => hooks?.close(() => r()));
  await deps?.close();
});

const site = () => fake.state.site(DEMO.cloudId)!;

/** One Alertmanager notification of one alert episode (same fingerprint and startsAt when it resolves). */
function notification(status: "firing" | "resolved", alertname: string, fingerprint: string, startsAt: string) {
  const alert = firingSample.alerts[0]!;
  return {
    ...firingSample,
    status,
    alerts: [
      {
        ...alert,
        status,
        labels: { ...alert.labels, alertname },
        fingerprint,
        startsAt,
        endsAt: status === "resolved" ? new Date(Date.parse(startsAt) + 600_000).toISOString() : "0001-01-01T00:00:00Z",
      },
    ],
  };
}

async function deliver(body: unknown): Promise<string[]> {
  const res = await fetch(hookUrl, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${SECRET}` },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { runIds: string[] }).runIds;
}

const stepsOf = async (runId: string) =>
  (await getRunOrThrow(deps, ws.actor, ws.workspaceId, runId)).steps.map((s) => ({ name: s.name, status: s.status, output: s.output, error: s.error }));

/** The run's final status, with its steps' errors when it failed (so a failure says why). */
async function finished(runId: string, timeoutMs?: number): Promise<string> {
  const status = await waitForRun(deps, runId, undefined, timeoutMs);
  if (status !== "succeeded") return `${status}: ${JSON.stringify((await stepsOf(runId)).filter((s) => s.error).map((s) => [s.name, s.error]))}`;
  return status;
}

describe("alert → Jira issue → closed on resolve (core.remember / core.recall)", () => {
  it("the firing run opens an issue and remembers it; the resolve run finds it, moves it to Done and forgets it", async () => {
    const startsAt = "2026-11-25T10:00:00.000Z";
    const [firing] = await deliver(notification("firing", "DiskFull", "aaaa000000000001", startsAt));
    expect(await finished(firing!)).toBe("succeeded");
    const opened = await stepsOf(firing!);
    const issueKey = (opened.find((s) => s.name === "openTicket")!.output as { data: { key: string } }).data.key;
    expect(site().issue(issueKey)!.summary).toBe("DiskFull is firing");
    expect(site().issue(issueKey)!.statusId).toBe(DEMO.statuses.todo);
    expect(opened.find((s) => s.name === "rememberTicket")!.output).toMatchObject({
      type: "core.remember",
      data: { key: `aaaa000000000001-${startsAt}`, scope: "automation", replaced: false },
    });
    expect(await deps.store.memories.countLive(ws.workspaceId, new Date().toISOString())).toBe(1);

    const [resolved] = await deliver(notification("resolved", "DiskFull", "aaaa000000000001", startsAt));
    expect(await finished(resolved!)).toBe("succeeded");
    const closed = await stepsOf(resolved!);
    expect(closed.map((s) => [s.name, s.status])).toEqual([
      ["alert", "succeeded"],
      ["isFiring", "skipped"],
      ["isResolved", "succeeded"],
      ["ticket", "succeeded"],
      ["closeTicket", "succeeded"],
    ]);
    expect(closed.find((s) => s.name === "ticket")!.output).toMatchObject({
      data: { found: true, value: issueKey, storedBy: { runId: firing, nodeId: "m", automationId } },
    });
    const issue = site().issue(issueKey)!;
    expect(issue.statusId).toBe(DEMO.statuses.done);
    expect(issue.comments.map((c) => adfToText(c.body))).toContain("Resolved in Alertmanager");
    // Forgotten once read: a second resolve of the same episode (Alertmanager resends) finds nothing.
    expect(await deps.store.memories.countLive(ws.workspaceId, new Date().toISOString())).toBe(0);
  });

  it("a resolve that arrives before the firing run remembered its issue waits for it", async () => {
    const startsAt = "2026-11-25T11:00:00.000Z";
    const issuesBefore = site().issues.size;
    // The resolve first: its recall finds nothing yet and waits (no worker held).
    const [resolved] = await deliver(notification("resolved", "CpuHot", "bbbb000000000002", startsAt));
    await waitFor(async () => (await stepsOf(resolved!)).some((s) => s.name === "ticket" && s.status === "waiting"), 15_000, "the recall to wait");
    const [firing] = await deliver(notification("firing", "CpuHot", "bbbb000000000002", startsAt));
    expect(await finished(firing!)).toBe("succeeded");
    expect((await finished(resolved!, 30_000))).toBe("succeeded");
    expect(site().issues.size).toBe(issuesBefore + 1);
    const issueKey = ((await stepsOf(firing!)).find((s) => s.name === "openTicket")!.output as { data: { key: string } }).data.key;
    expect(site().issue(issueKey)!.statusId).toBe(DEMO.statuses.done);
  });

  it("a test run's remember is kept apart: production runs do not recall it, and it does not replace theirs", async () => {
    const startsAt = "2026-11-25T12:00:00.000Z";
    const [firing] = await deliver(notification("firing", "Latency", "cccc000000000003", startsAt));
    expect(await finished(firing!)).toBe("succeeded");
    // "Run step" on Remember, with the production run's outputs as its inputs.
    const test = await startTestRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId, nodeId: "m", scope: "step", runId: firing });
    expect(await finished(test.id)).toBe("succeeded");
    const rows = await deps.sql<{ scope: string }>("select scope from memories where key = ? order by scope", `cccc000000000003-${startsAt}`);
    expect(rows.map((r) => r.scope)).toEqual([automationId, `test:${automationId}`]);
    const [resolved] = await deliver(notification("resolved", "Latency", "cccc000000000003", startsAt));
    expect(await finished(resolved!)).toBe("succeeded");
    expect((await stepsOf(resolved!)).find((s) => s.name === "ticket")!.output).toMatchObject({ data: { storedBy: { runId: firing } } });
  });
});
