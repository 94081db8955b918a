import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import YAML from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TriggerMatchContext } from "../../core/define";
import { DeliveryRejectedError, DeliveryUnauthorizedError } from "../../core/errors";
import type { MetricsConnection } from "../connection";
import { AlertEventSchema } from "../schemas";
import { startMetricsStack, type MetricsStack } from "../testing/metrics-stack";
import { startWebhookSink, toDelivery, type Received, type WebhookSink } from "../testing/webhook-sink";
import { onAlert } from "./on-alert";
import { alertmanagerSnippet, receiverName, SECRET_PLACEHOLDER, TOP_LEVEL_ROUTE_HINT } from "./setup-snippet";

const samples = path.join(import.meta.dirname, "../testing/samples");
const firingRaw = fs.readFileSync(path.join(samples, "alertmanager-webhook.json"));
const resolvedRaw = fs.readFileSync(path.join(samples, "alertmanager-webhook-resolved.json"));
const sampleHeaders = JSON.parse(fs.readFileSync(path.join(samples, "alertmanager-webhook.headers.json"), "utf8")) as Record<string, string>;
const SAMPLE_SECRET = "feas-webhook-token";

const conn = (webhookSecret?: string): MetricsConnection => ({
  metricsBaseUrl: "http://127.0.0.1:19090",
  alertRouterBaseUrl: "http://127.0.0.1:19093",
  apiAuth: { type: "none" },
  ...(webhookSecret ? { webhookSecret } : {}),
});

function ctx(config: unknown, connection: MetricsConnection = conn(SAMPLE_SECRET)): TriggerMatchContext<never> {
  return {
    config: onAlert.config.parse(config) as never,
    connection: { id: "con_1", integration: "metrics", config: connection, state: {} },
    intake: { id: "int_1", url: "http://127.0.0.1:3000/hooks/tok123", token: "tok123" },
    now: () => new Date(),
  };
}

const delivery = (raw: Buffer | string, headers: Record<string, string> = sampleHeaders) =>
  toDelivery({ headers, rawBody: Buffer.isBuffer(raw) ? raw : Buffer.from(raw) });

async function match(raw: Buffer | string, config: unknown) {
  return onAlert.match(delivery(raw), ctx(config));
}

