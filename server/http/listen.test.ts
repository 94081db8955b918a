import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import { createTestDeps } from "../testing";
import { startIngress } from "../roles/start";
import { listen } from "./listen";

const open: http.Server[] = [];
afterEach(() => open.splice(0).forEach((s) => s.close()));

async function takenPort(): Promise<number> {
  const s = http.createServer();
  open.push(s);
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return (s.address() as AddressInfo).port;
}

it("says the port is taken and which setting chooses another, instead of an unhandled error event", async () => {
  const port = await takenPort();
  const s = http.createServer();
  open.push(s);
  await expect(listen(s, port, "127.0.0.1", "PORT")).rejects.toThrow(
    `Cannot listen on 127.0.0.1:${port}: the port is already in use (EADDRINUSE), by another Conveyor or another program. Stop it, or choose another port with PORT.`,
  );
});

it("names HOST when it is not an address of this machine", async () => {
  const s = http.createServer();
  open.push(s);
  await expect(listen(s, 0, "192.0.2.1", "PORT")).rejects.toThrow(/192\.0\.2\.1 is not an address of this machine \(EADDRNOTAVAIL\)\. Set HOST/);
});

it("an ingress on a taken port names its own setting", async () => {
  const port = await takenPort();
  const deps = await createTestDeps();
  try {
    const env = { HOST: "127.0.0.1", CONVEYOR_WEBHOOK_MAX_BYTES: 1 << 20, CONVEYOR_WEBHOOK_TIMEOUT_MS: 10_000, CONVEYOR_WEBHOOK_OUTCOME_GRACE_MS: 0 };
    await expect(startIngress(deps, env, { port })).rejects.toThrow(/already in use \(EADDRINUSE\).*--port or CONVEYOR_INGRESS_PORT/);
  } finally {
    await deps.close();
  }
});
