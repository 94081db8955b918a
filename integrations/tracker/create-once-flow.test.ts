/**
 * Create Issue through the real engine and its retries: Jira creates the issue and the connection is reset
 * before the answer arrives; the runner's retry finds the issue by the step's label instead of creating a
 * second one, and the step's output is that issue. A create that is answered stays one request.
 */
import { runnerHooks } from "../../server/runner-hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDeps } from "@/server/testing";
import { seedWorkspace } from "@/server/runner/testing/seed";
import { waitForRun } from "@/server/runner/testing/wait";
import { startRunner, type Runner } from "@/server/runner/runner-loop";
import { beginOAuth, completeOAuth, createConnection } from "@/server/services/connections";
import { createAutomation } from "@/server/services/automations";
import { getRunOrThrow, startRun } from "@/server/services/runs";
import { DEMO } from "./testing/fake-atlassian/seed";
import { startFakeAtlassian, type FakeAtlassian } from "./testing/fake-atlassian/server";

let deps: Awaited<ReturnType<typeof createTestDeps>>;
let fake: FakeAtlassian;
let runner: Runner;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;
let automationId: string;

beforeAll(async () => {
  deps = await createTestDeps();
  ws = await seedWorkspace(deps);
  fake = await startFakeAtlassian({ consentMode: "auto" });
  runner = startRunner(deps, runnerHooks(deps), { concurrency: 2, pollMs: 20, retry: { baseMs: 50, maxMs: 200 }, maintenance: false });
  const con = await createConnection(deps, ws.actor, ws.workspaceId, {
    integration: "tracker",
    name: "acme",
    config: { clientId: DEMO.clientId, clientSecret: DEMO.clientSecret, authBaseUrl: fake.url, apiBaseUrl: fake.url },
  });
  const { authorizeUrl } = await beginOAuth(deps, ws.actor, ws.workspaceId, con.id, { redirectUri: "http://127.0.0.1/oauth/tracker/callback" });
  const back = new URL((await fetch(authorizeUrl, { redirect: "manual" })).headers.get("location")!);
  const done = await completeOAuth(deps, { state: back.searchParams.get("state")!, code: back.searchParams.get("code")!, userId: "usr_test" });
  expect(done.needsSiteChoice).toBeFalsy();
  const a = await createAutomation(deps, ws.actor, ws.workspaceId, {
    name: "Alert to ticket",
    concurrency: 5,
    graph: {
      nodes: [
        { id: "t", name: "start", key: "core.manual", config: {} },
        {
          id: "c",
          name: "ticket",
          key: "tracker.createIssue",
          connectionId: con.id,
          config: { project: "OPS", issueType: DEMO.issueTypes.task, summary: "{{ $trigger.data.summary }}" },
        },
      ],
      edges: [{ from: "t", to: "c" }],
    },
  });
  automationId = a.id;
});

afterAll(async () => {
  await runner?.stop();
  await fake?.stop();
  await deps?.close();
});

const site = () => fake.state.site(DEMO.cloudId)!;
const creates = () => fake.state.requests.filter((r) => r.method === "POST" && r.path.endsWith("/rest/api/3/issue"));
const searches = () => fake.state.requests.filter((r) => r.path.endsWith("/rest/api/3/search/jql"));

async function runTicket(summary: string) {
  const r = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId, payload: { summary } });
  expect(await waitForRun(deps, r.id)).toBe("succeeded");
  const detail = await getRunOrThrow(deps, ws.actor, ws.workspaceId, r.id);
  const step = detail.steps.find((s) => s.name === "ticket")!;
  return { step, output: step.output as { type: string; data: { id: string; key: string; fields: { summary: string; labels: string[] } } } };
}

describe("Create Issue across the runner's retries", () => {
  it("a create whose answer is lost leaves one issue, and the step's output is that issue", async () => {
    fake.fail({ method: "POST", path: /\/rest\/api\/3\/issue$/, lose: "reset" });
    const before = creates().length;
    const { step, output } = await runTicket("DiskFull on db-1");
    expect(step.attempts).toHaveLength(2);
    expect(step.attempts[0]!.error).toMatch(/POST .*\/rest\/api\/3\/issue failed/);
    const mine = [...site().issues.values()].filter((i) => i.summary === "DiskFull on db-1");
    expect(mine).toHaveLength(1);
    expect(mine[0]!.labels).toEqual([`conveyor-${step.id}`]);
    expect(output).toMatchObject({ type: "tracker.issue", data: { id: mine[0]!.id, key: mine[0]!.key, fields: { labels: [`conveyor-${step.id}`] } } });
    expect(
      creates()
        .slice(before)
        .map((r) => [r.status, r.lost]),
    ).toEqual([[201, "reset"]]);
  });

  it("a create that is answered is one request, with no search", async () => {
    const before = { creates: creates().length, searches: searches().length };
    const { step, output } = await runTicket("HighLatency on a:9100");
    expect(step.attempts).toHaveLength(1);
    expect(creates().length - before.creates).toBe(1);
    expect(searches().length).toBe(before.searches);
    expect(site().issue(output.data.key)!.labels).toEqual([`conveyor-${step.id}`]);
  });
});
