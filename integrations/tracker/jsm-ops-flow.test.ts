/**
 * The JSM and Ops units through the real engine: an OAuth tracker connection made against the fake Atlassian,
 * an automation `tracker.onAlert → tracker.createIncident → tracker.updateAlert (acknowledge)`,
 * enabled (the trigger registers its ops webhook integration), then an alert created in the fake:
 * the fake delivers to the app's /hooks/<token>, the runner executes the chain (Create/Update Alert
 * polling via rescheduled steps), and the incident exists and the alert is acknowledged.
 */
import { runnerHooks } from "../../server/runner-hooks";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDeps } from "@/server/testing";
import { seedWorkspace } from "@/server/runner/testing/seed";
import { waitFor } from "@/server/runner/testing/wait";
import { startRunner, type Runner } from "@/server/runner/runner-loop";
import { beginOAuth, completeOAuth, createConnection } from "@/server/services/connections";
import { createAutomation, patchAutomation } from "@/server/services/automations";
import { getRunOrThrow } from "@/server/services/runs";
import { handleHookRequest } from "@/server/webhooks/lean-listener";
import { JSM_DEMO, opsStateOf } from "./testing/fake-atlassian/jsm/wiring";
import { DEMO } from "./testing/fake-atlassian/seed";
import { startFakeAtlassian, type FakeAtlassian } from "./testing/fake-atlassian/server";
import { JSM_OPS_SCOPES } from "./testing/jsm-ops-harness";

let hooks: http.Server;
let deps: Awaited<ReturnType<typeof createTestDeps>>;
let fake: FakeAtlassian;
let runner: Runner;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;

beforeAll(async () => {
  // The app's public /hooks/<token> endpoint, backed by the engine's webhook ingress.
  hooks = http.createServer((req, res) => handleHookRequest(req, res, deps));
  await new Promise<void>((r) => hooks.listen(0, "127.0.0.1", r));
  deps = await createTestDeps({ publicUrl: `http://127.0.0.1:${(hooks.address() as AddressInfo).port}` });
  ws = await seedWorkspace(deps);
  fake = await startFakeAtlassian({ consentMode: "auto" });
  runner = startRunner(deps, runnerHooks(deps), { concurrency: 4, pollMs: 20, retry: { baseMs: 50, maxMs: 200 }, maintenance: false });
});

afterAll(async () => {
  await runner?.stop();
  await fake?.stop();
  await new Promise<void>((r) => hooks.close(() => r()));
  await deps?.close();
});

async function connectTracker(name = "acme"): Promise<string> {
  const con = await createConnection(deps, ws.actor, ws.workspaceId, {
    integration: "tracker",
    name,
    config: { clientId: DEMO.clientId, clientSecret: DEMO.clientSecret, enableOpsFeatures: true, authBaseUrl: fake.url, apiBaseUrl: fake.url },
  });
  const { authorizeUrl, state } = await beginOAuth(deps, ws.actor, ws.workspaceId, con.id, { redirectUri: "http://127.0.0.1/oauth/tracker/callback" });
  expect(authorizeUrl).toContain("read%3Aops-alert%3Ajira-service-management");
  const consent = await fetch(authorizeUrl, { redirect: "manual" });
  const back = new URL(consent.headers.get("location")!);
  expect(back.searchParams.get("state")).toBe(state);
  const done = await completeOAuth(deps, { state, code: back.searchParams.get("code")!, userId: "usr_test" });
  expect(done.connection.status).toBe("ready");
  return con.id;
}

