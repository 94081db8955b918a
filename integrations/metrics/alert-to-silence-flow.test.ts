/**
 * End to end through the real engine: a Prometheus rule fires → Alertmanager (group_wait 1s) POSTs to
 * the app's real /hooks/<token> (lean listener → receiveWebhook) with the connection's bearer secret,
 * configured from the trigger panel's own alertmanager.yml snippet → a run of
 * `metrics.onAlert → metrics.createSilence (matchers from the alert's labels) → metrics.getSilence`
 * → Alertmanager lists the silence active and mutes the alert. Then: a repeat of the same episode
 * starts no second run, a resolved notification is filtered out (only firing selected), and a wrong
 * secret is refused with 401 and creates nothing.
 */
import { runnerHooks } from "../../server/runner-hooks";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDeps } from "@/server/testing";
import { seedWorkspace } from "@/server/runner/testing/seed";
import { waitFor } from "@/server/runner/testing/wait";
import { startRunner, type Runner } from "@/server/runner/runner-loop";
import { createConnection } from "@/server/services/connections";
import { createAutomation, patchAutomation } from "@/server/services/automations";
import { getTriggerInfo } from "@/server/services/editor/trigger-info";
import { getRunOrThrow, startRun } from "@/server/services/runs";
import { waitForRun } from "@/server/runner/testing/wait";
import { handleHookRequest } from "@/server/webhooks/lean-listener";
import { freePort, startMetricsStack, type MetricsStack } from "./testing/metrics-stack";
import { SECRET_PLACEHOLDER } from "./triggers/setup-snippet";

const SECRET = "e2e-webhook-secret-0123456789";

interface Delivery {
  at: number;
  headers: Record<string, string>;
  rawBody: Buffer;
  status: number;
  response: string;
}

let hooks: http.Server;
let deps: Awaited<ReturnType<typeof createTestDeps>>;
let runner: Runner;
let stack: MetricsStack;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;
const deliveries: Delivery[] = [];

beforeAll(async () => {
  // The app's /hooks/* door exactly as server/main.ts mounts it; responses are recorded for the test.
  hooks = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    const end = res.end.bind(res) as (chunk?: unknown) => http.ServerResponse;
    res.end = ((chunk?: unknown) => {
      deliveries.push({ at: Date.now(), headers, rawBody: Buffer.concat(chunks), status: res.statusCode, response: String(chunk ?? "") });
      return end(chunk);
    }) as typeof res.end;
    handleHookRequest(req, res, deps);
  });
  await new Promise<void>((r) => hooks.listen(0, "127.0.0.1", r));
  deps = await createTestDeps({ publicUrl: `http://127.0.0.1:${(hooks.address() as AddressInfo).port}` });
  ws = await seedWorkspace(deps);
  stack = await startMetricsStack();
  runner = startRunner(deps, runnerHooks(deps), { concurrency: 4, pollMs: 20, retry: { baseMs: 50, maxMs: 200 }, maintenance: false });
});

afterAll(async () => {
  await runner?.stop();
  await stack?.stop();
  await new Promise<void>((r) => hooks?.close(() => r()));
  await deps?.close();
});

const runsOf = (automationId: string) =>
  deps.sql<{ id: string; status: string; finishedAt: string | null }>(
    'select id, status, finished_at as "finishedAt" from runs where automation_id = ?',
    automationId,
  );
const eventCount = async (automationId?: string) =>
  Number(
    (
      await (automationId
        ? deps.sql<{ n: number }>("select count(*) as n from events where automation_id = ?", automationId)
        : deps.sql<{ n: number }>("select count(*) as n from events"))
    )[0]!.n,
  );

const postHook = (url: string, rawBody: Buffer, authorization?: string) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) }, body: new Uint8Array(rawBody) });

