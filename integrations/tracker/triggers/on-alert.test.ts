import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { ConnectionHandle, TriggerSetupContext } from "../../core/define";
import { DeliveryRejectedError, DeliveryUnauthorizedError } from "../../core/errors";
import { createHttpClient } from "../../core/http";
import { createTestLogger } from "../../core/testing";
import { createAlert } from "../components/create-alert";
import { updateAlert } from "../components/update-alert";
import { deleteAlert } from "../components/delete-alert";
import { contextFor, drive, memoryRegistrations, startJsmOpsFake, startReceiver, type JsmOpsFake } from "../testing/jsm-ops-harness";
import { onAlert, onAlertConfig, TOKEN_HEADER } from "./on-alert";

let h: JsmOpsFake;
let rx: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  h = await startJsmOpsFake();
  rx = await startReceiver();
});
afterAll(async () => {
  await h?.close();
  await rx?.close();
});
beforeEach(() => {
  h.site.integrations.clear();
  h.site.alerts.clear();
  rx.deliveries.length = 0;
});

function setupCtx(
  config: unknown,
  nodeId = "n_alert",
  connection: ConnectionHandle = h.connection(),
): TriggerSetupContext<ReturnType<typeof onAlertConfig.parse>> {
  return {
    config: onAlertConfig.parse(config),
    connection,
    http: createHttpClient(),
    log: createTestLogger(),
    intake: { id: "int_1", url: `${rx.url}/hooks/tok-${nodeId}`, token: `tok-${nodeId}` },
    registrations: memoryRegistrations(nodeId),
    automationId: "aut_1",
    nodeId,
  };
}

const matchCtx = (s: TriggerSetupContext<ReturnType<typeof onAlertConfig.parse>>) => ({
  config: s.config,
  connection: s.connection,
  intake: s.intake,
  now: () => new Date(),
});

async function newAlert(config: Record<string, unknown>) {
  const { result } = await drive(createAlert, contextFor(createAlert, h, config), h, { realSleepMs: 20 });
  return (result as { data: { id: string } }).data;
}

async function eventsFor(s: ReturnType<typeof setupCtx>) {
  await h.site.settled();
  const out = [];
  for (const d of rx.deliveries) {
    await onAlert.verify!(d, matchCtx(s));
    out.push(...(await onAlert.match(d, matchCtx(s))));
  }
  return out;
}

