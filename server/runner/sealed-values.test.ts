/**
 * The runner opened `secret:<ciphertext>` strings anywhere in a node's config, so an editor who
 * pasted a ciphertext of this installation's key (read from a database backup or replica: at rest,
 * connection secrets, OAuth tokens and webhook secrets are nothing else) into a core.http header had
 * the service decrypt it and send the plaintext to a URL of their choice: encryption at rest undone
 * by anyone with database read access and the editor role. Sealed values are opened only where the
 * save put them: a component's `sensitive` fields.
 */
import { runnerHooks } from "@/server/runner-hooks";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDeps } from "../testing";
import { startRunner } from "./runner-loop";
import { runLinear, seedWorkspace } from "./testing/seed";

let server: http.Server;
let base = "";
const seen: http.IncomingHttpHeaders[] = [];
beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => server.close());

it("a ciphertext pasted into a field that is not a secret is sent as written, never decrypted", async () => {
  const deps = await createTestDeps();
  const ws = await seedWorkspace(deps);
  // What a database reader sees: a connection's encrypted secrets (the same key seals node secrets).
  const stolen = deps.box.encryptJson({ clientSecret: "the-connection-secret" });
  const runner = startRunner(deps, runnerHooks(deps), { concurrency: 2, pollMs: 20, maintenance: false });
  try {
    const r = await runLinear(deps, ws, [{ key: "core.http", name: "exfiltrate", config: { url: `${base}/x`, headers: { "x-probe": `secret:${stolen}` } } }]);
    expect(r.status).toBe("succeeded");
    expect(seen).toHaveLength(1);
    expect(seen[0]!["x-probe"]).toBe(`secret:${stolen}`);
    expect(JSON.stringify(seen)).not.toContain("the-connection-secret");
  } finally {
    await runner.stop();
    await deps.close();
  }
});
