/**
 * Timestamped webhook signatures (integrations/core/signed-delivery.ts) through the real ingress (the
 * lean listener, the engine's ingest or the task intake's transaction) on the test backend: accepted
 * in time, refused too old / in the future / tampered / malformed / replayed with a message that says
 * which (and never the secret or the expected value), body-only signatures and bearer secrets still
 * accepted unless the webhook requires the timestamped scheme.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createHmac } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDeps } from "../../testing";
import { handleHookRequest } from "../../webhooks/lean-listener";
import { createAutomation } from "../automations";
import { registerStubs } from "../../runner/testing/stub-integration";
import { seedWorkspace } from "../../runner/testing/seed";
import { createWebhookIntake, updateWebhookIntakeSignature } from "../intakes-webhook/intakes";
import { createLine } from "../lines/lines";
import { signatureHeader, timestampedSignature } from "@/integrations/core/signed-delivery";
import { pruneUsedSignatures } from "../../runner/maintenance";

registerStubs();

let deps: Awaited<ReturnType<typeof createTestDeps>>;
let server: http.Server;
let base: string;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;
let toleranceS: number | undefined;

beforeEach(async () => {
  deps = await createTestDeps();
  ws = await seedWorkspace(deps);
  toleranceS = undefined;
  server = http.createServer((req, res) => handleHookRequest(req, res, deps, { maxBytes: 4096, signatureToleranceS: toleranceS }));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  server.close();
  deps.close();
});

const SECRET = "hmac-secret-of-the-node";
const now = () => Math.floor(Date.now() / 1000);
const count = async (table: string) => Number((await deps.sql<{ n: number }>(`select count(*) as n from ${table}`))[0]!.n);
const post = (url: string, body: string, headers: Record<string, string>) =>
  fetch(url, { method: "POST", body, headers: { "content-type": "application/json", ...headers } }).then(async (r) => ({
    status: r.status,
    type: r.headers.get("content-type"),
    body: (await r.json()) as Record<string, unknown> & { detail?: string; code?: string },
  }));

async function hmacTrigger(config: Record<string, unknown> = {}) {
  const a = await createAutomation(deps, ws.actor, ws.workspaceId, {
    name: "signed",
    enabled: true,
    graph: {
      nodes: [
        { id: "t", name: "hook", key: "core.webhook", config: { authentication: "hmac", secret: SECRET, ...config } },
        { id: "a", name: "echo", key: "stub.echo", config: { value: "x" } },
      ],
      edges: [{ from: "t", to: "a" }],
    },
  });
  return a.triggers[0]!.url!.replace("http://127.0.0.1:3999", base);
}

/** Refused with 401 problem+json whose detail starts with `start`, names no secret, and stored nothing. */
async function refused(p: Promise<Awaited<ReturnType<typeof post>>>, start: string, secret = SECRET) {
  const before = await count("events");
  const r = await p;
  expect(r.status).toBe(401);
  expect(r.type).toBe("application/problem+json");
  expect(r.body.code).toBe("unauthorized");
  expect(r.body.detail).toMatch(new RegExp(`^${start}`));
  expect(r.body.detail).not.toContain(secret);
  expect(r.body.detail).not.toMatch(/[0-9a-f]{64}/);
  expect(await count("events")).toBe(before);
  return r;
}

