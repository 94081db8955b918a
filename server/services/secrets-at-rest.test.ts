/**
 * Secrets at rest, both backends: after creating every kind of secret the service keeps (a
 * connection's client secret, a node's webhook secret, a webhook intake's secret, an API key, an
 * invitation link, an owner's password), no table row holds any of them in plain text, nor does the
 * SQLite file (WAL included). What a database backup or replica leaks is ciphertext and hashes.
 */
import fs from "node:fs";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createTestDeps, type TestDeps } from "../testing";
import { setupOwner } from "./users/setup-owner";
import { getUserActor } from "./users/get-user-actor";
import { createInvitation } from "./users/members";
import { createApiKey } from "./api-keys/api-keys";
import { createConnection } from "./connections";
import { createWebhookIntake } from "./intakes-webhook/intakes";
import { createAutomation } from "./automations/save-automation";
import { registerStubOAuth } from "./connections/testing/stub-oauth";

registerStubOAuth();
let deps: TestDeps;
beforeEach(async () => {
  deps = await createTestDeps();
});
afterEach(async () => deps.close());

async function everyRowAsText(): Promise<string> {
  const sqlite = deps.store.dialect === "sqlite";
  const tables = sqlite
    ? await deps.sql<{ name: string }>("select name from sqlite_master where type = 'table'")
    : await deps.sql<{ name: string }>("select table_name as name from information_schema.tables where table_schema = 'public'");
  const out: string[] = [];
  for (const { name } of tables) out.push(JSON.stringify(await deps.sql(`select * from "${name}"`)));
  return out.join("\n");
}

it("no secret is stored in plain text, in any table or in the SQLite file", async () => {
  const password = "owner-password-PLAIN-1";
  const setup = await setupOwner(deps, { email: "o@example.com", password });
  const owner = (await getUserActor(deps, setup.user.id))!;
  const ws = setup.workspace.id;
  const clientSecret = "client-secret-PLAIN-2";
  await createConnection(deps, owner, ws, { integration: "stuboauth", name: "c", config: { tokenUrl: "http://127.0.0.1:9/token", clientId: "cid", clientSecret } });
  const nodeSecret = "node-secret-PLAIN-3";
  await createAutomation(deps, owner, ws, {
    name: "hook",
    graph: {
      nodes: [
        { id: "t", name: "start", key: "core.webhook", config: { authentication: "bearer", secret: nodeSecret } },
        { id: "n1", name: "wait", key: "core.wait", config: { duration: "1s" } },
      ],
      edges: [{ from: "t", to: "n1" }],
    },
  });
  const line = (await deps.store.lines.list(ws, { limit: 1 }))[0]!;
  const intake = await createWebhookIntake(deps, owner, ws, { name: "in", lineId: line.id });
  const apiKey = (await createApiKey(deps, owner, { name: "ci", role: "viewer" })).key;
  const inviteToken = (await createInvitation(deps, owner, { role: "viewer" })).url.split("/invite/")[1]!;
  const secrets = { password, clientSecret, nodeSecret, intakeSecret: intake.secret, apiKey, inviteToken };

  const rows = await everyRowAsText();
  expect(rows).toContain(apiKey.slice(0, 12)); // the key's prefix is listed: the dump does see the api_keys rows
  for (const [what, value] of Object.entries(secrets)) expect(rows.includes(value), `${what} in a row`).toBe(false);
  if (deps.store.dialect === "sqlite") {
    const files = [deps.url, `${deps.url}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f));
    expect(files.some((b) => b.includes("o@example.com"))).toBe(true); // plain data is there: the scan reads the database

    for (const [what, value] of Object.entries(secrets)) expect(files.some((b) => b.includes(value)), `${what} in the file`).toBe(false);
  }
});
