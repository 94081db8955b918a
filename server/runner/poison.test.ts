/**
 * Poison automations against the real runner in this process: a catastrophic regex, a huge value
 * and a runaway loop in a `core.http` body each fail their own step at once, naming node and field,
 * while an HTTP endpoint served by the same process keeps answering; the process does not keep the
 * big value. (Process deaths in flight and quarantine: quarantine.test.ts.)
 */
import { runnerHooks } from "@/server/runner-hooks";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDeps } from "../testing";
import { createAutomation } from "../services/automations";
import { getRunOrThrow, startRun } from "../services/runs";
import { startRunner, type Runner } from "./runner-loop";
import { linearGraph, seedWorkspace } from "./testing/seed";
import { waitForRun } from "./testing/wait";

let deps: Awaited<ReturnType<typeof createTestDeps>>;
let runner: Runner;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;
let server: http.Server;
let health = "";
const upstreamHits: string[] = [];

beforeAll(async () => {
  deps = await createTestDeps();
  ws = await seedWorkspace(deps);
  runner = startRunner(deps, runnerHooks(deps), {
    concurrency: 16,
    pollMs: 20,
    maintenance: false,
    expressions: { timeoutMs: 4000, maxHeapMb: 64, workers: 2 },
  }); // roomy: the heap limit must win on a loaded machine
  // Stands in for the doors: /health answers from this process; anything else is the (never reached) upstream.
  server = http.createServer((req, res) => {
    if (req.url !== "/health") upstreamHits.push(req.url!);
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"status":"ok"}');
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  health = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await runner.stop();
  server.close();
  deps.close();
});

const POISON = {
  regex: "{{ $match($pad('', 50000, 'a') & '!', /^(a+)+$/) }}",
  huge: "{{ $count([1..10000000].{ 'n': $, 'pad': $pad('', 20, 'x') }) }}",
  loop: "{{ ($f := function($n){ $n > 0 ? $f($n - 1) + $f($n - 1) : 1 }; $f(60)) }}",
};

describe("poison automations", () => {
  it("each fails its own step at once with node and field named, while the process keeps serving HTTP", async () => {
    const runs: Record<string, string> = {};
    for (const [kind, expr] of Object.entries(POISON)) {
      const a = await createAutomation(
        deps,
        ws.actor,
        ws.workspaceId,
        linearGraph([{ key: "core.http", name: `call_${kind}`, config: { method: "POST", url: `${health}/upstream`, body: { note: "fine", value: expr } } }]),
      );
      runs[kind] = (await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id })).id;
    }
    const rssBefore = process.memoryUsage().rss;
    let answered = 0;
    let done = false;
    const poll = (async () => {
      while (!done) {
        const res = await fetch(`${health}/health`);
        if (res.ok && (await res.json()).status === "ok") answered++;
        await new Promise((r) => setTimeout(r, 25));
      }
    })();
    for (const id of Object.values(runs)) await waitForRun(deps, id, ["succeeded", "failed", "cancelled"], 30_000);
    done = true;
    await poll;

    const detail = async (kind: string) => getRunOrThrow(deps, ws.actor, ws.workspaceId, runs[kind]!);
    const regex = await detail("regex");
    expect(regex.status).toBe("failed");
    expect(regex.error!.message).toBe("call_regex: expression in body.value stopped: it ran longer than 4000 ms");
    expect(regex.steps[1]!.attempts).toHaveLength(1); // deterministic: not retried
    const huge = await detail("huge");
    expect(huge.error!.message).toBe("call_huge: expression in body.value stopped: it used more than 64 MB of memory");
    const loop = await detail("loop");
    expect(loop.error!.message).toMatch(/^call_loop: expression in body\.value stopped: it ran longer than 4000 ms$/);
    expect(upstreamHits).toEqual([]); // no step got as far as its request

    expect(answered).toBeGreaterThan(5);
    // The huge value was built (and dropped) in a worker process: this one did not take it on.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(100 * 2 ** 20);
  }, 60_000);

  it("keeps evaluating ordinary expressions after workers were stopped", async () => {
    const a = await createAutomation(
      deps,
      ws.actor,
      ws.workspaceId,
      linearGraph([
        { key: "core.filter", name: "cheap", config: { condition: "{{ $trigger.data.n = 2 }}" } },
        { key: "core.filter", name: "pooled", config: { condition: "{{ $join($map([1, 2], function($v){ $string($v) }), '') = '12' }}" } },
      ]),
    );
    const r = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id, payload: { n: 2 } });
    expect(await waitForRun(deps, r.id)).toBe("succeeded");
  });
});