describe("timestamped signatures on a core.webhook trigger (HMAC)", () => {
  it("accepts a fresh one once; refuses it again, too old, in the future, tampered and malformed, saying which", async () => {
    const url = await hmacTrigger();
    const body = JSON.stringify({ hello: "world" });
    const t = now();
    const ok = await post(url, body, { "x-signature-256": signatureHeader(SECRET, body, t) });
    expect(ok.status).toBe(202);
    expect(ok.body).toMatchObject({ accepted: 1 });
    expect(await count("webhook_signatures")).toBe(1);
    // The same bytes again (a captured delivery), and the same signature dressed differently.
    await refused(post(url, body, { "x-signature-256": signatureHeader(SECRET, body, t) }), "Replayed delivery");
    const v1 = timestampedSignature(SECRET, body, t);
    await refused(post(url, body, { "x-signature-256": ` v1=${v1.toUpperCase()} , t=${t}, v1=${"0".repeat(64)}` }), "Replayed delivery");
    await refused(post(url, body, { "x-signature-256": signatureHeader(SECRET, body, t - 301) }), "Signature too old: .* at most 300 s");
    await refused(post(url, body, { "x-signature-256": signatureHeader(SECRET, body, now() + 310) }), "Signature timestamp in the future: .* at most 300 s");
    await refused(post(url, JSON.stringify({ hello: "w0rld" }), { "x-signature-256": signatureHeader(SECRET, body, t) }), "Bad signature");
    // A t= other than the one signed (moving an old signature into the window) is a bad signature too.
    await refused(post(url, body, { "x-signature-256": `t=${t + 1},v1=${v1}` }), "Bad signature");
    await refused(post(url, body, { "x-signature-256": signatureHeader("another-secret", body, t - 1) }), "Bad signature");
    await refused(post(url, body, { "x-signature-256": `t=${t}` }), "Malformed signature");
    await refused(post(url, body, { "x-signature-256": `t=soon,v1=${v1}` }), "Malformed signature");
    expect(await count("runs")).toBe(1);
    // A fresh signature of the same body is a new delivery.
    expect((await post(url, body, { "x-signature-256": signatureHeader(SECRET, body, t - 1) })).status).toBe(202);
  });

  it("of the same signed delivery sent 6 times at once, exactly one is stored", async () => {
    const url = await hmacTrigger();
    const body = JSON.stringify({ burst: true });
    const header = signatureHeader(SECRET, body, now());
    const all = await Promise.all(Array.from({ length: 6 }, () => post(url, body, { "x-signature-256": header })));
    expect(all.map((r) => r.status).sort()).toEqual([202, 401, 401, 401, 401, 401]);
    for (const r of all.filter((x) => x.status === 401)) expect(r.body.detail).toMatch(/^Replayed delivery/);
    expect(await count("runs")).toBe(1);
    expect(await count("webhook_signatures")).toBe(1);
  });

  it("the engine stores one of two deliveries with one signature committed in the same tick (one batch on PostgreSQL)", async () => {
    await hmacTrigger();
    const [intake] = await deps.sql<{ id: string; automation_id: string }>("select id, automation_id from intakes where kind = 'trigger'");
    const item = (n: number) => ({
      intakeId: intake!.id,
      signature: { signature: "ab".repeat(32), expiresAtMs: Date.now() + 300_000 },
      runs: [
        {
          workspaceId: ws.workspaceId,
          automationId: intake!.automation_id,
          version: 1,
          triggerNodeId: "t",
          firstNodes: [],
          envelope: { type: "core.webhook", timestamp: new Date().toISOString(), data: { n } },
          source: "webhook" as const,
          intakeId: intake!.id,
          dedupeScope: intake!.id,
          at: new Date(),
        },
      ],
    });
    const results = await Promise.all([deps.store.engine.ingest(item(1)), deps.store.engine.ingest(item(2)), deps.store.engine.ingest(item(3))]);
    expect(results.map((r) => (r.replayed ? "replayed" : r.runIds.length)).sort()).toEqual([1, "replayed", "replayed"]);
    expect(await count("runs")).toBe(1);
    expect(await count("events")).toBe(1);
  });

  it("still accepts body-only sha256= signatures (no replay protection) unless the node requires the timestamp", async () => {
    const body = JSON.stringify({ legacy: 1 });
    const legacy = { "x-signature-256": "sha256=" + createHmac("sha256", SECRET).update(body).digest("hex") };
    const open = await hmacTrigger();
    expect((await post(open, body, legacy)).status).toBe(202);
    expect((await post(open, body, legacy)).status).toBe(202);
    await refused(post(open, body, { "x-signature-256": "sha256=" + "0".repeat(64) }), "Missing or wrong HMAC-SHA256 signature");

    const strict = await hmacTrigger({ requireTimestampedSignature: true });
    await refused(post(strict, body, legacy), "This webhook requires a timestamped signature: x-signature-256: t=<unix seconds>,v1=");
    await refused(post(strict, body, {}), "This webhook requires a timestamped signature");
    expect((await post(strict, body, { "x-signature-256": signatureHeader(SECRET, body, now()) })).status).toBe(202);
  });

  it("takes the tolerance from the node, else from the installation (CONVEYOR_WEBHOOK_SIGNATURE_TOLERANCE_S)", async () => {
    const body = "{}";
    const tight = await hmacTrigger({ signatureToleranceSeconds: 30 });
    await refused(post(tight, body, { "x-signature-256": signatureHeader(SECRET, body, now() - 60) }), "Signature too old: .* at most 30 s");
    const loose = await hmacTrigger({ signatureToleranceSeconds: 900 });
    expect((await post(loose, body, { "x-signature-256": signatureHeader(SECRET, body, now() - 600) })).status).toBe(202);
    const byDefault = await hmacTrigger();
    expect((await post(byDefault, body, { "x-signature-256": signatureHeader(SECRET, body, now() - 200) })).status).toBe(202);
    toleranceS = 100; // the door's setting (server/main.ts passes the env var)
    await refused(post(byDefault, body, { "x-signature-256": signatureHeader(SECRET, body, now() - 200) }), "Signature too old: .* at most 100 s");
  });

  it("forgets used signatures only an hour after their window", async () => {
    const url = await hmacTrigger();
    expect((await post(url, "{}", { "x-signature-256": signatureHeader(SECRET, "{}", now()) })).status).toBe(202);
    expect(await pruneUsedSignatures(deps)).toBe(0);
    const later = { ...deps, now: () => new Date(Date.now() + (300 + 3600 + 5) * 1000) };
    expect(await pruneUsedSignatures(later)).toBe(1);
    expect(await count("webhook_signatures")).toBe(0);
  });
});

