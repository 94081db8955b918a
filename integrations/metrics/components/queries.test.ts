import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withLegacyDefaults } from "../../core/define";
import { NonRetryableError, RetryableError } from "../../core/errors";
import type { MetricsConnection } from "../connection";
import { freePort, startMetricsStack, type MetricsStack } from "../testing/metrics-stack";
import { startAuthProxy, startFaultProxy, type FaultProxy, type Proxy } from "../testing/proxies";
import { pollUntil, runComponent, runError } from "../testing/helpers";
import { getAlert } from "./get-alert";
import { query } from "./query";
import { queryRange } from "./query-range";

type Series = { metric: Record<string, string>; value?: [number, string]; values?: Array<[number, string]> };

const RULES = [
  { alert: "AlwaysFiring", expr: "vector(1) > 0", labels: { severity: "critical" }, annotations: { summary: "always" } },
  { alert: "SlowBurn", expr: "vector(2) > 0", for: "1h", labels: { severity: "warning" } },
  { alert: "NeverFires", expr: "vector(0) > 0", labels: { severity: "info" }, annotations: { summary: "never" } },
];

describe("metrics queries and alerts against real Prometheus 2.42", () => {
  let stack: MetricsStack;
  let bearer: Proxy;
  let faults: FaultProxy;

  beforeAll(async () => {
    stack = await startMetricsStack({ rules: RULES });
    bearer = await startAuthProxy({ target: stack.prometheusUrl, bearer: "prom-token" });
    faults = await startFaultProxy({ target: stack.prometheusUrl });
    // Rules evaluate every second; wait until both active alerts and one scrape exist.
    await pollUntil(
      async () => {
        const alerts = await fetch(`${stack.prometheusUrl}/api/v1/alerts`).then((r) => r.json());
        const up = await fetch(`${stack.prometheusUrl}/api/v1/query?query=up`).then((r) => r.json());
        return alerts.data.alerts.length === 2 && up.data.result.length === 1 ? true : undefined;
      },
      20_000,
      "rules and first scrape",
    );
  });
  afterAll(async () => {
    await Promise.all([bearer?.stop(), faults?.stop()]);
    await stack?.stop();
  });

  const promAt = (metricsBaseUrl: string, apiAuth: MetricsConnection["apiAuth"] = { type: "none" }): MetricsConnection => ({
    metricsBaseUrl,
    alertRouterBaseUrl: stack.alertmanagerUrl,
    apiAuth,
  });

  it("query returns resultType and result exactly as Prometheus does", async () => {
    const expr = 'label_replace(vector(7), "team", "core", "", "")';
    const event = await runComponent<{ resultType: string; result: Series[] }>(query, { query: expr }, stack.connection);
    expect(event.type).toBe("metrics.query");
    expect(Object.keys(event.data).sort()).toEqual(["result", "resultType"]);
    expect(event.data.resultType).toBe("vector");
    expect(event.data.result).toHaveLength(1);
    expect(event.data.result[0].metric).toEqual({ team: "core" });
    expect(event.data.result[0].value![1]).toBe("7");

    // Same answer as asking Prometheus directly at the sample's timestamp.
    const at = event.data.result[0].value![0];
    const direct = await fetch(`${stack.prometheusUrl}/api/v1/query?query=${encodeURIComponent(expr)}&time=${at}`).then((r) => r.json());
    expect(event.data).toEqual(direct.data);

    const up = await runComponent<{ resultType: string; result: Series[] }>(query, { query: "up" }, stack.connection);
    expect(up.data.result[0].metric).toMatchObject({ __name__: "up", job: "prometheus" });
    expect(typeof up.data.result[0].value![0]).toBe("number");

    const scalar = await runComponent<{ resultType: string; result: [number, string] }>(query, { query: "scalar(vector(3))" }, stack.connection);
    expect(scalar.data.resultType).toBe("scalar");
    expect(scalar.data.result[1]).toBe("3");
  });

  it("bad PromQL fails without retry with Prometheus's own message", async () => {
    const bad = "sum(rate(x[5m]";
    const direct = await fetch(`${stack.prometheusUrl}/api/v1/query?query=${encodeURIComponent(bad)}`).then((r) => r.json());
    const err = await runError(query, { query: bad }, stack.connection);
    expect(err).toBeInstanceOf(NonRetryableError);
    expect(err.message).toBe(`Prometheus rejected the query: ${direct.error}`);
    expect(err.message).toContain("parse error");

    const rangeErr = await runError(queryRange, { query: bad, start: "now-5m", end: "now", step: "15s" }, stack.connection);
    expect(rangeErr).toBeInstanceOf(NonRetryableError);
    expect(rangeErr.message).toContain("parse error");
  });

  it("queryRange accepts RFC 3339 and Unix times and returns Prometheus's matrix", async () => {
    const end = Math.floor(Date.now() / 1000);
    const start = new Date((end - 60) * 1000).toISOString();
    const event = await runComponent<{ resultType: string; result: Series[] }>(
      queryRange,
      { query: "vector(1)", start, end: String(end), step: "15s" },
      stack.connection,
    );
    expect(event.type).toBe("metrics.queryRange");
    expect(event.data.resultType).toBe("matrix");
    expect(event.data.result[0].values!.map((v) => v[0])).toEqual([end - 60, end - 45, end - 30, end - 15, end]);
    expect(event.data.result[0].values!.every((v) => v[1] === "1")).toBe(true);
    const direct = await fetch(`${stack.prometheusUrl}/api/v1/query_range?query=vector(1)&start=${end - 60}&end=${end}&step=15`).then((r) => r.json());
    expect(event.data).toEqual(direct.data);
  });

  it("queryRange requires Start, End and Step; a version saved while they defaulted queries the last hour at 1m", async () => {
    const missing = queryRange.config.safeParse({ query: "vector(1)" });
    expect(missing.error?.issues.map((i) => i.path.join("."))).toEqual(["start", "end", "step"]);
    expect(missing.error?.issues[0]!.message).toMatch(/^Start is required/);
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    const event = await runComponent<{ result: Series[] }>(queryRange, withLegacyDefaults(queryRange, { query: "vector(1)" }), stack.connection, {
      now: () => now,
    });
    const values = event.data.result[0].values!;
    expect(values).toHaveLength(61);
    expect(values[0][0]).toBe(now.getTime() / 1000 - 3600);
    expect(values[60][0]).toBe(now.getTime() / 1000);
  });

  it("a range over the points limit fails with a message telling to raise the step", async () => {
    const err = await runError(queryRange, { query: "vector(1)", start: "now-30d", end: "now", step: "15s" }, stack.connection);
    expect(err).toBeInstanceOf(NonRetryableError);
    expect(err.message).toContain("raise the step to at least 236s");
    // A step that fits the limit works for the same range.
    const ok = await runComponent<{ result: Series[] }>(queryRange, { query: "vector(1)", start: "now-30d", end: "now", step: "236s" }, stack.connection);
    expect(ok.data.result[0].values!.length).toBeLessThanOrEqual(11_000);
  });

  it("rejects unreadable times and an end before the start", async () => {
    expect(() => queryRange.config.parse({ query: "up", start: "yesterday" })).toThrow(/RFC 3339/);
    expect(() => queryRange.config.parse({ query: "up", step: "fast" })).toThrow(/step like 15s/);
    const err = await runError(queryRange, { query: "up", start: "now", end: "now-1h", step: "1m" }, stack.connection);
    expect(err).toBeInstanceOf(NonRetryableError);
    expect(err.message).toContain("End (now-1h) is before Start (now)");
  });

  it("getAlert finds firing, pending and inactive alerts by alertname", async () => {
    const firing = await runComponent(getAlert, { alertName: "AlwaysFiring" }, stack.connection);
    expect(firing.type).toBe("metrics.alert");
    expect(firing.data).toMatchObject({
      status: "firing",
      value: "1e+00",
      labels: { alertname: "AlwaysFiring", severity: "critical" },
      annotations: { summary: "always" },
    });
    expect(Number.isNaN(Date.parse((firing.data as { startsAt: string }).startsAt))).toBe(false);

    const pending = await runComponent(getAlert, { alertName: "SlowBurn", state: "pending" }, stack.connection);
    expect(pending.data).toMatchObject({ status: "pending", value: "2e+00", labels: { alertname: "SlowBurn" } });

    const inactive = await runComponent(getAlert, { alertName: "NeverFires", state: "inactive" }, stack.connection);
    expect(inactive.data).toEqual({
      status: "inactive",
      labels: { alertname: "NeverFires", severity: "info" },
      annotations: { summary: "never" },
      startsAt: "0001-01-01T00:00:00Z",
      value: "",
    });
    const anyInactive = await runComponent(getAlert, { alertName: "NeverFires" }, stack.connection);
    expect(anyInactive.data).toMatchObject({ status: "inactive" });
  });

  it("getAlert fails clearly when nothing matches the name and state", async () => {
    const wrongState = await runError(getAlert, { alertName: "SlowBurn", state: "firing" }, stack.connection);
    expect(wrongState).toBeInstanceOf(NonRetryableError);
    expect(wrongState.message).toBe('No firing alert named "SlowBurn" in Prometheus');
    const notInactive = await runError(getAlert, { alertName: "AlwaysFiring", state: "inactive" }, stack.connection);
    expect(notInactive.message).toBe('No inactive alert named "AlwaysFiring" in Prometheus');
    const unknown = await runError(getAlert, { alertName: "Nope" }, stack.connection);
    expect(unknown.message).toContain('No alert named "Nope"');
  });

  it("sends the bearer token a proxy in front of Prometheus requires; a wrong token fails with 401", async () => {
    const ok = await runComponent<{ result: Series[] }>(query, { query: "vector(5)" }, promAt(bearer.url, { type: "bearer", token: "prom-token" }));
    expect(ok.data.result[0].value![1]).toBe("5");
    const err = await runError(getAlert, { alertName: "AlwaysFiring" }, promAt(bearer.url, { type: "bearer", token: "wrong-token" }));
    expect(err).toBeInstanceOf(NonRetryableError);
    expect(err.message).toBe(`Prometheus at ${bearer.url} rejected the credentials (401 Unauthorized): check the connection's API Auth`);
  });

  it("5xx and unreachable are retryable with a clear message; a retry succeeds once Prometheus is back", async () => {
    faults.mode = "5xx";
    const err = await runError(query, { query: "vector(1)" }, promAt(faults.url));
    expect(err).toBeInstanceOf(RetryableError);
    expect(err.message).toBe(`Prometheus at ${faults.url} answered 503: Service Unavailable (fault proxy)`);
    faults.mode = "pass";
    expect((await runComponent(query, { query: "vector(1)" }, promAt(faults.url))).type).toBe("metrics.query");

    const closed = `http://127.0.0.1:${await freePort()}`;
    const down = await runError(query, { query: "vector(1)" }, promAt(closed));
    expect(down).toBeInstanceOf(RetryableError);
    expect(down.message).toBe(`Prometheus at ${closed} is unreachable (ECONNREFUSED)`);
  });
});
