/**
 * Starts REAL Prometheus and Alertmanager (Debian `prometheus`, `prometheus-alertmanager`) on free
 * loopback ports with temp data dirs and generated, validated configs. No mocks.
 *
 *   const stack = await startMetricsStack({ rules: [{ alert: "AlwaysFiring", expr: "vector(1) > 0" }] });
 *   ... stack.prometheusUrl, stack.alertmanagerUrl, stack.connection
 *   await stack.stop();
 *
 * Prometheus runs with `--rules.alert.resend-delay=1s` (else the first alert reaches Alertmanager
 * only after a minute) and lifecycle reloads; Alertmanager with gossip clustering off.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import YAML from "yaml";
import type { MetricsConnection } from "../connection";

export interface RuleSpec {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface WebhookTarget {
  url: string;
  secret?: string;
  sendResolved?: boolean;
}

export interface MetricsStackOptions {
  rules?: RuleSpec[];
  webhookUrl?: string;
  webhookSecret?: string;
  sendResolved?: boolean;
  /** Alertmanager route timings (defaults: 1s, 2s, 1h). */
  groupWait?: string;
  groupInterval?: string;
  repeatInterval?: string;
}

export interface MetricsStack {
  prometheusUrl: string;
  alertmanagerUrl: string;
  /** A connection (auth none) pointing at both servers. */
  connection: MetricsConnection;
  dir: string;
  /** Replaces the alerting rules and reloads Prometheus. */
  setRules(rules: RuleSpec[]): Promise<void>;
  /** Points Alertmanager's receiver at a webhook (or, with a raw snippet, merges its route + receivers) and reloads. */
  setWebhook(target: WebhookTarget | { snippet: string }): Promise<void>;
  /** POST /-/reload on both servers. */
  reload(): Promise<void>;
  /**
   * Waits until Prometheus's notifier knows the Alertmanager. After a start AND after every reload
   * (`setRules`) this takes up to ~5 s (discovery updates are throttled); an alert that fires before
   * is dropped and only reaches Alertmanager on a later resend.
   */
  waitForDiscovery(timeoutMs?: number): Promise<number>;
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();
process.once("exit", () => {
  for (const c of children) c.kill("SIGKILL");
});

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function rulesYaml(rules: RuleSpec[]): string {
  return YAML.stringify({
    groups: [{ name: "conveyor-tests", interval: "1s", rules: rules.map((r) => ({ for: "0s", ...r })) }],
  });
}

function validate(tool: string, args: string[]): void {
  const r = spawnSync(tool, args, { encoding: "utf8" });
  if (r.error && (r.error as NodeJS.ErrnoException).code === "ENOENT") return; // validator not installed: servers will complain
  if (r.status !== 0) throw new Error(`${tool} ${args.join(" ")} failed:\n${r.stdout}\n${r.stderr}`);
}

interface AmRouteState {
  routes: unknown[];
  receivers: unknown[];
}

function alertmanagerYaml(opts: MetricsStackOptions, extra: AmRouteState): string {
  const base = {
    route: {
      receiver: "default",
      group_by: ["alertname"],
      group_wait: opts.groupWait ?? "1s",
      group_interval: opts.groupInterval ?? "2s",
      repeat_interval: opts.repeatInterval ?? "1h",
      routes: extra.routes,
    },
    receivers: [{ name: "default" }, ...extra.receivers],
  };
  if (!extra.routes.length) delete (base.route as { routes?: unknown }).routes;
  return YAML.stringify(base);
}

function webhookRoute(t: WebhookTarget): AmRouteState {
  const cfg: Record<string, unknown> = { url: t.url, send_resolved: t.sendResolved ?? true };
  if (t.secret) cfg.http_config = { authorization: { type: "Bearer", credentials: t.secret } };
  return { routes: [{ receiver: "conveyor-test", continue: true }], receivers: [{ name: "conveyor-test", webhook_configs: [cfg] }] };
}

async function waitReady(url: string, proc: ChildProcess, logFile: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) break;
    try {
      const res = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(1000) });
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8").split("\n").slice(-15).join("\n") : "";
  throw new Error(`${url} did not become ready (exit code ${proc.exitCode}):\n${log}`);
}

function launch(cmd: string, args: string[], logFile: string): ChildProcess {
  const out = fs.openSync(logFile, "a");
  const child = spawn(cmd, args, { stdio: ["ignore", out, out] });
  fs.closeSync(out);
  children.add(child);
  child.once("exit", () => children.delete(child));
  child.once("error", () => children.delete(child));
  return child;
}

async function postReload(url: string): Promise<void> {
  const res = await fetch(`${url}/-/reload`, { method: "POST" });
  if (!res.ok) throw new Error(`reload of ${url} failed: ${res.status} ${await res.text()}`);
}

