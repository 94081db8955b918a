import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { NonRetryableError } from "../../core/errors";
import { createHttpClient } from "../../core/http";
import { heartbeat } from "../resources-ops";
import { contextFor, startJsmOpsFake, type JsmOpsFake } from "../testing/jsm-ops-harness";
import { createHeartbeat } from "./create-heartbeat";
import { deleteHeartbeat } from "./delete-heartbeat";
import { pingHeartbeat } from "./ping-heartbeat";
import { updateHeartbeat } from "./update-heartbeat";

let h: JsmOpsFake;
beforeAll(async () => {
  h = await startJsmOpsFake();
});
afterAll(() => h?.close());
beforeEach(() => {
  h.site.heartbeats.clear();
  h.site.plan.heartbeats = true;
  h.fake.received.length = 0;
});

const create = (config: Record<string, unknown>) =>
  createHeartbeat.run(contextFor(createHeartbeat, h, { team: h.teamId, ...config })) as Promise<{ type: string; data: Record<string, unknown> }>;

describe("tracker.createHeartbeat", () => {
  it("creates an enabled heartbeat by default, status Pending, unit in lower case", async () => {
    const out = await create({ name: "dns", interval: 5, intervalUnit: "hours", alertTags: ["critical"], alertPriority: "P2", description: "checks dns" });
    expect(out.type).toBe("tracker.heartbeat.created");
    expect(out.data).toEqual({
      name: "dns",
      description: "checks dns",
      interval: 5,
      intervalUnit: "hours",
      enabled: true,
      status: "Pending",
      ownerTeamId: h.teamId,
      alertMessage: "dns is expired",
      alertTags: ["critical"],
      alertPriority: "P2",
    });
    const post = h.fake.received.find((r) => r.method === "POST");
    expect(post?.body).toMatchObject({ name: "dns", interval: 5, intervalUnit: "hours", enabled: true });
  });

  it("refuses a name already used in the team, but allows it in another team", async () => {
    await create({ name: "dns", interval: 1 });
    await expect(create({ name: "dns", interval: 1 })).rejects.toThrow(/already exists in this team/);
    const other = h.site.teams[1]!.teamId;
    await expect(create({ team: other, name: "dns", interval: 1 })).resolves.toMatchObject({ data: { ownerTeamId: other } });
  });

  it("rejects an interval below 1 (schema), and the fake's contract check rejects it too", async () => {
    expect(() => contextFor(createHeartbeat, h, { team: h.teamId, name: "x", interval: 0 })).toThrow();
    const res = await fetch(`${h.fake.url}/jsm/ops/api/${h.site.cloudId}/v1/teams/${h.teamId}/heartbeats`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.tokenFor()}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "x", interval: 0, intervalUnit: "minutes" }),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/interval must be >= 1/);
  });

  it("surfaces a plan without heartbeats (402) as a non-retryable failure", async () => {
    h.site.plan.heartbeats = false;
    const err = await create({ name: "dns", interval: 1 }).catch((e) => e);
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/402/);
  });
});

describe("retried heartbeat steps", () => {
  it("a retried create finds its own heartbeat and emits it; a retried delete of a gone heartbeat succeeds", async () => {
    const ctx = contextFor(createHeartbeat, h, { team: h.teamId, name: "retry-hb", interval: 3 });
    await createHeartbeat.run(ctx);
    Object.assign(ctx.run, { attempt: 2 });
    await expect(createHeartbeat.run(ctx)).resolves.toMatchObject({ data: { name: "retry-hb", interval: 3 } });
    const del = contextFor(deleteHeartbeat, h, { team: h.teamId, heartbeat: "retry-hb" });
    await deleteHeartbeat.run(del);
    Object.assign(del.run, { attempt: 2 });
    await expect(deleteHeartbeat.run(del)).resolves.toMatchObject({ data: { deleted: true, name: "retry-hb" } });
  });
});

describe("tracker.updateHeartbeat", () => {
  it("sends only the toggled fields (and the unchanged name) and emits the heartbeat", async () => {
    await create({ name: "dns", interval: 5, description: "keep me" });
    h.fake.received.length = 0;
    const out = await updateHeartbeat.run(contextFor(updateHeartbeat, h, { team: h.teamId, heartbeat: "dns", interval: 10, enabled: false }));
    expect(out).toMatchObject({ type: "tracker.heartbeat.updated", data: { interval: 10, enabled: false, status: "Off", description: "keep me" } });
    const patch = h.fake.received.find((r) => r.method === "PATCH");
    expect(patch?.query).toEqual({ name: "dns" });
    expect(patch?.body).toEqual({ name: "dns", interval: 10, enabled: false });
  });

  it("needs at least one toggled field: refused at save time and at run time", async () => {
    const ctx = contextFor(updateHeartbeat, h, { team: h.teamId, heartbeat: "dns" });
    expect(updateHeartbeat.validate!(ctx.config, { connection: h.connection() })).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/at least one/) }),
    ]);
    await expect(updateHeartbeat.run(ctx)).rejects.toBeInstanceOf(NonRetryableError);
    expect(h.fake.received).toHaveLength(0);
  });

  it("fails clearly for an unknown heartbeat", async () => {
    await expect(updateHeartbeat.run(contextFor(updateHeartbeat, h, { team: h.teamId, heartbeat: "ghost", interval: 2 }))).rejects.toThrow(/does not exist/);
  });
});

