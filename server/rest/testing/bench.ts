/**
 * Latency of two API calls on loopback against the built app (autocannon):
 *   GET /factories/{id}/orders?limit=50 (a page of 50 tasks) and POST /apps/{id}/runs (start a run).
 * Run: CONVEYOR_REST_HTTP=1 NEXT_DIST_DIR=.next-rest npx tsx server/rest/testing/bench.ts
 */
import autocannon from "autocannon";
import { startRestTarget } from "./target";
import { seedRest } from "./seed";

async function measure(title: string, opts: autocannon.Options) {
  const r = await autocannon({ connections: 10, duration: 10, ...opts });
  const non2xx = r.non2xx + r.errors;
  console.log(
    `${title}: ${r.requests.total} requests, ${Math.round(r.requests.average)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, max ${r.latency.max} ms, non-2xx/errors ${non2xx}`,
  );
  return r;
}

const target = await startRestTarget({ CONVEYOR_API_RATE_LIMIT: "100000000", LOG_LEVEL: "error" });
try {
  const s = await seedRest(target.deps);
  const { api } = target;
  for (let i = 0; i < 60; i++)
    await api.post(`/api/v1/factories/${s.ws}/orders`, { key: s.keys.operator, body: { title: `task ${i}`, data: { i, host: `db${i}` } } });
  const app = await api.post(`/api/v1/factories/${s.ws}/apps`, {
    key: s.keys.editor,
    body: {
      name: "Bench",
      enabled: true,
      concurrency: 50,
      graph: {
        nodes: [
          { id: "n1", name: "start", key: "core.manual", config: {} },
          { id: "n2", name: "gate", key: "core.filter", config: { condition: "{{ $trigger.data.go }}" } },
        ],
        edges: [{ from: "n1", to: "n2" }],
      },
    },
  });
  const auth = { authorization: `Bearer ${s.keys.admin}`, "content-type": "application/json" };
  const base = api.baseUrl;
  // Warm-up (JIT, Next route compilation caches).
  await measure("warm-up", { url: `${base}/api/v1/factories/${s.ws}/orders?limit=50`, headers: auth, duration: 3 });
  for (const connections of [1, 10]) {
    await measure(`GET /factories/{id}/orders?limit=50, ${connections} connection(s)`, {
      url: `${base}/api/v1/factories/${s.ws}/orders?limit=50`,
      headers: auth,
      connections,
    });
    await measure(`POST /factories/{id}/apps/{appId}/runs, ${connections} connection(s)`, {
      url: `${base}/api/v1/factories/${s.ws}/apps/${app.body.id}/runs`,
      method: "POST",
      headers: auth,
      body: JSON.stringify({ payload: { go: true } }),
      connections,
    });
  }
} finally {
  await target.close();
}
