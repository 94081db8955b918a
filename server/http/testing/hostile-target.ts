/**
 * A target for hostile-input tests: test deps with a seeded organization (server/rest/testing/seed),
 * the REST app driven in process (the same client as the REST tests), the webhook door on a
 * loopback port (the lean listener, as `npm start` serves /hooks/*), a webhook intake and a trigger
 * intake to aim at, and a fingerprint of every stored row to prove refused requests change nothing.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createHash } from "node:crypto";
import { setDeps } from "../../deps";
import { tableNames } from "@/db/testing";
import { createTestDeps } from "../../testing";
import { setRestConfig } from "../../rest/rest-config";
import { createRestClient } from "../../rest/testing/rest-client";
import { seedRest } from "../../rest/testing/seed";
import { insertAutomation } from "../../rest/testing/automation-fixture";
import { handleHookRequest } from "../../webhooks/lean-listener";
import { createConnection } from "../../services/connections";
import { createAutomation } from "../../services/automations";

export async function startHostileTarget() {
  const deps = await createTestDeps();
  setDeps(deps);
  setRestConfig({ rateLimit: 100_000_000 });
  const seed = await seedRest(deps);
  const api = createRestClient({});
  const lineId = (await api.get(`/api/v1/factories/${seed.ws}/lines`, { key: seed.keys.viewer })).body.data[0].id as string;
  const intake = (await api.post(`/api/v1/factories/${seed.ws}/intakes`, { key: seed.keys.editor, body: { name: "Inbox", lineId, open: false } })).body as {
    url: string;
    secret: string;
  };
  const appId = await insertAutomation(deps, seed.ws);
  // An Alertmanager trigger (metrics.onAlert, bearer secret on its connection): the other kind of webhook door.
  const alertSecret = "fuzz-alert-secret-123";
  const metrics = await createConnection(deps, seed.owner, seed.ws, {
    integration: "metrics",
    name: "Prometheus",
    config: { metricsBaseUrl: "http://127.0.0.1:9", apiAuth: { type: "none" }, webhookSecret: alertSecret },
  });
  const alertApp = await createAutomation(deps, seed.owner, seed.ws, {
    name: "On alert",
    enabled: true,
    graph: { nodes: [{ id: "t", name: "onAlert", key: "metrics.onAlert", connectionId: metrics.id, config: { statuses: ["firing", "resolved"] } }], edges: [] },
  });
  const alertPath = new URL(alertApp.triggers[0]!.url!).pathname;
  const server = http.createServer((req, res) => handleHookRequest(req, res, deps, { maxBytes: 64 * 1024 }));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const hooksBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  /**
   * Row count and content hash of every table (the runner is not running, so nothing moves on its
   * own). Metering is left out: an authenticated call counts towards `api.calls` and stamps the key's
   * `last_used_at` whether or not it was refused, and a refused delivery to a known intake is counted
   * on it (`refused_count`, `last_refused`: what the trigger panel shows; server/services/webhooks/refusals.ts).
   */
  async function fingerprint(): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const name of await tableNames(deps.sql, deps.store.dialect)) {
      // Metering and rate-limit windows move with every authenticated call, refused or not.
      if (name === "rate_limits") continue;
      const rows = (await deps.sql(`select * from "${name}"`))
        .filter((r) => !(name === "usage_counters" && r.metric === "api.calls"))
        .map(({ last_used_at: _used, refused_count: _refused, last_refused: _last, ...r }) => JSON.stringify(r))
        .sort();
      out[name] = `${rows.length}:${createHash("sha256").update(rows.join("\n")).digest("hex").slice(0, 16)}`;
    }
    return out;
  }

  return {
    deps,
    seed,
    api,
    appId,
    lineId,
    hookUrl: `${hooksBase}${new URL(intake.url).pathname}`,
    hookSecret: intake.secret,
    alertHookUrl: `${hooksBase}${alertPath}`,
    alertSecret,
    hooksBase,
    fingerprint,
    async close() {
      await new Promise((r) => server.close(r));
      await deps.close();
    },
  };
}
export type HostileTarget = Awaited<ReturnType<typeof startHostileTarget>>;