describe("tracker.onAlert", () => {
  it("registers its own webhook integration with one outgoing action per selected event, and removes it on teardown", async () => {
    const s = setupCtx({ events: ["created", "closed"] });
    const res = await onAlert.setup!(s);
    const integ = h.site.integrations.get(res!.registration!.upstreamId)!;
    expect(integ).toMatchObject({ type: "Webhook", enabled: true, teamId: undefined });
    expect(integ.typeSpecificProperties).toMatchObject({ url: s.intake.url, headers: { [TOKEN_HEADER]: s.intake.token } });
    expect(integ.actions.map((a) => a.type)).toEqual(["create", "close"]);

    await onAlert.teardown!(s);
    expect(h.site.integrations.size).toBe(0);
  });

  it("the integration request passes the fake's strict check of typeSpecificProperties (the relaxation is gone)", async () => {
    const s = setupCtx({ events: ["created"] });
    await onAlert.setup!(s);
    const post = h.fake.received.findLast((r) => r.method === "POST" && r.path.endsWith("/v1/integrations"))!;
    expect(post.status).toBe(200);
    expect(post.body).toMatchObject({
      type: "Webhook",
      typeSpecificProperties: { url: s.intake.url, headers: { [TOKEN_HEADER]: s.intake.token }, addAlertDescription: true },
    });
    // The same endpoint refuses what the vendor file refuses: a mistyped documented key, and a plain value under
    // a key the file does not document (those must be objects).
    const send = (typeSpecificProperties: Record<string, unknown>) =>
      fetch(`${h.fake.url}/jsm/ops/api/${h.site.cloudId}/v1/integrations`, {
        method: "POST",
        headers: { authorization: `Bearer ${h.tokenFor()}`, "content-type": "application/json" },
        body: JSON.stringify({ name: `strict ${Object.keys(typeSpecificProperties).join()}`, type: "Webhook", typeSpecificProperties }),
      });
    for (const bad of [
      { url: s.intake.url, headers: "x-conveyor-token: t" },
      { url: s.intake.url, addAlertDetails: "yes" },
      { url: "not a url" },
      { url: s.intake.url, sendViaConveyor: true },
    ]) {
      const res = await send(bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(JSON.stringify(await res.json())).toMatch(/typeSpecificProperties/);
    }
    expect((await send({ headers: {} })).status).toBe(422); // a Webhook integration needs its URL
    await onAlert.teardown!(s);
  });

  it("two triggers get two integrations; each teardown removes only its own", async () => {
    const a = setupCtx({ events: ["created"] }, "n_a");
    const b = setupCtx({ events: ["created"] }, "n_b");
    await onAlert.setup!(a);
    await onAlert.setup!(b);
    expect(h.site.integrations.size).toBe(2);
    await onAlert.teardown!(a);
    expect([...h.site.integrations.values()].map((i) => i.name)).toEqual(["Conveyor aut_1 n_b"]);
    await onAlert.teardown!(b);
  });

  it("delivers created/acknowledged/closed/deleted and emits action + alert", async () => {
    const s = setupCtx({ events: ["created", "acknowledged", "closed", "deleted"] });
    await onAlert.setup!(s);
    const alert = await newAlert({ message: "CPU hot", alias: "cpu", priority: "P2", tags: ["prod"] });
    await drive(updateAlert, contextFor(updateAlert, h, { alert: alert.id, acknowledge: true, close: true }), h, { realSleepMs: 20 });
    await deleteAlert.run(contextFor(deleteAlert, h, { alert: alert.id }));
    await vi.waitFor(() => expect(rx.deliveries).toHaveLength(4), { timeout: 10_000 }); // the delete is processed asynchronously
    const events = await eventsFor(s);
    expect(events.map((e) => e.data.action)).toEqual(["created", "acknowledged", "closed", "deleted"]);
    expect(events[0]!.data.alert).toMatchObject({ alertId: alert.id, message: "CPU hot", alias: "cpu", priority: "P2", tags: ["prod"] });
    expect(new Set(events.map((e) => e.dedupeKey)).size).toBe(4);
    await onAlert.teardown!(s);
  });

  it("only selected events are forwarded (and matched)", async () => {
    const s = setupCtx({ events: ["closed"] });
    await onAlert.setup!(s);
    const alert = await newAlert({ message: "only close" });
    await drive(updateAlert, contextFor(updateAlert, h, { alert: alert.id, close: true }), h, { realSleepMs: 20 });
    const events = await eventsFor(s);
    expect(events.map((e) => e.data.action)).toEqual(["closed"]);
    // A delivery for an unselected action (e.g. after a config change in flight) is a non-match.
    const stray = { ...rx.deliveries[0]!, body: { action: "Create", alert: { alertId: "x" } } };
    expect(await onAlert.match(stray, matchCtx(s))).toEqual([]);
    await onAlert.teardown!(s);
  });

  it("with a team only alerts routed to that team arrive", async () => {
    const s = setupCtx({ team: h.teamId, events: ["created"] });
    await onAlert.setup!(s);
    expect(h.site.integrations.get((await s.registrations.get(`ops-alert-webhook:aut_1:n_alert`))!.upstreamId)!.teamId).toBe(h.teamId);
    await newAlert({ message: "for red", responders: [{ id: h.teamId, type: "team" }] });
    await newAlert({ message: "for blue", responders: [{ id: h.site.teams[1]!.teamId, type: "team" }] });
    const events = await eventsFor(s);
    expect(events.map((e) => e.data.alert.message)).toEqual(["for red"]);
    await onAlert.teardown!(s);
  });

  it("maintain registers the integration again when it was removed in the operations module", async () => {
    const s = setupCtx({ events: ["created"] });
    await onAlert.setup!(s);
    const before = (await s.registrations.get("ops-alert-webhook:aut_1:n_alert"))!.upstreamId;
    await onAlert.maintain!(s);
    expect((await s.registrations.get("ops-alert-webhook:aut_1:n_alert"))!.upstreamId).toBe(before); // still there: untouched
    h.site.integrations.clear();
    await onAlert.maintain!(s);
    const after = (await s.registrations.get("ops-alert-webhook:aut_1:n_alert"))!.upstreamId;
    expect(after).not.toBe(before);
    expect(h.site.integrations.get(after)!.actions.map((a) => a.type)).toEqual(["create"]);
    await onAlert.teardown!(s);
    expect(h.site.integrations.size).toBe(0);
  });

  it("rejects deliveries without the token header and malformed payloads", async () => {
    const s = setupCtx({ events: ["created"] });
    const d = { method: "POST", headers: {}, query: {}, rawBody: Buffer.from("{}"), body: { action: "Create", alert: { alertId: "a" } } };
    expect(() => onAlert.verify!(d, matchCtx(s))).toThrow(DeliveryUnauthorizedError);
    expect(() => onAlert.verify!({ ...d, headers: { [TOKEN_HEADER]: "wrong-token-x" } }, matchCtx(s))).toThrow(DeliveryUnauthorizedError);
    expect(() => onAlert.match({ ...d, body: { hello: 1 } }, matchCtx(s))).toThrow(DeliveryRejectedError);
  });

  it("replaces a leftover integration with the same name (interrupted teardown)", async () => {
    const s = setupCtx({ events: ["created"] });
    await onAlert.setup!(s);
    const again = setupCtx({ events: ["created", "deleted"] }); // fresh registration store, same node
    await onAlert.setup!(again);
    expect(h.site.integrations.size).toBe(1);
    expect([...h.site.integrations.values()][0]!.actions.map((a) => a.type)).toEqual(["create", "delete"]);
  });

  it("needs ops features: validate explains, setup fails before calling the API", async () => {
    const conn = h.connection({ config: { enableOpsFeatures: false } });
    expect(onAlert.validate!(onAlertConfig.parse({}), { connection: conn })[0]!.message).toMatch(/Enable ops features/);
    await expect(onAlert.setup!(setupCtx({}, "n_x", conn))).rejects.toThrow(/Enable ops features/);
    expect(h.site.integrations.size).toBe(0);
  });

  it("surfaces a plan without outgoing webhooks", async () => {
    h.site.plan.outgoingWebhooks = false;
    try {
      await expect(onAlert.setup!(setupCtx({}))).rejects.toThrow(/Premium or Enterprise/);
    } finally {
      h.site.plan.outgoingWebhooks = true;
    }
  });
});
