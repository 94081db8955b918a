import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NonRetryableError, RetryableError, isRetryable } from "../../core/errors";
import type { MetricsConnection } from "../connection";
import { listSilences } from "../resources";
import { createHttpClient } from "../../core/http";
import { freePort, startMetricsStack, type MetricsStack } from "../testing/metrics-stack";
import { startAuthProxy, startFaultProxy, type FaultProxy, type Proxy } from "../testing/proxies";
import { runComponent, runError } from "../testing/helpers";
import { createSilence } from "./create-silence";
import { expireSilence } from "./expire-silence";
import { getSilence } from "./get-silence";

type SilenceData = { silenceID: string; status: string; matchers: unknown[]; startsAt: string; endsAt: string; createdBy: string; comment: string };

const silenceConfig = {
  matchers: [
    { name: "alertname", value: "DiskFull" },
    { name: "instance", value: "db-.*", isRegex: true },
    { name: "env", value: "staging", isEqual: false },
  ],
  duration: "2h30m",
  createdBy: "ops-bot",
  comment: "maintenance window",
};

describe("metrics silences against real Alertmanager 0.25", () => {
  let stack: MetricsStack;
  let basic: Proxy;
  let bearer: Proxy;
  let faults: FaultProxy;

  beforeAll(async () => {
    stack = await startMetricsStack();
    basic = await startAuthProxy({ target: stack.alertmanagerUrl, basic: { username: "ops", password: "s3cret" } });
    bearer = await startAuthProxy({ target: stack.alertmanagerUrl, bearer: "tok-123" });
    faults = await startFaultProxy({ target: stack.alertmanagerUrl });
  });
  afterAll(async () => {
    await Promise.all([basic?.stop(), bearer?.stop(), faults?.stop()]);
    await stack?.stop();
  });

  const viaRouter = (alertRouterBaseUrl: string, apiAuth: MetricsConnection["apiAuth"] = { type: "none" }): MetricsConnection => ({
    metricsBaseUrl: stack.prometheusUrl,
    alertRouterBaseUrl,
    apiAuth,
  });

  it("creates a silence with defaults applied, reads it back and Alertmanager lists it active", async () => {
    const t0 = Date.now();
    const event = await runComponent<SilenceData>(createSilence, silenceConfig, stack.connection);
    expect(event.type).toBe("metrics.silence");
    expect(event.data).toMatchObject({
      status: "active",
      createdBy: "ops-bot",
      comment: "maintenance window",
      matchers: [
        { name: "alertname", value: "DiskFull", isRegex: false, isEqual: true },
        { name: "instance", value: "db-.*", isRegex: true, isEqual: true },
        { name: "env", value: "staging", isRegex: false, isEqual: false },
      ],
    });
    const span = Date.parse(event.data.endsAt) - Date.parse(event.data.startsAt);
    expect(Math.abs(span - 2.5 * 3600_000)).toBeLessThan(5_000);
    expect(Date.parse(event.data.startsAt)).toBeGreaterThanOrEqual(t0 - 1000);

    const stored = await fetch(`${stack.alertmanagerUrl}/api/v2/silence/${event.data.silenceID}`).then((r) => r.json());
    expect(stored).toMatchObject({ id: event.data.silenceID, status: { state: "active" }, comment: "maintenance window" });
  });

  it("gets a silence by ID and expires it; the silence picker lists it", async () => {
    const created = await runComponent<SilenceData>(createSilence, { ...silenceConfig, comment: "to expire" }, stack.connection);
    const id = created.data.silenceID;

    const picker = await listSilences({
      connection: { id: "c", integration: "metrics", config: stack.connection, state: {} },
      http: createHttpClient(),
      config: {},
    });
    const option = picker.options.find((o) => o.value === id);
    expect(option?.label).toContain('alertname="DiskFull"');
    expect(option?.label).toContain("(active)");
    expect(option?.description).toContain("to expire");

    const got = await runComponent<SilenceData>(getSilence, { silence: id }, stack.connection);
    expect(got.type).toBe("metrics.silence");
    expect(got.data).toEqual(created.data);

    const expired = await runComponent(expireSilence, { silence: id }, stack.connection);
    expect(expired).toMatchObject({ type: "metrics.silence.expired", data: { silenceID: id, status: "expired" } });
    const after = await fetch(`${stack.alertmanagerUrl}/api/v2/silence/${id}`).then((r) => r.json());
    expect(after.status.state).toBe("expired");

    // Expiring again is harmless (Alertmanager keeps expired silences until retention).
    const again = await runComponent(expireSilence, { silence: id }, stack.connection);
    expect(again.data).toEqual({ silenceID: id, status: "expired" });

    const searched = await listSilences({
      connection: { id: "c", integration: "metrics", config: stack.connection, state: {} },
      http: createHttpClient(),
      config: {},
      search: "to expire",
    });
    expect(searched.options.map((o) => o.value)).toContain(id);
    expect(searched.options.every((o) => `${o.label} ${o.description}`.includes("to expire"))).toBe(true);
  });

  it("fails without retry on an unknown silence ID (get and expire)", async () => {
    const unknown = "00000000-0000-4000-8000-000000000000";
    const getErr = await runError(getSilence, { silence: unknown }, stack.connection);
    expect(getErr).toBeInstanceOf(NonRetryableError);
    expect(getErr.message).toContain(`Silence ${unknown} was not found`);

    const expErr = await runError(expireSilence, { silence: unknown }, stack.connection);
    expect(expErr).toBeInstanceOf(NonRetryableError);
    expect(expErr.message).toContain("was not found");

    // Not a UUID: Alertmanager answers 422 {code, message}.
    for (const def of [getSilence, expireSilence]) {
      const bad = await runError(def, { silence: "not-a-uuid" }, stack.connection);
      expect(bad).toBeInstanceOf(NonRetryableError);
      expect(bad.message).toBe('"not-a-uuid" is not a silence ID: silenceID in path must be of type uuid: "not-a-uuid"');
    }
  });

  it("reports Alertmanager's own message when it rejects a silence", async () => {
    const err = await runError(createSilence, { ...silenceConfig, matchers: [{ name: "alertname", value: ".*", isRegex: true }] }, stack.connection);
    expect(err).toBeInstanceOf(NonRetryableError);
    expect(err.message).toMatch(/Alertmanager answered 400: .*empty/i);
  });

  it("rejects bad durations and empty matchers at config parse time", async () => {
    expect(() => createSilence.config.parse({ ...silenceConfig, duration: "90 minutes" })).toThrow(/duration like 1h/);
    expect(() => createSilence.config.parse({ ...silenceConfig, matchers: [] })).toThrow(/at least one matcher/);
    expect(createSilence.config.parse({ ...silenceConfig, duration: "30m" }).duration).toBe("30m");
  });

  it("authenticates with basic and bearer auth through an enforcing proxy; wrong credentials fail clearly", async () => {
    const okBasic = await runComponent<SilenceData>(createSilence, silenceConfig, viaRouter(basic.url, { type: "basic", username: "ops", password: "s3cret" }));
    expect(okBasic.data.status).toBe("active");
    const okBearer = await runComponent<SilenceData>(
      getSilence,
      { silence: okBasic.data.silenceID },
      viaRouter(bearer.url, { type: "bearer", token: "tok-123" }),
    );
    expect(okBearer.data.silenceID).toBe(okBasic.data.silenceID);

    for (const [url, auth] of [
      [basic.url, { type: "basic", username: "ops", password: "wrong" }],
      [basic.url, { type: "none" }],
      [bearer.url, { type: "bearer", token: "nope" }],
    ] as const) {
      const err = await runError(getSilence, { silence: okBasic.data.silenceID }, viaRouter(url, auth as MetricsConnection["apiAuth"]));
      expect(err).toBeInstanceOf(NonRetryableError);
      expect(err.message).toContain("rejected the credentials (401 Unauthorized)");
      expect(err.message).not.toContain("wrong");
      expect(err.message).not.toContain("nope");
    }
  });

  it("retries 5xx and timeouts, then succeeds once Alertmanager answers again", async () => {
    const conn = viaRouter(faults.url);
    faults.mode = "5xx";
    const err5xx = await runError(createSilence, silenceConfig, conn);
    expect(err5xx).toBeInstanceOf(RetryableError);
    expect(err5xx.message).toContain(`Alertmanager at ${faults.url} answered 503`);

    faults.mode = "timeout";
    const errTimeout = await runError(getSilence, { silence: "00000000-0000-4000-8000-000000000000" }, conn, { timeoutMs: 300 });
    expect(isRetryable(errTimeout)).toBe(true);
    expect(errTimeout.message).toMatch(/unreachable \(.*timed out after 300 ms\)/);

    faults.mode = "pass";
    const ok = await runComponent<SilenceData>(createSilence, silenceConfig, conn);
    expect(ok.data.status).toBe("active");
  });

  it("reports an unreachable Alertmanager as retryable with the URL and cause", async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const err = await runError(getSilence, { silence: "00000000-0000-4000-8000-000000000000" }, viaRouter(closed));
    expect(err).toBeInstanceOf(RetryableError);
    expect(err.message).toBe(`Alertmanager at ${closed} is unreachable (ECONNREFUSED)`);
  });
});
