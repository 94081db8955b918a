/** A failed step writes one JSON warn/error line naming the run, node and reason, without secrets. */
import { runnerHooks } from "@/server/runner-hooks";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDeps } from "../testing";
import { createLogger } from "../logger";
import { startRunner } from "./runner-loop";
import { registerStubs } from "./testing/stub-integration";
import { runLinear, seedWorkspace } from "./testing/seed";

registerStubs();
let server: http.Server;
let base = "";
beforeAll(async () => {
  server = http.createServer((_req, res) => {
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify({ message: "matchers are invalid" }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => server.close());

it("logs the failure once with run, node and reason", async () => {
  const lines: string[] = [];
  const deps = await createTestDeps({ log: createLogger({ service: "conveyor" }, "info", (l) => lines.push(l)) });
  const ws = await seedWorkspace(deps);
  const runner = startRunner(deps, runnerHooks(deps), { concurrency: 2, pollMs: 20, maintenance: false });
  try {
    const r = await runLinear(deps, ws, [{ key: "stub.fetch", name: "get", config: { url: `${base}/bad?token=s3cr3t-token` } }]);
    const failures = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === "step failed");
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({
      level: "error",
      runId: r.id,
      nodeId: "n1",
      automationId: r.automationId,
      retryable: false,
      reason: expect.stringContaining("matchers are invalid"),
    });
    expect(lines.join("\n")).not.toContain("s3cr3t-token");
  } finally {
    await runner.stop();
    deps.close();
  }
});
