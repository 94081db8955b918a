/**
 * A stopping ingress writes what it still holds: refused deliveries are counted on their intake in
 * throttled writes (server/services/webhooks/refusals.ts), and the ones counted since the last write
 * are written before the process closes its database instead of being dropped.
 */
import { afterEach, expect, it, vi } from "vitest";
import { createTestDeps } from "../testing";
import { startIngress } from "./start";
import { seedHookAutomation } from "./testing/seed-hook";

let deps: Awaited<ReturnType<typeof createTestDeps>> | undefined;
afterEach(async () => {
  await deps?.close().catch(() => undefined); // the role's stop closed the store and queue already
  deps = undefined;
});

it("writes the refusals still pending when it stops", async () => {
  deps = await createTestDeps();
  const { hookPath } = await seedHookAutomation(deps);
  const writes = vi.spyOn(deps.store.intakes, "noteRefused");
  const env = { HOST: "127.0.0.1", CONVEYOR_WEBHOOK_MAX_BYTES: 1 << 20, CONVEYOR_WEBHOOK_TIMEOUT_MS: 10_000, CONVEYOR_WEBHOOK_OUTCOME_GRACE_MS: 0 };
  const role = await startIngress(deps, env, { port: 0 });
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`http://127.0.0.1:${role.port}${hookPath}`, { method: "POST", body: "not json", headers: { "content-type": "application/json" } });
    expect(res.status).toBe(400);
  }
  // The first refusal is written at once; the next two wait for the end of the 5 s window.
  await role.stop();
  expect(writes.mock.calls.reduce((n, call) => n + call[2], 0)).toBe(3);
  expect(writes.mock.calls.at(-1)![1]).toMatchObject({ status: 400, code: "bad_request" });
});
