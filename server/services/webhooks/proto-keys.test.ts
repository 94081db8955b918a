/**
 * A hostile webhook sender's `__proto__` / `constructor.prototype` keys (both backends): the
 * delivery is stored and run as plain data, the keys stay own properties of the payload all the way
 * to an outbound request body, and nothing in the process inherits them (no prototype pollution).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runnerHooks } from "@/server/runner-hooks";
import { createTestDeps } from "../../testing";
import { startRunner } from "../../runner/runner-loop";
import { waitForRun } from "../../runner/testing/wait";
import { seedWorkspace } from "../../runner/testing/seed";
import { createAutomation } from "../automations";
import { receiveWebhook } from "./receive-webhook";

let server: http.Server;
let base = "";
const bodies: string[] = [];
beforeAll(async () => {
  server = http.createServer((req, res) => {
    let b = "";
    req.on("data", (d) => (b += d));
    req.on("end", () => {
      bodies.push(b);
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => server.close());

it("__proto__ and constructor keys in a delivery are data, not prototypes", async () => {
  const deps = await createTestDeps();
  const ws = await seedWorkspace(deps);
  const a = await createAutomation(deps, ws.actor, ws.workspaceId, {
    name: "proto",
    enabled: true,
    graph: {
      nodes: [
        { id: "t", name: "hook", key: "core.webhook", config: {} },
        { id: "h", name: "echo", key: "core.http", config: { method: "POST", url: `${base}/echo`, body: "{{ $trigger.data.body }}" } },
      ],
      edges: [{ from: "t", to: "h" }],
    },
  });
  const token = new URL(a.triggers[0]!.url!).pathname.split("/").pop()!;
  const raw = '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted2":"yes"}},"a":{"__proto__":{"polluted3":"yes"}}}';
  const runner = startRunner(deps, runnerHooks(deps), { concurrency: 2, pollMs: 20, maintenance: false });
  try {
    const res = await receiveWebhook(deps, { token, method: "POST", headers: { "content-type": "application/json" }, query: {}, rawBody: Buffer.from(raw) });
    expect(res.status).toBe(202);
    const runId = (res.body.runIds as string[])[0]!;
    await waitForRun(deps, runId);
    expect((await deps.store.runs.get(runId))!.status).toBe("succeeded");
    expect(bodies).toHaveLength(1);
    expect(JSON.parse(bodies[0]!)).toEqual(JSON.parse(raw));
    expect(Object.hasOwn(JSON.parse(bodies[0]!), "__proto__")).toBe(true);
    const plain = {} as Record<string, unknown>;
    expect([plain.polluted, plain.polluted2, plain.polluted3]).toEqual([undefined, undefined, undefined]);
    expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain("polluted");
  } finally {
    await runner.stop();
    await deps.close();
  }
});
