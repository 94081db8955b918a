import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toJsonSchema } from "../core/catalog";
import { createHttpClient } from "../core/http";
import { MetricsConnectionSchema, type MetricsConnection } from "./connection";
import { freePort, startMetricsStack, type MetricsStack } from "./testing/metrics-stack";
import { startAuthProxy, startFaultProxy, type FaultProxy, type Proxy } from "./testing/proxies";
import { verifyMetricsConnection } from "./verify";

const verify = (config: MetricsConnection) =>
  verifyMetricsConnection({ connection: { id: "c", integration: "metrics", config, state: {} }, http: createHttpClient({ timeoutMs: 2000 }) });

describe("metrics connection", () => {
  let stack: MetricsStack;
  let basicProm: Proxy;
  let html: FaultProxy;

  beforeAll(async () => {
    stack = await startMetricsStack();
    basicProm = await startAuthProxy({ target: stack.prometheusUrl, basic: { username: "u", password: "p" } });
    html = await startFaultProxy({ target: stack.prometheusUrl, mode: "html" });
  });
  afterAll(async () => {
    await Promise.all([basicProm?.stop(), html?.stop()]);
    await stack?.stop();
  });

  it("parses settings: auth defaults to none, trailing slashes dropped, secrets marked sensitive", () => {
    const c = MetricsConnectionSchema.parse({ metricsBaseUrl: "http://prom:9090/" });
    expect(c).toEqual({ metricsBaseUrl: "http://prom:9090", apiAuth: { type: "none" } });
    expect(() => MetricsConnectionSchema.parse({ metricsBaseUrl: "ftp://x" })).toThrow();
    expect(() => MetricsConnectionSchema.parse({ metricsBaseUrl: "http://x", apiAuth: { type: "basic", username: "u" } })).toThrow();
    const json = JSON.stringify(toJsonSchema(MetricsConnectionSchema));
    // password, token and webhookSecret are sensitive (masked, encrypted, write-only); nothing else is.
    expect(json.match(/"sensitive":true/g)).toHaveLength(3);
    expect(json).toContain('"title":"Metrics Base URL"');
  });

  it("reports both versions when Prometheus and Alertmanager answer", async () => {
    expect((await verify(stack.connection)).message).toMatch(/^Prometheus 2\.\d+\.\d+\S* and Alertmanager 0\.\d+\.\d+\S* are reachable$/);
  });

  it("says which server is unreachable", async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    await expect(verify({ ...stack.connection, metricsBaseUrl: closed })).rejects.toThrow(
      `Metrics server check failed: Prometheus at ${closed} is unreachable (ECONNREFUSED)`,
    );
    await expect(verify({ ...stack.connection, alertRouterBaseUrl: closed })).rejects.toThrow(
      `Alert router check failed: Alertmanager at ${closed} is unreachable (ECONNREFUSED)`,
    );
  });

  it("reports rejected credentials (401) and accepts the right ones", async () => {
    await expect(verify({ ...stack.connection, metricsBaseUrl: basicProm.url, apiAuth: { type: "basic", username: "u", password: "bad" } })).rejects.toThrow(
      `Metrics server check failed: Prometheus at ${basicProm.url} rejected the credentials (401 Unauthorized)`,
    );
    // Right credentials: the proxy passes them to Prometheus; Alertmanager gets them too and ignores them.
    const ok = await verify({ ...stack.connection, metricsBaseUrl: basicProm.url, apiAuth: { type: "basic", username: "u", password: "p" } });
    expect(ok.message).toMatch(/^Prometheus 2\./);
  });

  it("recognises a server that is not Prometheus / not Alertmanager", async () => {
    await expect(verify({ ...stack.connection, metricsBaseUrl: stack.alertmanagerUrl })).rejects.toThrow(
      `Metrics server check failed: ${stack.alertmanagerUrl} is not a Prometheus server`,
    );
    await expect(verify({ ...stack.connection, metricsBaseUrl: html.url })).rejects.toThrow(`${html.url} is not a Prometheus server`);
    await expect(verify({ ...stack.connection, alertRouterBaseUrl: stack.prometheusUrl })).rejects.toThrow(
      `Alert router check failed: ${stack.prometheusUrl} is not an Alertmanager`,
    );
  });

  it("without an alert router URL, passes on Prometheus alone and says silences need one", async () => {
    const { alertRouterBaseUrl: _, ...promOnly } = stack.connection;
    const res = await verify(promOnly);
    expect(res.message).toMatch(/^Prometheus 2\.\d+\.\d+\S* is reachable\. No Alertmanager answered at the metrics URL .*set Alert router Base URL/);
  });
});
