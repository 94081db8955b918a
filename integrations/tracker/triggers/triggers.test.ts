import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { IncomingDelivery, TriggerMatchContext } from "../../core/define";
import { DeliveryRejectedError, DeliveryUnauthorizedError } from "../../core/errors";
import { SHARED_KEY, setupShared } from "../shared-webhook";
import { JSM_DEMO } from "../testing/fake-atlassian/jsm/wiring";
import { signJwt } from "../testing/fake-atlassian/webhook-delivery";
import { setupContext, startJiraEnv, startReceiver, type JiraTestEnv } from "../testing/jira-harness";
import { onIssue } from "./on-issue";
import { onIncident, onIncidentConfig } from "./on-incident";
import { onIssueComment } from "./on-issue-comment";

let env: JiraTestEnv;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
type Store = Parameters<typeof setupContext>[1];
let store: Store;

beforeAll(async () => {
  env = await startJiraEnv();
  receiver = await startReceiver();
});
afterAll(async () => {
  await env?.fake.stop();
  await receiver?.close();
});
beforeEach(() => {
  store = new Map();
  receiver.deliveries.length = 0;
  const site = env.fake.state.site(env.fake.demo.cloudId)!;
  site.webhooks.clear();
});

const site = () => env.fake.state.site(env.fake.demo.cloudId)!;
const U = () => env.fake.demo.users;
const adf = (text: string) => ({ type: "doc", version: 1, content: [{ type: "paragraph", content: [{ type: "text", text }] }] });
const matchCtx = <C>(config: C): TriggerMatchContext<C> => ({
  config,
  connection: env.connection,
  intake: { id: "int_shared", url: receiver.url, token: "t" },
  now: () => new Date(),
});

function newIssue(project: "OPS" | "TEAM" = "OPS") {
  const p = site().project(project)!;
  return site().createIssue(
    { projectId: p.id, issueTypeId: p.issueTypeIds[0]!, summary: "Checkout errors", description: null, reporterId: U().ravi, labels: [] },
    U().ravi,
  );
}
async function settled() {
  await env.fake.webhooks.settled();
}
const issueNode = (nodeId: string, config: { project: string; events: string[] }, automationId = "aut_1") =>
  setupContext(env, store, { automationId, nodeId, triggerKey: "tracker.onIssue", config: onIssue.config.parse(config) }, receiver.url);
const commentNode = (nodeId: string, config: { project: string; events: string[]; contentFilter?: string }, automationId = "aut_1") =>
  setupContext(env, store, { automationId, nodeId, triggerKey: "tracker.onIssueComment", config: onIssueComment.config.parse(config) }, receiver.url);

describe("shared Jira webhook registration", () => {
  it("registers one webhook set for two triggers, merging events and projects, and removes it after the last", async () => {
    const a = issueNode("n_issue", { project: "OPS", events: ["created", "updated"] });
    const b = commentNode("n_comment", { project: "TEAM", events: ["created"] }, "aut_2");
    const first = await onIssue.setup!(a);
    const second = await onIssueComment.setup!(b);
    const live = [...site().webhooks.values()];
    expect(live.every((w) => w.url === receiver.url)).toBe(true);
    expect(live.map((w) => ({ events: w.events, jqlFilter: w.jqlFilter }))).toEqual(
      expect.arrayContaining([
        { events: ["jira:issue_created", "jira:issue_updated"], jqlFilter: 'project IN ("OPS")' },
        { events: ["comment_created"], jqlFilter: 'project IN ("TEAM")' },
      ]),
    );
    expect(live).toHaveLength(2);
    expect(second!.registration!.upstreamId).not.toBe(first!.registration!.upstreamId);
    expect(store.get(SHARED_KEY)!.users.size).toBe(2);

    await onIssue.teardown!(a);
    expect([...site().webhooks.values()].map((w) => w.events)).toEqual([["comment_created"]]);
    await onIssueComment.teardown!(b);
    expect(site().webhooks.size).toBe(0);
    expect(store.has(SHARED_KEY)).toBe(false);
  });

  it("does not re-register when the existing webhooks already cover a new trigger", async () => {
    await onIssue.setup!(issueNode("n1", { project: "OPS", events: ["created", "updated", "deleted"] }));
    const ids = [...site().webhooks.keys()];
    await onIssue.setup!(issueNode("n2", { project: "OPS", events: ["updated"] }, "aut_2"));
    expect([...site().webhooks.keys()]).toEqual(ids);
  });

  it("refreshes the webhooks before their 30-day expiry and re-registers webhooks Jira dropped", async () => {
    const ctx = issueNode("n1", { project: "OPS", events: ["created"] });
    await onIssue.setup!(ctx);
    const [hook] = [...site().webhooks.values()];
    const firstExpiry = hook!.expiresAt;
    expect(firstExpiry - Date.now()).toBeGreaterThan(29 * 86_400_000);

    await onIssue.maintain!(ctx); // plenty of time left: nothing to do
    expect(env.fake.state.requests.some((r) => r.path.endsWith("/webhook/refresh"))).toBe(false);

    env.fake.state.advance(25 * 86_400_000);
    Object.assign(ctx, { now: () => env.fake.state.now() });
    try {
      await onIssue.maintain!(ctx);
      expect(env.fake.state.requests.some((r) => r.path.endsWith("/webhook/refresh"))).toBe(true);
      expect(hook!.expiresAt).toBeGreaterThan(firstExpiry);
      expect(Date.parse(store.get(SHARED_KEY)!.record.expiresAt!)).toBe(hook!.expiresAt);

      site().webhooks.clear(); // e.g. expired while the worker was down
      await onIssue.maintain!(ctx);
      expect(site().webhooks.size).toBe(1);
      expect(store.get(SHARED_KEY)!.record.upstreamId).toBe(String([...site().webhooks.keys()][0]));

      // The app's public URL changed: maintenance moves the registration to the new intake URL.
      const moved = { ...ctx, sharedIntake: { ...ctx.sharedIntake!, url: receiver.url.replace("/hooks/", "/hooks-v2/") } };
      await onIssue.maintain!(moved);
      expect([...site().webhooks.values()].map((w) => w.url)).toEqual([moved.sharedIntake.url]);
    } finally {
      env.fake.state.clockOffsetMs = 0;
    }
  });

  it("refuses to set up without the connection's shared intake", async () => {
    const ctx = { ...issueNode("n1", { project: "OPS", events: ["created"] }), sharedIntake: undefined };
    await expect(onIssue.setup!(ctx)).rejects.toThrow(/shared webhook intake/);
  });
});