describe("metrics.onAlert on captured Alertmanager 0.25 deliveries", () => {
  it("verify accepts the captured delivery's bearer secret and rejects a wrong, missing or non-bearer one", async () => {
    expect(() => onAlert.verify!(delivery(firingRaw), ctx({ statuses: ["firing"] }))).not.toThrow();
    const bad: Array<Record<string, string>> = [
      { ...sampleHeaders, authorization: "Bearer feas-webhook-tokeN" },
      { ...sampleHeaders, authorization: "Bearer " },
      { ...sampleHeaders, authorization: `Basic ${Buffer.from(`x:${SAMPLE_SECRET}`).toString("base64")}` },
      Object.fromEntries(Object.entries(sampleHeaders).filter(([k]) => k !== "authorization")),
    ];
    for (const headers of bad) {
      expect(() => onAlert.verify!(delivery(firingRaw, headers), ctx({ statuses: ["firing"] }))).toThrow(DeliveryUnauthorizedError);
    }
    // A receiver set up with basic_auth is told what to change, not that the secret is wrong.
    const basic = { ...sampleHeaders, authorization: `Basic ${Buffer.from(`x:${SAMPLE_SECRET}`).toString("base64")}` };
    expect(() => onAlert.verify!(delivery(firingRaw, basic), ctx({ statuses: ["firing"] }))).toThrow(/uses Basic, not Bearer: set http_config.authorization/);
    // Header names are case-insensitive.
    expect(() => onAlert.verify!(delivery(firingRaw, { Authorization: `bearer ${SAMPLE_SECRET}` }), ctx({ statuses: ["firing"] }))).not.toThrow();
    // Without a webhook secret on the connection, deliveries need no header.
    expect(() => onAlert.verify!(delivery(firingRaw, {}), ctx({ statuses: ["firing"] }, conn()))).not.toThrow();
  });

  it("maps a firing notification to one metrics.alert event with every field, group fields copied on", async () => {
    const events = await match(firingRaw, { statuses: ["firing"] });
    expect(events).toHaveLength(1);
    const body = JSON.parse(firingRaw.toString());
    const alert = body.alerts[0];
    expect(events[0].data).toEqual({
      status: "firing",
      labels: alert.labels,
      annotations: { description: "vector(1) > 0 is always true", summary: "feasibility test alert" },
      startsAt: "2026-11-22T03:51:44.384Z",
      endsAt: "0001-01-01T00:00:00Z",
      generatorURL: "http://127.0.0.1:19090/graph?g0.expr=vector%281%29+%3E+0&g0.tab=1",
      fingerprint: "4e9baf9527438810",
      receiver: "app-webhook",
      groupKey: '{}:{alertname="AlwaysFiring"}',
      groupLabels: { alertname: "AlwaysFiring" },
      commonLabels: body.commonLabels,
      commonAnnotations: body.commonAnnotations,
      externalURL: "http://127.0.0.1:19093",
    });
    expect(AlertEventSchema.parse(events[0].data)).toEqual(events[0].data);
    expect(events[0].dedupeKey).toBe("2026-11-22T03:51:44.384Z:firing:4e9baf9527438810");
  });

  it("filters by status and exact alertname", async () => {
    expect(await match(firingRaw, { statuses: ["resolved"] })).toHaveLength(0);
    expect(await match(resolvedRaw, { statuses: ["firing"] })).toHaveLength(0);
    const resolved = await match(resolvedRaw, { statuses: ["firing", "resolved"] });
    expect(resolved).toHaveLength(1);
    expect(resolved[0].data).toMatchObject({ status: "resolved", endsAt: "2026-11-22T03:51:35.384Z" });
    expect(resolved[0].dedupeKey).toBe("2026-11-22T03:51:01.384Z:resolved:4e9baf9527438810");

    expect(await match(firingRaw, { statuses: ["firing"], alertNames: ["AlwaysFiring"] })).toHaveLength(1);
    expect(await match(firingRaw, { statuses: ["firing"], alertNames: ["alwaysfiring", "Always"] })).toHaveLength(0);
  });

  it("emits one event per matching alert of a mixed notification", async () => {
    const body = JSON.parse(firingRaw.toString());
    const a = body.alerts[0];
    body.alerts = [
      a,
      { ...a, status: "resolved", fingerprint: "aaaa", labels: { ...a.labels, instance: "b" }, endsAt: "2026-11-22T03:52:00Z" },
      { ...a, fingerprint: "bbbb", labels: { ...a.labels, alertname: "Other" } },
    ];
    const events = await match(JSON.stringify(body), { statuses: ["firing"] });
    expect(events.map((e) => e.data.fingerprint)).toEqual(["4e9baf9527438810", "bbbb"]);
    expect(events.every((e) => e.data.groupKey === body.groupKey && e.data.receiver === "app-webhook")).toBe(true);
    const named = await match(JSON.stringify(body), { statuses: ["firing", "resolved"], alertNames: ["AlwaysFiring"] });
    expect(named.map((e) => e.data.fingerprint)).toEqual(["4e9baf9527438810", "aaaa"]);
  });

  it("starts a run per repeat only when asked (no dedupe key)", async () => {
    const events = await match(firingRaw, { statuses: ["firing"], runOnRepeat: true });
    expect(events).toHaveLength(1);
    expect(events[0].dedupeKey).toBeUndefined();
  });

  it("rejects payloads that are not Alertmanager notifications with 422 naming the fields, bad JSON with 400", async () => {
    const err = await Promise.resolve(match(JSON.stringify({ hello: "world" }), { statuses: ["firing"] })).catch((e) => e);
    expect(err).toBeInstanceOf(DeliveryRejectedError);
    expect(err.status).toBe(422);
    expect(err.message).toBe("Not an Alertmanager notification: missing or invalid receiver, status, groupKey, alerts");

    const body = JSON.parse(firingRaw.toString());
    delete body.alerts[0].fingerprint;
    body.alerts[0].labels = "nope";
    const err2 = await Promise.resolve(match(JSON.stringify(body), { statuses: ["firing"] })).catch((e) => e);
    expect(err2.status).toBe(422);
    expect(err2.message).toContain("alerts[0].labels, alerts[0].fingerprint");

    const err3 = await Promise.resolve(match("[1,2]", { statuses: ["firing"] })).catch((e) => e);
    expect(err3.status).toBe(422);
    const err4 = await Promise.resolve(match('{"receiver": ', { statuses: ["firing"] })).catch((e) => e);
    expect(err4).toBeInstanceOf(DeliveryRejectedError);
    expect(err4.status).toBe(400);
    expect(err4.message).toMatch(/^Invalid JSON: /);
  });

  it("requires Statuses (at least one); a trigger saved while it defaulted matches firing alerts as before", async () => {
    expect(() => onAlert.config.parse({ statuses: [] })).toThrow(/firing, resolved or both/);
    const missing = onAlert.config.safeParse({});
    expect(missing.success).toBe(false);
    expect(missing.error!.issues.map((i) => [i.path.join("."), i.message])).toEqual([["statuses", "Statuses is required (select firing, resolved or both)"]]);
    // A stored config without it (saved before it became required): match reads it with the former default.
    const legacy = { ...ctx({ statuses: ["firing"] }), config: {} as never };
    expect(await onAlert.match(delivery(firingRaw), legacy)).toHaveLength(1);
    expect(await onAlert.match(delivery(resolvedRaw), legacy)).toHaveLength(0);
  });
});