describe("metrics alert → silence through the engine", () => {
  it("a real firing alert runs onAlert → createSilence → getSilence and Alertmanager mutes the alert", async () => {
    const con = await createConnection(deps, ws.actor, ws.workspaceId, {
      integration: "metrics",
      name: "Local Prometheus",
      config: { metricsBaseUrl: stack.prometheusUrl, alertRouterBaseUrl: stack.alertmanagerUrl, apiAuth: { type: "none" }, webhookSecret: SECRET },
    });
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, {
      name: "Silence disk alerts",
      concurrency: 5,
      graph: {
        nodes: [
          { id: "t", name: "alert", key: "metrics.onAlert", connectionId: con.id, config: { statuses: ["firing"], alertNames: ["E2EDiskFull"] } },
          {
            id: "s",
            name: "silence",
            key: "metrics.createSilence",
            connectionId: con.id,
            config: {
              matchers: [
                { name: "alertname", value: "{{ $trigger.data.labels.alertname }}" },
                { name: "instance", value: "{{ $trigger.data.labels.instance }}" },
              ],
              duration: "1h",
              createdBy: "conveyor",
              comment: "Auto-silenced {{ $trigger.data.fingerprint }} from {{ $trigger.data.receiver }}",
            },
          },
          { id: "g", name: "check", key: "metrics.getSilence", connectionId: con.id, config: { silence: "{{ $steps.silence.data.silenceID }}" } },
        ],
        edges: [
          { from: "t", to: "s" },
          { from: "s", to: "g" },
        ],
      },
    });
    await patchAutomation(deps, ws.actor, ws.workspaceId, a.id, { enabled: true });

    // Configure Alertmanager from the trigger panel's snippet (the user pastes their secret in).
    const info = await getTriggerInfo(deps, ws.actor, ws.workspaceId, a.id, "t");
    const url = (info as { url: string | null }).url!;
    expect(url).toMatch(new RegExp(`^${deps.publicUrl}/hooks/`));
    const instructions = (info as { instructions: Array<{ text: string }> }).instructions;
    expect(instructions[0]!.text).toContain(SECRET_PLACEHOLDER);
    expect(instructions[0]!.text).not.toContain(SECRET);
    expect(instructions[0]!.text).toContain("send_resolved: false");
    await stack.setWebhook({ snippet: instructions[0]!.text.replace(SECRET_PLACEHOLDER, SECRET).replace("send_resolved: false", "send_resolved: true") });

    // Every Prometheus reload (how rules are loaded here) drops its Alertmanager list until the next
    // discovery tick (up to 5 s), and an alert firing in that window is only sent on a later resend.
    // A real alert fires on a long-loaded rule, so: load a rule that becomes true by itself at T,
    // wait for rediscovery, and measure from the moment Prometheus fires it.
    const T = Math.ceil(Date.now() / 1000) + 8;
    const t0 = Date.now();
    await stack.setRules([
      {
        alert: "E2EDiskFull",
        expr: `label_replace(vector(time()), "instance", "db-1:9100", "", "") > ${T}`,
        labels: { severity: "page" },
        annotations: { summary: "Disk almost full" },
      },
    ]);
    await stack.waitForDiscovery();
    expect(Date.now()).toBeLessThan(T * 1000); // Prometheus knows its Alertmanager before the alert fires
    let finished: { id: string; status: string; finishedAt: string | null } | undefined;
    await waitFor(
      async () => {
        finished = (await runsOf(a.id)).find((r) => r.status === "succeeded" || r.status === "failed");
        return Boolean(finished);
      },
      45_000,
      "the run to finish",
    );
    const tDone = Date.now();

    const detail = await getRunOrThrow(deps, ws.actor, ws.workspaceId, finished!.id);
    expect(detail.steps.map((s) => [s.name, s.status])).toEqual([
      ["alert", "succeeded"],
      ["silence", "succeeded"],
      ["check", "succeeded"],
    ]);
    const trigger = detail.steps[0]!.output as { data: { labels: Record<string, string>; startsAt: string; fingerprint: string; status: string } };
    expect(trigger.data).toMatchObject({ status: "firing", labels: { alertname: "E2EDiskFull", instance: "db-1:9100", severity: "page" } });
    const silence = detail.steps[1]!.output as { type: string; data: { silenceID: string; status: string; matchers: unknown[]; comment: string } };
    expect(silence.type).toBe("metrics.silence");
    expect(silence.data).toMatchObject({
      status: "active",
      createdBy: "conveyor",
      matchers: [
        { name: "alertname", value: "E2EDiskFull", isRegex: false, isEqual: true },
        { name: "instance", value: "db-1:9100", isRegex: false, isEqual: true },
      ],
    });
    expect(silence.data.comment).toMatch(new RegExp(`^Auto-silenced ${trigger.data.fingerprint} from conveyor-`));
    expect(detail.steps[2]!.output).toMatchObject({ type: "metrics.silence", data: { silenceID: silence.data.silenceID, status: "active" } });

    // Alertmanager lists the silence active and reports the alert as silenced by it.
    const listed = (await fetch(`${stack.alertmanagerUrl}/api/v2/silences`).then((r) => r.json())) as Array<{ id: string; status: { state: string } }>;
    expect(listed.find((s) => s.id === silence.data.silenceID)?.status.state).toBe("active");
    const amAlerts = (await fetch(`${stack.alertmanagerUrl}/api/v2/alerts?filter=alertname%3D%22E2EDiskFull%22`).then((r) => r.json())) as Array<{
      status: { state: string; silencedBy: string[] };
    }>;
    expect(amAlerts[0]!.status).toMatchObject({ state: "suppressed", silencedBy: [silence.data.silenceID] });

    // Timing: Prometheus fires the alert at its activeAt (= startsAt in the notification).
    const firedAt = Date.parse(trigger.data.startsAt);
    const first = deliveries.find((d) => d.status === 202)!;
    const timing = {
      ruleLoadedToFiringMs: firedAt - t0, // ≈ 8 s by construction (fires at T)
      firingToWebhookMs: first.at - firedAt,
      webhookToRunDoneMs: Date.parse(finished!.finishedAt!) - first.at,
      firingToRunDoneMs: Date.parse(finished!.finishedAt!) - firedAt,
      ruleLoadedToRunDoneMs: tDone - t0,
    };
    console.log(`[metrics e2e timing] ${JSON.stringify(timing)}`);
    expect(first.headers.authorization).toBe(`Bearer ${SECRET}`);

    // The same episode delivered again (Alertmanager repeat / retry) starts no second run.
    const again = await postHook(url, first.rawBody, `Bearer ${SECRET}`);
    expect(again.status).toBe(202);
    expect(await again.json()).toMatchObject({ accepted: 0, duplicates: 1 });

    // A wrong or missing secret: 401, nothing stored, no run.
    const eventsBefore = await eventCount();
    for (const auth of [`Bearer ${SECRET}x`, undefined]) {
      const bad = await postHook(url, first.rawBody, auth);
      expect(bad.status).toBe(401);
    }
    expect(await eventCount()).toBe(eventsBefore);
    expect(await runsOf(a.id)).toHaveLength(1);

    // Expire the silence, then resolve the alert: Alertmanager sends a resolved notification,
    // which the trigger (firing only) filters out: accepted, but no run.
    await fetch(`${stack.alertmanagerUrl}/api/v2/silence/${silence.data.silenceID}`, { method: "DELETE" });
    const before = deliveries.length;
    await stack.setRules([{ alert: "E2EDiskFull", expr: 'label_replace(vector(40), "instance", "db-1:9100", "", "") > 90', labels: { severity: "page" } }]);
    let resolved: Delivery | undefined;
    await waitFor(
      () => {
        resolved = deliveries.slice(before).find((d) => JSON.parse(d.rawBody.toString() || "{}").status === "resolved");
        return Boolean(resolved);
      },
      45_000,
      "the resolved notification",
    );
    expect(resolved!.status).toBe(202);
    expect(JSON.parse(resolved!.response)).toMatchObject({ accepted: 0, runIds: [] });
    expect(await runsOf(a.id)).toHaveLength(1);
    expect(await eventCount(a.id)).toBe(1);
  }, 120_000);

  it("the runner retries an unreachable Prometheus, then fails with a clear message; bad PromQL fails at once", async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const down = await createConnection(deps, ws.actor, ws.workspaceId, {
      integration: "metrics",
      name: "Unreachable",
      config: { metricsBaseUrl: closed, apiAuth: { type: "bearer", token: "tok-never-shown" } },
    });
    const up = await createConnection(deps, ws.actor, ws.workspaceId, { integration: "metrics", name: "Up", config: { metricsBaseUrl: stack.prometheusUrl } });
    const automation = async (connectionId: string, query: string) =>
      createAutomation(deps, ws.actor, ws.workspaceId, {
        name: `query ${connectionId}`,
        graph: {
          nodes: [
            { id: "m", name: "start", key: "core.manual", config: {} },
            { id: "q", name: "query", key: "metrics.query", connectionId, config: { query } },
          ],
          edges: [{ from: "m", to: "q" }],
        },
      });

    const a1 = await automation(down.id, "up");
    const r1 = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a1.id });
    expect(await waitForRun(deps, r1.id, undefined, 30_000)).toBe("failed");
    const d1 = await getRunOrThrow(deps, ws.actor, ws.workspaceId, r1.id);
    const step = d1.steps.find((s) => s.name === "query")!;
    expect(step.attempts.length).toBe(5); // the runner's default attempts, all retryable
    expect(step.attempts.every((t) => t.retryable === true)).toBe(true);
    expect(step.error).toBe(`Prometheus at ${closed} is unreachable (ECONNREFUSED) (gave up after 5 attempts)`);
    expect(JSON.stringify(d1)).not.toContain("tok-never-shown");

    const a2 = await automation(up.id, "sum(rate(x[5m]");
    const r2 = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a2.id });
    expect(await waitForRun(deps, r2.id, undefined, 15_000)).toBe("failed");
    const step2 = (await getRunOrThrow(deps, ws.actor, ws.workspaceId, r2.id)).steps.find((s) => s.name === "query")!;
    expect(step2.attempts).toHaveLength(1);
    expect(step2.error).toMatch(/^Prometheus rejected the query: .*parse error/);
  }, 60_000);
});