describe("deliveries", () => {
  let issueCtx: ReturnType<typeof issueNode>;
  beforeEach(async () => {
    issueCtx = issueNode("n_issue", { project: "OPS", events: ["created", "updated", "deleted"] });
    await onIssue.setup!(issueCtx);
    await onIssueComment.setup!(commentNode("n_comment", { project: "OPS", events: ["created", "updated", "deleted"] }));
  });
  afterEach(() => settled());

  async function deliveriesFor(event: string): Promise<IncomingDelivery[]> {
    await settled();
    return receiver.deliveries.filter((d) => (d.body as { webhookEvent: string }).webhookEvent === event);
  }

  it("authenticates Jira's signed deliveries and rejects forged ones", async () => {
    newIssue();
    const [d] = await deliveriesFor("jira:issue_created");
    expect(d).toBeDefined();
    const cfg = onIssue.config.parse({ project: "OPS", events: ["created"] });
    expect(() => onIssue.verify!(d!, matchCtx(cfg))).not.toThrow();
    const forged = {
      ...d!,
      headers: { ...d!.headers, authorization: `Bearer ${signJwt("not-the-secret", { iss: "x", exp: Math.floor(Date.now() / 1000) + 60 })}` },
    };
    expect(() => onIssue.verify!(forged, matchCtx(cfg))).toThrow(DeliveryUnauthorizedError);
    const unsigned = { ...d!, headers: { ...d!.headers, authorization: "" } };
    expect(() => onIssue.verify!(unsigned, matchCtx(cfg))).toThrow(DeliveryUnauthorizedError);
    const expired = {
      ...d!,
      headers: { ...d!.headers, authorization: `Bearer ${signJwt(env.fake.demo.clientSecret, { exp: Math.floor(Date.now() / 1000) - 3600 })}` },
    };
    expect(() => onIssue.verify!(expired, matchCtx(cfg))).toThrow(/expired/);
  });

  it("onIssue emits created / updated (with changelog) / deleted for its own project and selected events", async () => {
    const issue = newIssue();
    newIssue("TEAM"); // other project: not registered, and never matched
    const created = (await deliveriesFor("jira:issue_created"))[0]!;
    const cfg = onIssue.config.parse({ project: "OPS", events: ["created", "updated", "deleted"] });
    const [ev] = await onIssue.match(created, matchCtx(cfg));
    expect(ev!.data).toMatchObject({
      action: "created",
      issue: {
        id: issue.id,
        key: issue.key,
        self: expect.stringContaining(`/issue/${issue.id}`),
        fields: { summary: "Checkout errors", project: { key: "OPS" } },
      },
      user: { accountId: U().ravi, displayName: "Ravi Patel" },
    });
    expect(ev!.data).not.toHaveProperty("changelog");
    expect(onIssue.output.safeParse(ev!.data).success).toBe(true);

    site().change(
      issue,
      [{ field: "summary", fieldtype: "jira", fieldId: "summary", from: null, fromString: "Checkout errors", to: null, toString: "Checkout down" }],
      U().mia,
    );
    const updated = (await deliveriesFor("jira:issue_updated"))[0]!;
    const [up] = await onIssue.match(updated, matchCtx(cfg));
    expect(up!.data).toMatchObject({
      action: "updated",
      user: { accountId: U().mia },
      changelog: { items: [{ field: "summary", toString: "Checkout down" }] },
    });

    site().deleteIssue(issue, U().mia);
    const [del] = await onIssue.match((await deliveriesFor("jira:issue_deleted"))[0]!, matchCtx(cfg));
    expect(del!.data).toMatchObject({ action: "deleted", issue: { key: issue.key } });

    expect(await onIssue.match(created, matchCtx(onIssue.config.parse({ project: "OPS", events: ["deleted"] })))).toEqual([]);
    expect(await onIssue.match(created, matchCtx(onIssue.config.parse({ project: "TEAM", events: ["created"] })))).toEqual([]);
  });

  it("gives duplicate deliveries (same delivery id) the same dedupe key, distinct deliveries different ones", async () => {
    newIssue();
    newIssue();
    const created = await deliveriesFor("jira:issue_created");
    expect(created).toHaveLength(2);
    const original = env.fake.webhooks.deliveries.find((d) => d.id === created[0]!.headers["x-atlassian-webhook-identifier"])!;
    await env.fake.webhooks.redeliver(original);
    const again = (await deliveriesFor("jira:issue_created")).at(-1)!;
    expect(again.headers["x-atlassian-webhook-retry"]).toBe("1");
    const cfg = onIssue.config.parse({ project: "OPS", events: ["created"] });
    const keys = await Promise.all([created[0]!, created[1]!, again].map(async (d) => (await onIssue.match(d, matchCtx(cfg)))[0]!.dedupeKey));
    expect(keys[0]).toBe(keys[2]);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it("is retried by Jira when the intake answers 5xx, with the same delivery id", async () => {
    receiver.status.code = 503;
    env.fake.state.webhookRetryDelayMs = 10;
    env.fake.state.webhookMaxRetries = 1;
    try {
      newIssue();
      const both = await deliveriesFor("jira:issue_created");
      expect(both).toHaveLength(2);
      expect(both[1]!.headers["x-atlassian-webhook-identifier"]).toBe(both[0]!.headers["x-atlassian-webhook-identifier"]);
    } finally {
      receiver.status.code = 200;
      env.fake.state.webhookMaxRetries = 3;
    }
  });

  it("onIssue leaves comment activity to onIssueComment", async () => {
    const issue = newIssue();
    site().addComment(issue, adf("hello"), U().mia);
    const updates = await deliveriesFor("jira:issue_updated");
    expect(updates.length).toBeGreaterThan(0);
    const cfg = onIssue.config.parse({ project: "OPS", events: ["updated"] });
    for (const d of updates) expect(await onIssue.match(d, matchCtx(cfg))).toEqual([]);
  });

  it("onIssueComment emits the comment with its text extracted from ADF, and the issue", async () => {
    const issue = newIssue();
    const c = site().addComment(issue, adf("Rolled back deploy 42"), U().mia);
    const [d] = await deliveriesFor("comment_created");
    const cfg = onIssueComment.config.parse({ project: "OPS", events: ["created"] });
    const [ev] = await onIssueComment.match(d!, matchCtx(cfg));
    expect(ev!.data).toEqual({
      action: "created",
      comment: expect.objectContaining({
        id: c.id,
        body: "Rolled back deploy 42",
        author: expect.objectContaining({ accountId: U().mia }),
        updateAuthor: expect.objectContaining({ accountId: U().mia }),
      }),
      issue: expect.objectContaining({
        id: issue.id,
        key: issue.key,
        self: expect.any(String),
        fields: expect.objectContaining({ project: expect.objectContaining({ key: "OPS" }) }),
      }),
    });
    expect(onIssueComment.output.safeParse(ev!.data).success).toBe(true);

    site().editComment(issue, c, adf("edited"), U().ravi);
    site().deleteComment(issue, c, U().ravi);
    const all = onIssueComment.config.parse({ project: "OPS", events: ["created", "updated", "deleted"] });
    const [upd] = await onIssueComment.match((await deliveriesFor("comment_updated"))[0]!, matchCtx(all));
    const [del] = await onIssueComment.match((await deliveriesFor("comment_deleted"))[0]!, matchCtx(all));
    expect(upd!.data).toMatchObject({ action: "updated", comment: { body: "edited", updateAuthor: { accountId: U().ravi } } });
    expect(del!.data.action).toBe("deleted");
    expect(await onIssueComment.match((await deliveriesFor("comment_updated"))[0]!, matchCtx(cfg))).toEqual([]);
    expect(await onIssueComment.match(d!, matchCtx(onIssueComment.config.parse({ project: "TEAM", events: ["created"] })))).toEqual([]);
  });

  it("applies the content filter to the extracted text; a comment without text never matches", async () => {
    const issue = newIssue();
    site().addComment(issue, adf("Please ROLLBACK now"), U().mia);
    site().addComment(
      issue,
      { type: "doc", version: 1, content: [{ type: "mediaSingle", content: [{ type: "media", attrs: { id: "img-1", type: "file" } }] }] },
      U().mia,
    );
    const [withText, imageOnly] = await deliveriesFor("comment_created");
    const filtered = onIssueComment.config.parse({ project: "OPS", events: ["created"], contentFilter: "(?i)rollback" });
    expect(await onIssueComment.match(withText!, matchCtx(filtered))).toHaveLength(1);
    expect(await onIssueComment.match(withText!, matchCtx({ ...filtered, contentFilter: "^deploy" }))).toEqual([]);
    expect(await onIssueComment.match(imageOnly!, matchCtx({ ...filtered, contentFilter: ".*" }))).toEqual([]);
    const unfiltered = onIssueComment.config.parse({ project: "OPS", events: ["created"] });
    expect((await onIssueComment.match(imageOnly!, matchCtx(unfiltered)))[0]!.data.comment.body).toBe("");
  });

  it("rejects an invalid content filter at save time and a body that is not a Jira delivery", async () => {
    expect(onIssueComment.config.safeParse({ project: "OPS", events: ["created"], contentFilter: "([" }).success).toBe(false);
    const bogus: IncomingDelivery = { method: "POST", headers: {}, query: {}, rawBody: Buffer.from("{}"), body: {} };
    expect(() => onIssue.match(bogus, matchCtx(onIssue.config.parse({ project: "OPS", events: ["created"] })))).toThrow(DeliveryRejectedError);
  });

  it("stops delivering after the 30-day expiry when nobody refreshed", async () => {
    env.fake.state.advance(31 * 86_400_000);
    try {
      newIssue();
      await settled();
      expect(receiver.deliveries).toHaveLength(0);
    } finally {
      env.fake.state.clockOffsetMs = 0;
    }
  });
});

describe("shared registration with tracker.onIncident", () => {
  it("maintain moves a registration made for a desk id (before desks were resolved to keys) to the desk's project", async () => {
    const state: Record<string, unknown> = { ...env.connection.state };
    const connection = { ...env.connection, state, saveState: async (patch: Record<string, unknown>) => void Object.assign(state, patch) };
    const config = onIncidentConfig.parse({ serviceDesk: JSM_DEMO.serviceDeskId, requestTypes: [JSM_DEMO.requestTypes.incident], events: ["created"] });
    const ctx = {
      ...setupContext(env, store, { automationId: "aut_old", nodeId: "n_old", triggerKey: "tracker.onIncident", config }, receiver.url),
      connection,
    };
    await setupShared(ctx, "tracker.onIncident"); // what the earlier setup registered: the desk id taken for a project
    expect([...site().webhooks.values()].map((w) => w.jqlFilter)).toEqual([`project IN ("${JSM_DEMO.serviceDeskId}")`]);
    await onIncident.maintain!(ctx);
    expect([...site().webhooks.values()].map((w) => w.jqlFilter)).toEqual(['project IN ("SD")']);
    expect(state.jsmServiceDeskKeys).toEqual({ [JSM_DEMO.serviceDeskId]: "SD" });
    await onIncident.maintain!(ctx); // now covered: nothing changes
    expect(site().webhooks.size).toBe(1);
  });

  it("merges the incident trigger's service-desk project into the shared webhook", async () => {
    await onIssue.setup!(issueNode("n_issue", { project: "OPS", events: ["created"] }));
    const { setupShared } = await import("../shared-webhook");
    const ctx = setupContext(
      env,
      store,
      {
        automationId: "aut_9",
        nodeId: "n_inc",
        triggerKey: "tracker.onIncident",
        config: { serviceDesk: "SD", requestTypes: ["1"], events: ["created", "updated"] },
      },
      receiver.url,
    );
    await setupShared(ctx, "tracker.onIncident");
    const live = [...site().webhooks.values()].map((w) => ({ events: w.events, jqlFilter: w.jqlFilter }));
    expect(live).toEqual(
      expect.arrayContaining([
        { events: ["jira:issue_created"], jqlFilter: 'project IN ("OPS", "SD")' },
        { events: ["jira:issue_updated"], jqlFilter: 'project IN ("SD")' },
      ]),
    );
  });
});
