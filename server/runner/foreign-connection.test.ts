/**
 * A node can carry a `connectionId` the save does not check (components that need no connection,
 * e.g. core.http). The runner loaded whatever connection that id named, in any workspace of any
 * organization, and handed it to the step; a connection that needed reconnecting failed the step
 * with its name and status message, shown in the other workspace's run. The runner now loads only
 * connections of the run's workspace (both backends).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runnerHooks } from "@/server/runner-hooks";
import { createTestDeps } from "../testing";
import { startRunner } from "./runner-loop";
import { seedWorkspace } from "./testing/seed";
import { waitForRun } from "./testing/wait";
import { createConnection } from "../services/connections";
import { createAutomation } from "../services/automations";
import { startRun } from "../services/runs/start-run";
import { getRunOrThrow } from "../services/runs/get-runs";
import { registerStubOAuth } from "../services/connections/testing/stub-oauth";

registerStubOAuth();
let server: http.Server;
let base = "";
beforeAll(async () => {
  server = http.createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => server.close());

it("a step never receives, nor names, a connection of another workspace", async () => {
  const deps = await createTestDeps();
  const other = await seedWorkspace(deps); // another organization's workspace
  const theirs = await createConnection(deps, other.actor, other.workspaceId, {
    integration: "stuboauth",
    name: "Payments prod Jira",
    config: { tokenUrl: "http://127.0.0.1:9/token", clientId: "cid", clientSecret: "their-secret" },
  });
  await deps.store.connections.update(theirs.id, { status: "needs_reconnect", statusMessage: "refresh refused for ops-bot@payments.example" }, other.workspaceId);
  const mine = await seedWorkspace(deps);
  const runner = startRunner(deps, runnerHooks(deps), { concurrency: 2, pollMs: 20, maintenance: false });
  try {
    const saved = await createAutomation(deps, mine.actor, mine.workspaceId, {
      name: "foreign",
      graph: {
        nodes: [
          { id: "t", name: "start", key: "core.manual", config: {} },
          { id: "n1", name: "call", key: "core.http", config: { url: `${base}/x` }, connectionId: theirs.id },
        ],
        edges: [{ from: "t", to: "n1" }],
      },
    });
    const started = await startRun(deps, mine.actor, { workspaceId: mine.workspaceId, automationId: saved.id, payload: {} });
    await waitForRun(deps, started.id);
    const run = await getRunOrThrow(deps, mine.actor, mine.workspaceId, started.id);
    const text = JSON.stringify(run);
    expect(text).not.toContain("Payments prod Jira");
    expect(text).not.toContain("ops-bot@payments.example");
    expect(run.status).toBe("failed");
    expect(run.error?.message).toContain(`Connection ${theirs.id} does not exist in this workspace`);
  } finally {
    await runner.stop();
    await deps.close();
  }
});