describe("metrics.onAlert setup instructions", () => {
  const url = "http://127.0.0.1:3000/hooks/tok_abcdef123456789";
  const handle = (c: MetricsConnection) => ({ id: "con_1", integration: "metrics", config: c, state: {} });

  it("renders a receiver + route with the secret header, send_resolved and the reload hint", () => {
    const [yamlPart, reload] = onAlert.setupInstructions!({
      url,
      config: onAlert.config.parse({ statuses: ["firing", "resolved"], alertNames: ["DiskFull", "CPU.High"] }),
      connection: handle(conn("top-secret")),
    });
    const doc = YAML.parse(yamlPart.text);
    expect(doc.receivers[0].webhook_configs[0]).toEqual({
      url,
      send_resolved: true,
      http_config: { authorization: { type: "Bearer", credentials: SECRET_PLACEHOLDER } },
    });
    expect(yamlPart.text).not.toContain("top-secret"); // secrets are write-only
    expect(doc.route.routes[0]).toEqual({ receiver: doc.receivers[0].name, matchers: ['alertname=~"DiskFull|CPU\\\\.High"'], continue: true });
    expect(reload.text).toContain("curl -X POST http://127.0.0.1:19093/-/reload");
  });

  it("omits the secret header without a secret and sends no resolved notifications for firing only", () => {
    const [yamlPart] = onAlert.setupInstructions!({ url, config: onAlert.config.parse({ statuses: ["firing"] }), connection: handle(conn()) });
    const doc = YAML.parse(yamlPart.text);
    expect(doc.receivers[0].webhook_configs[0]).toEqual({ url, send_resolved: false });
    expect(doc.route.routes[0].matchers).toBeUndefined();
  });

  it("is accepted by amtool once merged into alertmanager.yml", () => {
    const probe = spawnSync("amtool", ["--version"]);
    if (probe.error) return; // amtool missing: the real-notification test below still exercises the snippet
    const [yamlPart] = alertmanagerSnippet({
      url,
      config: onAlert.config.parse({ statuses: ["resolved"], alertNames: ['we"ird|name'] }),
      hasSecret: true,
    });
    const snippet = YAML.parse(yamlPart.text);
    const full = { route: { receiver: "default", routes: snippet.route.routes }, receivers: [{ name: "default" }, ...snippet.receivers] };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "amtool-"));
    const file = path.join(dir, "alertmanager.yml");
    fs.writeFileSync(file, YAML.stringify(full));
    const r = spawnSync("amtool", ["check-config", file], { encoding: "utf8" });
    fs.rmSync(dir, { recursive: true, force: true });
    expect(r.stdout + r.stderr).toContain("SUCCESS");
    expect(r.status).toBe(0);
  });
});