describe("tracker.deleteHeartbeat", () => {
  it("deletes by name and emits deleted + name; a second delete fails clearly", async () => {
    await create({ name: "dns", interval: 1 });
    const ctx = contextFor(deleteHeartbeat, h, { team: h.teamId, heartbeat: "dns" });
    await expect(deleteHeartbeat.run(ctx)).resolves.toMatchObject({ type: "tracker.heartbeat.deleted", data: { deleted: true, name: "dns" } });
    expect(h.site.heartbeats.get(h.teamId)?.has("dns")).toBe(false);
    await expect(deleteHeartbeat.run(ctx)).rejects.toThrow(/does not exist/);
  });
});

describe("tracker.pingHeartbeat", () => {
  it("pings an existing heartbeat, which becomes Responsive", async () => {
    await create({ name: "dns", interval: 1 });
    const out = await pingHeartbeat.run(contextFor(pingHeartbeat, h, { team: h.teamId, heartbeat: "dns" }));
    expect(out).toMatchObject({ type: "tracker.heartbeat.pinged", data: { message: "PONG - Heartbeat received" } });
    expect(h.site.heartbeats.get(h.teamId)!.get("dns")!.status).toBe("Responsive");
  });

  it("fails when the heartbeat does not exist, without pinging (the API would accept the ping)", async () => {
    await expect(pingHeartbeat.run(contextFor(pingHeartbeat, h, { team: h.teamId, heartbeat: "ghost" }))).rejects.toThrow(/does not exist/);
    expect(h.fake.received.some((r) => r.path.endsWith("/ping"))).toBe(false);
  });
});

describe("heartbeat teams by name", () => {
  it("every heartbeat component takes the team's name (any case) and addresses the API by its id", async () => {
    const out = await create({ team: "Red Team", name: "by-name", interval: 2 });
    expect(out.data.ownerTeamId).toBe(h.teamId);
    await expect(updateHeartbeat.run(contextFor(updateHeartbeat, h, { team: "red team", heartbeat: "by-name", interval: 4 }))).resolves.toMatchObject({
      data: { interval: 4 },
    });
    await expect(pingHeartbeat.run(contextFor(pingHeartbeat, h, { team: "Red Team", heartbeat: "by-name" }))).resolves.toMatchObject({
      data: { message: expect.any(String) },
    });
    await expect(deleteHeartbeat.run(contextFor(deleteHeartbeat, h, { team: "Red Team", heartbeat: "by-name" }))).resolves.toMatchObject({
      data: { deleted: true },
    });
    const teamPaths = h.fake.received.filter((r) => r.path.includes("/teams/")).map((r) => r.path);
    expect(teamPaths.length).toBeGreaterThan(0);
    expect(teamPaths.every((p) => p.includes(`/teams/${h.teamId}/heartbeats`))).toBe(true);
    expect(h.fake.received.every((r) => r.status < 400)).toBe(true); // no 403 for a name used as an id
  });

  it("fails clearly, before any heartbeat call, when no team has that name", async () => {
    const err = await create({ team: "Green Team", name: "x", interval: 1 }).catch((e) => e);
    expect(err).toBeInstanceOf(NonRetryableError);
    expect(err.message).toMatch(/No operations team "Green Team".*Red Team, Blue Team/);
    expect(h.fake.received.some((r) => r.path.includes("/heartbeats"))).toBe(false);
  });

  it("the heartbeat picker lists the heartbeats of a team given by name", async () => {
    await create({ name: "listed", interval: 1 });
    const res = await heartbeat({ connection: h.connection(), http: createHttpClient(), config: { team: "Red Team" } });
    expect(res.options.map((o) => o.value)).toEqual(["listed"]);
  });
});

describe("ops-features gate (heartbeats)", () => {
  it("every heartbeat component explains the missing ops features at save time", () => {
    for (const unit of [createHeartbeat, updateHeartbeat, deleteHeartbeat, pingHeartbeat]) {
      const issues = unit.validate!({ interval: 1 } as never, { connection: h.connection({ config: { enableOpsFeatures: false } }) });
      expect(issues.some((i) => /Enable ops features/.test(i.message))).toBe(true);
    }
  });
});
