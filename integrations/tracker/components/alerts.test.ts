import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { ConnectionAuthError, NonRetryableError } from "../../core/errors";
import { BASE_SCOPES } from "../connection";
import { POLL_WINDOW_MS } from "../ops-schemas";
import { JSM_DEMO } from "../testing/fake-atlassian/jsm/wiring";
import { DEMO } from "../testing/fake-atlassian/seed";
import { contextFor, drive, startJsmOpsFake, type JsmOpsFake } from "../testing/jsm-ops-harness";
import { createAlert } from "./create-alert";
import { deleteAlert } from "./delete-alert";
import { getAlert } from "./get-alert";
import { updateAlert } from "./update-alert";

let h: JsmOpsFake;
beforeAll(async () => {
  h = await startJsmOpsFake();
});
afterAll(() => h?.close());
beforeEach(() => {
  h.site.processing = { delayMs: 0 };
  h.site.alerts.clear();
  h.fake.received.length = 0;
});

async function created(config: Record<string, unknown>) {
  const ctx = contextFor(createAlert, h, config);
  const { result } = await drive(createAlert, ctx, h, { realSleepMs: 30 });
  return result as { type: string; data: Record<string, unknown> };
}

describe("tracker.createAlert", () => {
  it("creates the alert, waits for the request and emits the full alert", async () => {
    const out = await created({
      message: "HighLatency on a:9100",
      description: "p99 > 1s",
      alias: "am:HighLatency",
      priority: "P1",
      tags: ["prod"],
      responders: [{ id: h.teamId, type: "team" }],
      extraProperties: { runbook: "https://runbooks/x", threshold: 1 },
      note: "opened by conveyor",
    });
    expect(out.type).toBe("tracker.alert.created");
    expect(out.data).toMatchObject({
      message: "HighLatency on a:9100",
      alias: "am:HighLatency",
      priority: "P1",
      status: "open",
      count: 1,
      tags: ["prod"],
      acknowledged: false,
    });
    expect(out.data.extraProperties).toEqual({ runbook: "https://runbooks/x", threshold: "1" });
    expect(typeof out.data.lastOccuredAt).toBe("string");
    const post = h.fake.received.find((r) => r.method === "POST" && r.path.endsWith("/v1/alerts"));
    expect(post?.body).toMatchObject({ message: "HighLatency on a:9100", priority: "P1", responders: [{ id: h.teamId, type: "team" }] });
    expect(post?.body).not.toHaveProperty("visibleTo"); // empty lists are not sent
  });

  it("de-duplicates by alias: a second create of an open alert increments its count", async () => {
    const first = await created({ message: "Disk full", alias: "disk-a" });
    const second = await created({ message: "Disk full again", alias: "disk-a" });
    expect(second.data.id).toBe(first.data.id);
    expect(second.data.count).toBe(2);
    expect(h.site.alerts.size).toBe(1);
  });

  it("keeps waiting (without a worker) while the request is slow, then succeeds", async () => {
    // Held in the queue until the test releases it: timing-independent on a loaded machine.
    h.site.processing = "never";
    const ctx = contextFor(createAlert, h, { message: "slow one" });
    const first = (await createAlert.run(ctx)) as { kind: string; state: unknown };
    expect(first).toMatchObject({ kind: "wait", state: { requestId: expect.any(String), polls: 1 } });
    h.site.processAll();
    const { result } = await drive(createAlert, Object.assign(ctx, { state: first.state }), h, { realSleepMs: 20 });
    expect((result as { data: { message: string } }).data.message).toBe("slow one");
  });

  it("fails with the request id when the request is never processed inside the window; Get Alert then reads it", async () => {
    h.site.processing = "never";
    const ctx = contextFor(createAlert, h, { message: "lost in the queue" });
    const err = await drive(createAlert, ctx, h).catch((e) => e);
    expect(err).toBeInstanceOf(NonRetryableError);
    const requestId = /request id ([0-9a-f-]+)/.exec(err.message)?.[1];
    expect(requestId).toBeTruthy();
    expect(err.message).toContain("Get Alert");
    // The window is measured on the real clock plus the fake offset, so real test time counts towards it.
    expect(h.clock.offsetMs).toBeGreaterThanOrEqual(POLL_WINDOW_MS - 1000);

    h.site.processAll(); // the queue catches up later
    const got = await getAlert.run(contextFor(getAlert, h, { alert: requestId }));
    expect(got).toMatchObject({ type: "tracker.alert.fetched", data: { message: "lost in the queue" } });
  });

  it("a transient failure of the first look waits instead of failing, so the alert is never created twice", async () => {
    h.site.processing = { delayMs: 50 };
    h.atlassian.fail({ path: "/alerts/requests/", status: 429, retryAfter: 3 });
    const ctx = contextFor(createAlert, h, { message: "rate limited look" });
    const first = await createAlert.run(ctx);
    expect(first).toMatchObject({ kind: "wait", delayMs: 3000, state: { requestId: expect.any(String) } });
    const { result } = await drive(createAlert, Object.assign(ctx, { state: (first as { state: unknown }).state }), h, { realSleepMs: 60 });
    expect(result).toMatchObject({ data: { message: "rate limited look" } });
    expect(h.fake.received.filter((r) => r.method === "POST" && r.path.endsWith("/v1/alerts"))).toHaveLength(1);
  });

  it("a 5xx on a later look is retryable and the retried step (same state) goes on polling the same request", async () => {
    h.site.processing = "never";
    const ctx = contextFor(createAlert, h, { message: "flaky look" });
    const first = (await createAlert.run(ctx)) as { kind: string; state: unknown };
    expect(first.kind).toBe("wait");
    h.atlassian.fail({ path: "/alerts/requests/", status: 503 });
    Object.assign(ctx, { state: first.state });
    const err = await createAlert.run(ctx).catch((e) => e);
    expect(err.retryable).toBe(true);
    h.site.processAll();
    const { result } = await drive(createAlert, ctx, h, { realSleepMs: 60 }); // the engine's retry keeps the state
    expect(result).toMatchObject({ data: { message: "flaky look" } });
    expect(h.fake.received.filter((r) => r.method === "POST" && r.path.endsWith("/v1/alerts"))).toHaveLength(1);
  });

  it("is rejected by the API contract for a message over 130 characters (schema refuses it first)", () => {
    expect(() => contextFor(createAlert, h, { message: "x".repeat(131) })).toThrow();
  });

  it("accepts escalation and schedule responders and sends them as given", async () => {
    const responders = [
      { id: JSM_DEMO.escalations.red, type: "escalation" },
      { id: JSM_DEMO.schedules.blue, type: "schedule" },
      { id: DEMO.users.mia, type: "user" },
    ];
    const ctx = contextFor(createAlert, h, { message: "route via escalation", responders });
    expect(createAlert.validate!(ctx.config, { connection: h.connection() })).toEqual([]);
    await drive(createAlert, ctx, h, { realSleepMs: 20 });
    const post = h.fake.received.find((r) => r.method === "POST" && r.path.endsWith("/v1/alerts"))!;
    expect(post.status).toBe(200); // the vendor file's Responder.type allows all four
    expect(post.body).toMatchObject({ responders });
  });

  it("accepts escalation and schedule visible-to rows: sent as their owner teams (the API takes only team/user there)", async () => {
    const visibleTo = [
      { id: JSM_DEMO.escalations.red, type: "escalation" },
      { id: JSM_DEMO.schedules.red, type: "schedule" }, // same owner: one row
      { id: JSM_DEMO.schedules.blue, type: "schedule" },
      { id: DEMO.users.mia, type: "user" },
    ];
    const ctx = contextFor(createAlert, h, { message: "visible to on-call teams", visibleTo });
    expect(createAlert.validate!(ctx.config, { connection: h.connection() })).toEqual([]);
    await drive(createAlert, ctx, h, { realSleepMs: 20 });
    const post = h.fake.received.find((r) => r.method === "POST" && r.path.endsWith("/v1/alerts"))!;
    expect(post.status).toBe(200);
    expect(post.body).toMatchObject({
      visibleTo: [
        { id: JSM_DEMO.teams.red, type: "team" },
        { id: JSM_DEMO.teams.blue, type: "team" },
        { id: DEMO.users.mia, type: "user" },
      ],
    });
    expect([...h.site.alerts.values()][0]!.visibleTo).toHaveLength(3);
  });

  it("fails clearly for a visible-to escalation or schedule that does not exist, before creating anything", async () => {
    for (const type of ["escalation", "schedule"]) {
      const ctx = contextFor(createAlert, h, { message: "m", visibleTo: [{ id: "no-such-id", type }] });
      await expect(createAlert.run(ctx)).rejects.toThrow(new RegExp(`Visible to: ${type} no-such-id does not exist`));
    }
    expect(h.fake.received.filter((r) => r.method === "POST")).toHaveLength(0);
  });

  it("treats an unset (null) priority like no priority: the operations default applies", async () => {
    const out = await created({ message: "no priority", priority: null });
    expect(out.data.priority).toBe("P3");
    expect(h.fake.received.find((r) => r.method === "POST")?.body).not.toHaveProperty("priority");
  });
});

