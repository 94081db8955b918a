import http from "node:http";
import type { AddressInfo } from "node:net";
import { execFileSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext } from "../core/testing";
import { DeliveryUnauthorizedError, IntegrationHttpError, NonRetryableError } from "../core/errors";
import { filterComponent } from "./filter";
import { httpComponent } from "./http";
import { scheduleTrigger } from "./schedule";
import { waitComponent } from "./wait";
import { webhookTrigger } from "./webhook";

let server: http.Server;
let base = "";
beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const status = req.url === "/missing" ? 404 : 200;
      res.writeHead(status, { "content-type": "application/json", "set-cookie": "a=b" });
      res.end(JSON.stringify(status === 200 ? { method: req.method, body: body ? JSON.parse(body) : null, q: req.url } : { message: "no such thing" }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

const delivery = (body: string, headers: Record<string, string>) => ({
  method: "POST",
  headers,
  query: {},
  rawBody: Buffer.from(body),
  body: JSON.parse(body),
});
const matchCtx = (config: unknown) => ({
  config: webhookTrigger.config.parse(config),
  connection: undefined,
  intake: { id: "i", url: "u", token: "t" },
  now: () => new Date(),
});

describe("core blocks", () => {
  it("core.http sends the request and emits status, headers (no cookies) and body; 404 is permanent", async () => {
    const ctx = createTestContext(httpComponent, { config: { method: "POST", url: `${base}/x`, query: { a: "1" }, body: { hello: "world" } } });
    const out = (await httpComponent.run(ctx)) as {
      type: string;
      data: { status: number; headers: Record<string, string>; body: { body: unknown; q: string } };
    };
    expect(out.type).toBe("core.http.response");
    expect(out.data.status).toBe(200);
    expect(out.data.body).toMatchObject({ method: "POST", body: { hello: "world" }, q: "/x?a=1" });
    expect(out.data.headers["set-cookie"]).toBeUndefined();
    const missing = createTestContext(httpComponent, { config: { url: `${base}/missing` } });
    const err = await httpComponent.run(missing).catch((e) => e);
    expect(err).toBeInstanceOf(IntegrationHttpError);
    expect(err.retryable).toBe(false);
    expect(err.message).toContain("no such thing");
    const meta = createTestContext(httpComponent, { config: { url: "http://169.254.169.254/latest/meta-data" } });
    await expect(httpComponent.run(meta)).rejects.toBeInstanceOf(NonRetryableError);
  });

  it("core.filter passes or stops the branch", async () => {
    expect(await filterComponent.run(createTestContext(filterComponent, { config: { condition: true } }))).toMatchObject({ data: { passed: true } });
    expect(await filterComponent.run(createTestContext(filterComponent, { config: { condition: false } }))).toMatchObject({ kind: "stop" });
    expect(await filterComponent.run(createTestContext(filterComponent, { config: { condition: [] } }))).toMatchObject({ kind: "stop" });
  });

  it("core.wait reschedules itself until the time has passed", async () => {
    let now = new Date("2026-01-01T00:00:00Z");
    const first = await waitComponent.run(createTestContext(waitComponent, { config: { duration: "1h30m" }, now: () => now }));
    expect(first).toMatchObject({ kind: "wait", delayMs: 5_400_000 });
    now = new Date("2026-01-01T01:30:00Z");
    const done = await waitComponent.run(
      createTestContext(waitComponent, { config: { duration: "1h30m" }, state: (first as { state: unknown }).state, now: () => now }),
    );
    expect(done).toMatchObject({ type: "core.wait", data: { waitedMs: 5_400_000 } });
    expect(waitComponent.config.safeParse({ duration: "soon" }).success).toBe(false);
  });

  it("core.webhook verifies bearer and HMAC in constant time and hides auth headers", async () => {
    const bearer = matchCtx({ authentication: "bearer", secret: "abcdefgh" });
    expect(() => webhookTrigger.verify!(delivery("{}", { authorization: "Bearer nope" }), bearer)).toThrow(DeliveryUnauthorizedError);
    webhookTrigger.verify!(delivery("{}", { authorization: "Bearer abcdefgh" }), bearer);
    const hmac = matchCtx({ authentication: "hmac", secret: "abcdefgh" });
    const body = '{"a":1}';
    webhookTrigger.verify!(delivery(body, { "x-signature-256": createHmac("sha256", "abcdefgh").update(body).digest("hex") }), hmac);
    expect(() => webhookTrigger.verify!(delivery(body, {}), hmac)).toThrow(DeliveryUnauthorizedError);
    const events = await webhookTrigger.match(delivery(body, { authorization: "Bearer abcdefgh", "idempotency-key": "k", "x-other": "1" }), bearer);
    expect(events).toEqual([{ data: { body: { a: 1 }, headers: { "idempotency-key": "k", "x-other": "1" }, query: {} }, dedupeKey: "k" }]);
    expect(webhookTrigger.validate!(webhookTrigger.config.parse({ authentication: "hmac" }), {})).toEqual([{ path: "secret", message: expect.any(String) }]);
  });

  it("core.webhook's trigger panel gives a first delivery to paste whose signature the trigger accepts, never the secret", () => {
    const url = "http://localhost:3000/hooks/tok";
    const ins = (config: Record<string, unknown>) => webhookTrigger.setupInstructions!({ url, config: webhookTrigger.config.parse(config) })[0]!.text;
    expect(ins({})).toBe(`curl -i -X POST -H 'content-type: application/json' --data '{"hello":"world"}' ${url}`);
    expect(ins({ authentication: "bearer", secret: "abcdefgh-secret" })).toContain('-H "Authorization: Bearer $SECRET"');
    const hmacText = ins({ authentication: "hmac", secret: "abcdefgh-secret", signatureHeader: "x-hub-signature-256" });
    expect(hmacText).not.toContain("abcdefgh-secret");
    // Run it with the secret filled in and curl printing its arguments: the header it sends verifies.
    const script = `curl() { printf '%s\\n' "$@"; }\n${hmacText.replace("<the secret of this node>", "abcdefgh-secret")}`;
    const args = execFileSync("bash", ["-c", script], { encoding: "utf8" }).split("\n");
    const header = args.find((a) => a.startsWith("x-hub-signature-256: "))!;
    const sent = args[args.indexOf("--data") + 1]!;
    // Timestamped: accepted by a node that requires it, and handed back for replay protection.
    const hmac = matchCtx({ authentication: "hmac", secret: "abcdefgh-secret", signatureHeader: "x-hub-signature-256", requireTimestampedSignature: true });
    const verified = webhookTrigger.verify!(delivery(sent, { "x-hub-signature-256": header.slice("x-hub-signature-256: ".length) }), hmac);
    expect(verified).toMatchObject({ replay: { signature: expect.stringMatching(/^[0-9a-f]{64}$/) } });
    expect(args.at(-2)).toBe(url);
    // The "how to sign" help says what is accepted, and whether body-only signatures are.
    const help = (config: Record<string, unknown>) => webhookTrigger.setupInstructions!({ url, config: webhookTrigger.config.parse(config) })[1]!;
    expect(help({ authentication: "hmac", secret: "abcdefgh-secret" })).toMatchObject({
      title: "How to sign",
      text: expect.stringContaining("x-signature-256: t=<unix seconds>,v1="),
    });
    expect(help({ authentication: "hmac", secret: "abcdefgh-secret" }).text).toContain("is accepted too");
    expect(help({ authentication: "hmac", secret: "abcdefgh-secret", requireTimestampedSignature: true, signatureToleranceSeconds: 60 }).text).toMatch(
      /within 60 s[\s\S]*are refused/,
    );
  });

  it("core.schedule computes the next tick in its time zone and rejects bad cron", () => {
    const cfg = scheduleTrigger.config.parse({ cron: "0 9 * * 1-5", timezone: "America/New_York" });
    expect(scheduleTrigger.nextFireAt!(cfg, new Date("2026-01-03T12:00:00Z"))!.toISOString()).toBe("2026-01-05T14:00:00.000Z");
    expect(scheduleTrigger.validate!(scheduleTrigger.config.parse({ cron: "61 * * * *" }), {})[0]!.path).toBe("cron");
    expect(scheduleTrigger.config.safeParse({ cron: "* * * * *", timezone: "Mars/Olympus" }).success).toBe(false);
  });
});