export async function startMetricsStack(opts: MetricsStackOptions = {}): Promise<MetricsStack> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-metrics-"));
  const [promPort, amPort] = [await freePort(), await freePort()];
  const prometheusUrl = `http://127.0.0.1:${promPort}`;
  const alertmanagerUrl = `http://127.0.0.1:${amPort}`;
  const files = {
    prom: path.join(dir, "prometheus.yml"),
    rules: path.join(dir, "rules.yml"),
    am: path.join(dir, "alertmanager.yml"),
  };
  let amState: AmRouteState = opts.webhookUrl
    ? webhookRoute({ url: opts.webhookUrl, secret: opts.webhookSecret, sendResolved: opts.sendResolved })
    : { routes: [], receivers: [] };

  fs.writeFileSync(files.rules, rulesYaml(opts.rules ?? []));
  fs.writeFileSync(
    files.prom,
    YAML.stringify({
      global: { scrape_interval: "1s", evaluation_interval: "1s" },
      rule_files: [files.rules],
      alerting: { alertmanagers: [{ static_configs: [{ targets: [`127.0.0.1:${amPort}`] }] }] },
      scrape_configs: [{ job_name: "prometheus", static_configs: [{ targets: [`127.0.0.1:${promPort}`] }] }],
    }),
  );
  fs.writeFileSync(files.am, alertmanagerYaml(opts, amState));
  validate("promtool", ["check", "config", "--syntax-only", files.prom]);
  validate("amtool", ["check-config", files.am]);

  const am = launch(
    "prometheus-alertmanager",
    [
      `--config.file=${files.am}`,
      `--storage.path=${path.join(dir, "am")}`,
      `--web.listen-address=127.0.0.1:${amPort}`,
      `--web.external-url=${alertmanagerUrl}/`,
      "--cluster.listen-address=",
      "--log.level=warn",
    ],
    path.join(dir, "alertmanager.log"),
  );
  const prom = launch(
    "prometheus",
    [
      `--config.file=${files.prom}`,
      `--storage.tsdb.path=${path.join(dir, "prom")}`,
      `--web.listen-address=127.0.0.1:${promPort}`,
      `--web.external-url=${prometheusUrl}/`,
      "--web.enable-lifecycle",
      "--rules.alert.resend-delay=1s",
      "--log.level=warn",
    ],
    path.join(dir, "prometheus.log"),
  );

  const stop = async () => {
    await Promise.all(
      [prom, am].map(
        (p) =>
          new Promise<void>((resolve) => {
            if (p.exitCode !== null || p.signalCode) return resolve();
            const t = setTimeout(() => p.kill("SIGKILL"), 5000);
            p.once("exit", () => {
              clearTimeout(t);
              resolve();
            });
            p.kill("SIGTERM");
          }),
      ),
    );
    fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    await Promise.all([waitReady(prometheusUrl, prom, path.join(dir, "prometheus.log")), waitReady(alertmanagerUrl, am, path.join(dir, "alertmanager.log"))]);
  } catch (e) {
    await stop();
    throw e;
  }

  return {
    prometheusUrl,
    alertmanagerUrl,
    dir,
    connection: { metricsBaseUrl: prometheusUrl, alertRouterBaseUrl: alertmanagerUrl, apiAuth: { type: "none" } },
    async setRules(rules) {
      fs.writeFileSync(files.rules, rulesYaml(rules));
      validate("promtool", ["check", "rules", files.rules]);
      await postReload(prometheusUrl);
    },
    async setWebhook(target) {
      if ("snippet" in target) {
        const parsed = YAML.parse(target.snippet) as { route?: { routes?: unknown[] }; receivers?: unknown[] };
        amState = { routes: parsed.route?.routes ?? [], receivers: parsed.receivers ?? [] };
      } else amState = webhookRoute(target);
      fs.writeFileSync(files.am, alertmanagerYaml(opts, amState));
      validate("amtool", ["check-config", files.am]);
      await postReload(alertmanagerUrl);
    },
    async waitForDiscovery(timeoutMs = 20_000) {
      const t0 = Date.now();
      while (Date.now() - t0 < timeoutMs) {
        const res = await fetch(`${prometheusUrl}/api/v1/alertmanagers`)
          .then((r) => r.json())
          .catch(() => undefined);
        if (res?.data?.activeAlertmanagers?.length) return Date.now() - t0;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`Prometheus did not discover Alertmanager within ${timeoutMs} ms`);
    },
    async reload() {
      await Promise.all([postReload(prometheusUrl), postReload(alertmanagerUrl)]);
    },
    stop,
  };
}