describe("tracker.getAlert", () => {
  it("emits the alert by id and fails clearly for an unknown id", async () => {
    const a = await created({ message: "to read" });
    await expect(getAlert.run(contextFor(getAlert, h, { alert: a.data.id }))).resolves.toMatchObject({ data: { id: a.data.id, tinyId: a.data.tinyId } });
    await expect(getAlert.run(contextFor(getAlert, h, { alert: "nope" }))).rejects.toThrow(/No alert/);
  });

  it("emits the alert by its alias", async () => {
    const a = await created({ message: "by alias", alias: "am-123-2026-11-25T09:52:18Z" });
    await expect(getAlert.run(contextFor(getAlert, h, { alert: "am-123-2026-11-25T09:52:18Z" }))).resolves.toMatchObject({ data: { id: a.data.id } });
  });
});

describe("tracker.updateAlert", () => {
  it("sends only the enabled sections, acknowledges, and emits the freshly fetched alert", async () => {
    const a = await created({ message: "to update", priority: "P3" });
    h.fake.received.length = 0;
    h.site.processing = { delayMs: 60 };
    const ctx = contextFor(updateAlert, h, { alert: a.data.id, priority: "P1", newNote: "looking", acknowledge: true });
    const { result } = await drive(updateAlert, ctx, h, { realSleepMs: 40 });
    expect(result).toMatchObject({ type: "tracker.alert.updated", data: { priority: "P1", acknowledged: true, status: "acked" } });
    const paths = h.fake.received.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path.split("/v1")[1]}`);
    expect(paths).toEqual([`PATCH /alerts/${a.data.id}/priority`, `POST /alerts/${a.data.id}/notes`, `POST /alerts/${a.data.id}/acknowledge`]);
    expect(h.site.notes.get(String(a.data.id))?.map((n) => n.note)).toEqual(["looking"]);
  });

  it("updates message/description/assignment/an existing note and closes", async () => {
    const a = await created({ message: "before", note: "first note" });
    const noteId = h.site.notes.get(String(a.data.id))![0]!.id;
    const ctx = contextFor(updateAlert, h, {
      alert: a.data.id,
      message: "after",
      description: "more",
      assignment: "acc-42",
      updateNote: { noteId, note: "edited" },
      close: true,
    });
    const { result } = await drive(updateAlert, ctx, h, { realSleepMs: 20 });
    expect(result).toMatchObject({ data: { message: "after", description: "more", owner: "acc-42", status: "closed" } });
    expect(h.site.notes.get(String(a.data.id))![0]!.note).toBe("edited");
  });

  it("accepts an unset Priority section: no priority request is sent, the other sections are", async () => {
    const a = await created({ message: "keep my priority", priority: "P2" });
    h.fake.received.length = 0;
    const ctx = contextFor(updateAlert, h, { alert: a.data.id, priority: null, message: "renamed" });
    expect(updateAlert.validate!(ctx.config, { connection: h.connection() })).toEqual([]);
    const { result } = await drive(updateAlert, ctx, h, { realSleepMs: 20 });
    expect(result).toMatchObject({ data: { message: "renamed", priority: "P2" } });
    expect(h.fake.received.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path.split("/v1")[1]}`)).toEqual([
      `PATCH /alerts/${a.data.id}/message`,
    ]);
  });

  it("fails clearly for an alert that does not exist", async () => {
    await expect(updateAlert.run(contextFor(updateAlert, h, { alert: "missing", acknowledge: true }))).rejects.toThrow(/No alert has the id or alias missing/);
  });

  it("closes the alert by the alias Create Alert gave it: the resolved notification's run reaches the alert the firing one created", async () => {
    const alias = "am-bafaf1f2a64a6f67-2026-11-25T09:52:18.86Z";
    const a = await created({ message: "DiskFull on db-1", alias });
    h.fake.received.length = 0;
    const { result } = await drive(updateAlert, contextFor(updateAlert, h, { alert: alias, newNote: "resolved in Alertmanager", close: true }), h, {
      realSleepMs: 20,
    });
    expect(result).toMatchObject({ type: "tracker.alert.updated", data: { id: a.data.id, alias, status: "closed" } });
    expect(h.fake.received.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path.split("/v1")[1]}`)).toEqual([
      `POST /alerts/${a.data.id}/notes`,
      `POST /alerts/${a.data.id}/close`,
    ]);
  });
});

describe("tracker.deleteAlert", () => {
  it("emits alertId, deleted, requestId and result; the alert goes once processed", async () => {
    const a = await created({ message: "to delete" });
    const out = (await deleteAlert.run(contextFor(deleteAlert, h, { alert: a.data.id }))) as { type: string; data: Record<string, unknown> };
    expect(out.type).toBe("tracker.alert.deleted");
    expect(out.data).toEqual({ alertId: a.data.id, deleted: true, requestId: expect.any(String), result: "Request will be processed" });
    await vi.waitFor(() => expect(h.site.alerts.has(String(a.data.id))).toBe(false), { timeout: 10_000 });
    expect(h.site.requestStatus(String(out.data.requestId))).toMatchObject({ action: "Delete", isSuccess: true });
  });
});

describe("ops-features gate", () => {
  const units = [createAlert, getAlert, updateAlert, deleteAlert];
  it("explains at save time why and how to fix when enableOpsFeatures is off or no cloud id is synced", () => {
    for (const unit of units) {
      const off = unit.validate!({} as never, { connection: h.connection({ config: { enableOpsFeatures: false } }) });
      expect(off[0]?.message).toMatch(/Enable ops features/);
      expect(off[0]?.message).toMatch(/Settings/);
      const noSite = unit.validate!({} as never, { connection: h.connection({ state: { cloudId: undefined } }) });
      expect(noSite[0]?.message).toMatch(/cloud id/);
    }
  });

  it("a token granted before ops features were turned on is refused by the ops API; the message says to reconnect", async () => {
    const token = h.atlassian.state.issueTokens(DEMO.clientId, DEMO.users.mia, [...BASE_SCOPES]).access_token;
    // The refresh works (same grant, same scopes); the call is refused again.
    const conn = { ...h.connection(), oauth: { getAccessToken: async () => token, refresh: async () => true } };
    const err = await getAlert.run(contextFor(getAlert, h, { alert: "x" }, conn)).catch((e) => e);
    expect(err.status).toBe(401);
    expect(err.message).toMatch(/scope does not match.*reconnect/);
  });

  it("a revoked grant (401, refresh refused) fails the step saying the connection needs reconnect, as Jira steps do", async () => {
    const conn = { ...h.connection(), oauth: { getAccessToken: async () => "revoked-token", refresh: async () => false } };
    const err = await createAlert.run(contextFor(createAlert, h, { message: "DiskFull on db-1" }, conn)).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionAuthError);
    expect(err.message).toBe("Atlassian refused to refresh the tracker connection's token: the connection needs reconnect.");
  });

  it("fails at run time without calling the API", async () => {
    h.fake.received.length = 0;
    const ctx = contextFor(getAlert, h, { alert: "x" }, h.connection({ config: { enableOpsFeatures: false } }));
    await expect(getAlert.run(ctx)).rejects.toBeInstanceOf(NonRetryableError);
    expect(h.fake.received).toHaveLength(0);
  });
});