describe("the JSM and Ops units through the engine", () => {
  it("onAlert → createIncident → updateAlert (acknowledge) runs when an alert is created in the fake", async () => {
    const connectionId = await connectTracker();
    const doc = {
      name: "Alert to incident",
      concurrency: 5,
      graph: {
        nodes: [
          { id: "t", name: "alert", key: "tracker.onAlert", connectionId, config: { events: ["created"] } },
          {
            id: "inc",
            name: "incident",
            key: "tracker.createIncident",
            connectionId,
            config: {
              serviceDesk: JSM_DEMO.serviceDeskId,
              requestType: JSM_DEMO.requestTypes.incident,
              summary: "{{ $trigger.data.alert.message }}",
              alertIds: ["{{ $trigger.data.alert.alertId }}"],
            },
          },
          {
            id: "ack",
            name: "ack",
            key: "tracker.updateAlert",
            connectionId,
            config: { alert: "{{ $trigger.data.alert.alertId }}", newNote: "Incident {{ $steps.incident.data.key }}", acknowledge: true },
          },
        ],
        edges: [
          { from: "t", to: "inc" },
          { from: "inc", to: "ack" },
        ],
      },
    };
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, doc);
    await patchAutomation(deps, ws.actor, ws.workspaceId, a.id, { enabled: true });
    const site = opsStateOf(fake.state).site(DEMO.cloudId);
    await waitFor(() => site.integrations.size === 1, 5000, "ops webhook integration registered");
    const integ = [...site.integrations.values()][0]!;
    expect(String(integ.typeSpecificProperties.url)).toContain(`${deps.publicUrl}/hooks/`);

    // Somebody (a monitoring tool) raises an alert in the operations module.
    const token = fake.state.issueTokens(DEMO.clientId, DEMO.users.ravi, JSM_OPS_SCOPES).access_token;
    fake.state.grants.set(`${DEMO.clientId}:${DEMO.users.ravi}`, new Set([DEMO.cloudId]));
    const res = await fetch(`${fake.url}/jsm/ops/api/${DEMO.cloudId}/v1/alerts`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "Disk full on db-1", priority: "P2" }),
    });
    expect(res.status).toBe(200);

    let runId = "";
    await waitFor(
      async () => {
        const rows = await deps.sql<{ id: string; status: string }>("select id, status from runs where automation_id = ?", a.id);
        runId = rows[0]?.id ?? "";
        return rows.some((r) => r.status === "succeeded" || r.status === "failed");
      },
      20_000,
      "the run to finish",
    );
    const detail = await getRunOrThrow(deps, ws.actor, ws.workspaceId, runId);
    expect(detail.steps.map((s) => [s.name, s.status])).toEqual([
      ["alert", "succeeded"],
      ["incident", "succeeded"],
      ["ack", "succeeded"],
    ]);

    const alert = [...site.alerts.values()][0]!;
    const incidentKey = (detail.steps[1]!.output as { data: { key: string } }).data.key;
    expect(fake.state.site(DEMO.cloudId)!.issue(incidentKey)).toMatchObject({ summary: "Disk full on db-1", extra: { [JSM_DEMO.fields.alerts]: [alert.id] } });
    expect(alert).toMatchObject({ acknowledged: true, status: "acked" });
    expect(site.notes.get(alert.id)?.map((n) => n.note)).toEqual([`Incident ${incidentKey}`]);
    expect(detail.steps[2]!.output).toMatchObject({ type: "tracker.alert.updated", data: { id: alert.id, acknowledged: true } });

    // Disabling the automation removes the trigger's ops webhook integration.
    await patchAutomation(deps, ws.actor, ws.workspaceId, a.id, { enabled: false });
    await waitFor(() => site.integrations.size === 0, 5000, "ops webhook integration removed");
  });

  it("saving checks the upstream: an unknown service desk, request type or team is a problem on its field", async () => {
    const connectionId = await connectTracker("acme-checks");
    type Node = { id: string; key: string; config: Record<string, unknown> };
    const save = (nodes: Node[]) =>
      createAutomation(deps, ws.actor, ws.workspaceId, {
        name: `checks ${nodes.map((n) => n.id).join(" ")} ${Date.now()}`,
        graph: {
          nodes: [{ id: "m", name: "m", key: "core.manual", config: {} }, ...nodes.map((n) => ({ ...n, name: n.id, connectionId }))],
          edges: nodes.filter((n) => !n.key.includes(".on")).map((n) => ({ from: "m", to: n.id })),
        },
      }).then((a) => ({
        id: a.id,
        problems: (a.problems ?? []).filter((p) => p.severity === "error").map((p) => ({ nodeId: p.nodeId, path: p.path, message: p.message })),
      }));
    const bad = await save([
      { id: "inc", key: "tracker.createIncident", config: { serviceDesk: "NOPE", requestType: JSM_DEMO.requestTypes.incident, summary: "x" } },
      { id: "inc2", key: "tracker.createIncident", config: { serviceDesk: "SD", requestType: "999", summary: "x" } },
      { id: "hb", key: "tracker.pingHeartbeat", config: { team: "Green Team", heartbeat: "dns" } },
      { id: "on", key: "tracker.onIncident", config: { serviceDesk: "42", requestTypes: [JSM_DEMO.requestTypes.incident] } },
    ]);
    // Saved as a draft that lists every problem on its field (enabling it would be refused).
    expect(bad.problems).toEqual([
      { nodeId: "inc", path: "graph.nodes.1.config.serviceDesk", message: expect.stringMatching(/Service desk "NOPE" does not exist/) },
      { nodeId: "inc2", path: "graph.nodes.2.config.requestType", message: expect.stringMatching(/Request type 999 does not exist/) },
      { nodeId: "hb", path: "graph.nodes.3.config.team", message: expect.stringMatching(/No operations team "Green Team"/) },
      { nodeId: "on", path: "graph.nodes.4.config.serviceDesk", message: expect.stringMatching(/Service desk "42" does not exist/) },
    ]);

    // The picker's key, a desk id and a team name are all fine.
    const good = await save([
      { id: "inc", key: "tracker.createIncident", config: { serviceDesk: "SD", requestType: JSM_DEMO.requestTypes.incident, summary: "x" } },
      { id: "hb", key: "tracker.pingHeartbeat", config: { team: "Red Team", heartbeat: "dns" } },
      { id: "on", key: "tracker.onIncident", config: { serviceDesk: JSM_DEMO.serviceDeskId, requestTypes: [JSM_DEMO.requestTypes.incident] } },
    ]);
    expect(good.problems).toEqual([]);

    // An upstream that cannot answer does not block the save (the run reports it).
    const other = await connectTracker("acme-down");
    fake.fail({ path: "/servicedesk", status: 503 });
    const down = await createAutomation(deps, ws.actor, ws.workspaceId, {
      name: "upstream down",
      graph: {
        nodes: [
          { id: "m", name: "m", key: "core.manual", config: {} },
          { id: "inc", name: "inc", key: "tracker.createIncident", connectionId: other, config: { serviceDesk: "NOPE", requestType: "31", summary: "x" } },
        ],
        edges: [{ from: "m", to: "inc" }],
      },
    });
    expect(down.id).toMatch(/^aut_/);
    expect(fake.state.requests.some((r) => r.path.endsWith("/servicedesk") && r.status === 503)).toBe(true);
  });

  it("saving an ops node on a connection without ops features (or without a synced site) says why and how to fix it", async () => {
    const save = async (config: Record<string, unknown>) => {
      const con = await createConnection(deps, ws.actor, ws.workspaceId, {
        integration: "tracker",
        name: `c${Math.random()}`,
        config: { clientId: "x", clientSecret: "y", apiBaseUrl: fake.url, ...config },
      });
      const doc = {
        name: `gate ${con.id}`,
        graph: {
          nodes: [
            { id: "t", name: "alert", key: "tracker.onAlert", connectionId: con.id, config: { events: ["created"] } },
            { id: "c", name: "create", key: "tracker.createAlert", connectionId: con.id, config: { message: "m" } },
          ],
          edges: [{ from: "t", to: "c" }],
        },
      };
      // A disabled automation saves as a draft whose `problems` say why (enabling would be refused with them).
      return createAutomation(deps, ws.actor, ws.workspaceId, doc).then(
        (a) => a.problems,
        (e: { errors?: Array<{ nodeId?: string; message: string }> }) => e.errors ?? [],
      );
    };
    const off = await save({ enableOpsFeatures: false });
    expect(off.map((p) => p.nodeId).sort()).toEqual(["c", "t"]);
    for (const p of off) expect(p.message).toMatch(/turn on .Enable ops features.*Save and reconnect/);
    const noSite = await save({ enableOpsFeatures: true });
    expect(noSite.map((p) => p.message)).toEqual([expect.stringMatching(/no synced site \(cloud id\)/), expect.stringMatching(/no synced site/)]);
  });
});