describe("metrics.onAlert setup instructions, merged into an alertmanager.yml that already routes alerts (real amtool)", () => {
  const url = "http://127.0.0.1:3000/hooks/tok_abcdef123456789";
  // An installation's own routing: everything goes to team-pager unless a route sends it elsewhere.
  const existing = {
    route: { receiver: "team-pager", routes: [{ receiver: "db-team", matchers: ['team="db"'] }] },
    receivers: [{ name: "team-pager" }, { name: "db-team" }],
  };

  /** Follows the snippet's own comments: its route first, then the installation's, then the commented last route with its receiver. */
  function merged(config: unknown): string {
    const [yamlPart] = alertmanagerSnippet({ url, config: onAlert.config.parse(config), hasSecret: false });
    const snippet = YAML.parse(yamlPart.text);
    const hint = yamlPart.text.split("\n").find((l) => l.trim() === TOP_LEVEL_ROUTE_HINT);
    expect(hint, "the snippet says how to keep the top-level receiver").toBeDefined();
    const last = YAML.parse(TOP_LEVEL_ROUTE_HINT.replace(/^# /, "").replace("<your top-level receiver>", existing.route.receiver));
    return YAML.stringify({
      route: { ...existing.route, routes: [...snippet.route.routes, ...existing.route.routes, ...last] },
      receivers: [...existing.receivers, ...snippet.receivers],
    });
  }

  function receiversOf(file: string, labels: string[]): string[] {
    const r = spawnSync("amtool", ["config", "routes", "test", `--config.file=${file}`, ...labels], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`amtool failed: ${r.stdout}${r.stderr}`);
    return r.stdout
      .trim()
      .split(/[,\s]+/)
      .sort();
  }

  it("keeps alerts that no route of the installation matches going to its top-level receiver", () => {
    if (spawnSync("amtool", ["--version"]).error) return; // amtool missing (ensure-system-deps installs it)
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "amtool-routes-"));
    try {
      const conveyor = receiverName(url);
      const all = path.join(dir, "all.yml");
      fs.writeFileSync(all, merged({ statuses: ["firing"] }));
      expect(receiversOf(all, ["alertname=DiskFull"])).toEqual([conveyor, "team-pager"].sort());
      expect(receiversOf(all, ["alertname=DiskFull", "team=db"])).toEqual([conveyor, "db-team"].sort());
      const named = path.join(dir, "named.yml");
      fs.writeFileSync(named, merged({ statuses: ["firing"], alertNames: ["DiskFull"] }));
      expect(receiversOf(named, ["alertname=DiskFull"])).toEqual([conveyor, "team-pager"].sort());
      expect(receiversOf(named, ["alertname=Other"])).toEqual(["team-pager"]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("metrics.onAlert on a real notification: Prometheus → Alertmanager → loopback receiver", () => {
  let stack: MetricsStack;
  let sink: WebhookSink;
  const secret = "real-path-secret";
  const connection = () => ({ ...stack.connection, webhookSecret: secret });

  beforeAll(async () => {
    sink = await startWebhookSink("/hooks/tok_realpath");
    // repeat_interval 3s so Alertmanager re-sends the same episode during the test.
    stack = await startMetricsStack({ repeatInterval: "3s" });
    const [yamlPart] = alertmanagerSnippet({ url: sink.url, config: onAlert.config.parse({ statuses: ["firing", "resolved"] }), hasSecret: true, secret });
    await stack.setWebhook({ snippet: yamlPart.text });
  });
  afterAll(async () => {
    await stack?.stop();
    await sink?.stop();
  });

  const isAlert = (name: string, status: string) => (r: Received) => {
    const b = JSON.parse(r.rawBody.toString());
    return b.alerts?.some((a: { status: string; labels: { alertname: string } }) => a.status === status && a.labels.alertname === name);
  };

  it("turns real firing, repeated and resolved notifications into events; repeats share the dedupe key", async () => {
    const t0 = Date.now();
    await stack.setRules([{ alert: "RealPath", expr: "vector(1) > 0", labels: { severity: "page", team: "sre" }, annotations: { summary: "real path" } }]);
    const first = await sink.next(isAlert("RealPath", "firing"), 30_000);
    const firingMs = first.at - t0;
    expect(first.headers.authorization).toBe(`Bearer ${secret}`);
    expect(first.headers["user-agent"]).toMatch(/^Alertmanager\//);

    const c = { ...ctx({ statuses: ["firing"] }, connection()) };
    await onAlert.verify!(toDelivery(first), c);
    const events = await onAlert.match(toDelivery(first), c);
    expect(events).toHaveLength(1);
    const ev = events[0].data;
    expect(ev).toMatchObject({
      status: "firing",
      labels: { alertname: "RealPath", severity: "page", team: "sre" },
      annotations: { summary: "real path" },
      endsAt: "0001-01-01T00:00:00Z",
      externalURL: stack.alertmanagerUrl,
      groupLabels: { alertname: "RealPath" },
    });
    expect(ev.generatorURL.startsWith(stack.prometheusUrl)).toBe(true);
    expect(ev.receiver).toMatch(/^conveyor-/);
    expect(AlertEventSchema.safeParse(ev).success).toBe(true);
    const wrong = toDelivery({ ...first, headers: { ...first.headers, authorization: "Bearer nope" } });
    expect(() => onAlert.verify!(wrong, c)).toThrow(DeliveryUnauthorizedError);

    // Alertmanager repeats the same episode: same dedupe key, so one run.
    const repeat = await sink.next(isAlert("RealPath", "firing"), 20_000, sink.received.indexOf(first) + 1);
    const repeated = await onAlert.match(toDelivery(repeat), c);
    expect(repeated[0].dedupeKey).toBe(events[0].dedupeKey);

    // Make the rule false: a resolved notification arrives; filtered out when only firing is selected.
    const before = sink.received.length;
    await stack.setRules([{ alert: "RealPath", expr: "vector(1) < 0", labels: { severity: "page", team: "sre" } }]);
    const resolved = await sink.next(isAlert("RealPath", "resolved"), 30_000, before);
    expect(await onAlert.match(toDelivery(resolved), c)).toHaveLength(0);
    const both = await onAlert.match(toDelivery(resolved), ctx({ statuses: ["firing", "resolved"] }, connection()));
    expect(both).toHaveLength(1);
    expect(both[0].data.status).toBe("resolved");
    expect(both[0].data.startsAt).toBe(ev.startsAt);
    expect(both[0].data.endsAt).not.toBe("0001-01-01T00:00:00Z");
    console.log(`[metrics] rule loaded → first firing webhook: ${firingMs} ms`);
  }, 90_000);
});