describe("timestamped signatures on a webhook intake (tasks)", () => {
  async function intake(settings: { requireTimestampedSignature?: boolean } = {}) {
    const line = await createLine(deps, ws.actor, ws.workspaceId, { name: "Inbox", steps: [] });
    const made = await createWebhookIntake(deps, ws.actor, ws.workspaceId, { name: `in-${Math.random()}`, lineId: line.id, ...settings });
    return { ...made, url: made.url!.replace("http://127.0.0.1:3999", base) };
  }

  it("bearer, body-only and timestamped signatures by default; replays, old, future and tampered ones refused", async () => {
    const i = await intake();
    expect(i.signature).toEqual({ requireTimestampedSignature: false, signatureToleranceSeconds: null });
    const body = JSON.stringify({ title: "Disk full" });
    expect((await post(i.url, body, { authorization: `Bearer ${i.secret}` })).status).toBe(202);
    expect((await post(i.url, body, { "x-conveyor-signature": "sha256=" + createHmac("sha256", i.secret).update(body).digest("hex") })).status).toBe(202);
    const t = now();
    const signed = { "x-conveyor-signature": signatureHeader(i.secret, body, t) };
    expect((await post(i.url, body, signed)).body).toMatchObject({ accepted: 1 });
    const tasks = await count("tasks");
    await refused(post(i.url, body, signed), "Replayed delivery", i.secret);
    await refused(post(i.url, body, { "x-conveyor-signature": signatureHeader(i.secret, body, t - 400) }), "Signature too old", i.secret);
    await refused(post(i.url, body, { "x-conveyor-signature": signatureHeader(i.secret, body, now() + 400) }), "Signature timestamp in the future", i.secret);
    await refused(post(i.url, '{"title":"Disk fine"}', signed), "Bad signature", i.secret);
    await refused(post(i.url, body, { authorization: "Bearer wrong" }), "Send the intake secret as Authorization: Bearer", i.secret);
    expect(await count("tasks")).toBe(tasks);
  });

  it("once set to require the timestamp, refuses bearer and body-only deliveries", async () => {
    const i = await intake();
    const body = JSON.stringify({ title: "t" });
    const bearer = { authorization: `Bearer ${i.secret}` };
    expect((await post(i.url, body, bearer)).status).toBe(202);
    const updated = await updateWebhookIntakeSignature(deps, ws.actor, ws.workspaceId, i.id, {
      requireTimestampedSignature: true,
      signatureToleranceSeconds: 60,
    });
    expect(updated.signature).toEqual({ requireTimestampedSignature: true, signatureToleranceSeconds: 60 });
    await refused(post(i.url, body, bearer), "This webhook requires a timestamped signature: X-Conveyor-Signature: t=", i.secret);
    const legacy = { "x-conveyor-signature": "sha256=" + createHmac("sha256", i.secret).update(body).digest("hex") };
    await refused(post(i.url, body, legacy), "This webhook requires a timestamped signature", i.secret);
    await refused(post(i.url, body, { "x-conveyor-signature": signatureHeader(i.secret, body, now() - 90) }), "Signature too old: .* at most 60 s", i.secret);
    expect((await post(i.url, body, { "x-conveyor-signature": signatureHeader(i.secret, body, now()) })).status).toBe(202);
    // Required from creation.
    const strict = await intake({ requireTimestampedSignature: true });
    await refused(post(strict.url, body, { authorization: `Bearer ${strict.secret}` }), "This webhook requires a timestamped signature", strict.secret);
  });
});
