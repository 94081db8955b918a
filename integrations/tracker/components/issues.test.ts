import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IntegrationHttpError, NonRetryableError } from "../../core/errors";
import { createTestContext } from "../../core/testing";
import { adfToText } from "../adf";
import { startJiraEnv, type JiraTestEnv } from "../testing/jira-harness";
import { createIssue } from "./create-issue";
import { deleteIssue } from "./delete-issue";
import { getIssue } from "./get-issue";
import { NOTHING_TO_UPDATE, updateIssue } from "./update-issue";

let env: JiraTestEnv;
beforeAll(async () => {
  env = await startJiraEnv();
});
afterAll(() => env?.fake.stop());

const ctxFor = <D extends Parameters<typeof createTestContext>[0]>(def: D, config: unknown) => createTestContext(def, { config, connection: env.connection });
const site = () => env.fake.state.site(env.fake.demo.cloudId)!;
const lastRequest = (method: string, pathEnd: string) => [...env.fake.state.requests].reverse().find((r) => r.method === method && r.path.endsWith(pathEnd));
async function newIssue(extra: Record<string, unknown> = {}) {
  const out = await createIssue.run(ctxFor(createIssue, { project: "OPS", issueType: env.fake.demo.issueTypes.task, summary: "Disk almost full", ...extra }));
  return (out as { data: { key: string; id: string } }).data;
}

describe("tracker.createIssue", () => {
  it("creates the issue with an ADF description and assignee, and emits it as tracker.issue", async () => {
    const ev = await createIssue.run(
      ctxFor(createIssue, {
        project: "OPS",
        issueType: env.fake.demo.issueTypes.bug,
        summary: "p99 latency > 1s",
        description: "Line one\nline two\n\nSecond paragraph",
        assignee: env.fake.demo.users.ravi,
      }),
    );
    expect(ev).toMatchObject({
      type: "tracker.issue",
      data: {
        key: expect.stringMatching(/^OPS-\d+$/),
        fields: { summary: "p99 latency > 1s", issuetype: { name: "Bug" }, status: { name: "To Do" }, assignee: { accountId: env.fake.demo.users.ravi } },
      },
    });
    const data = (ev as unknown as { data: { key: string; self: string; fields: { description: unknown; created: string } } }).data;
    expect(data.self).toMatch(/\/rest\/api\/3\/issue\/\d+$/);
    expect(data.fields.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000$/);
    expect(data.fields.description).toMatchObject({ type: "doc", version: 1, content: [{ type: "paragraph" }, { type: "paragraph" }] });
    expect(adfToText(data.fields.description)).toBe("Line one\nline two\n\nSecond paragraph");
    const sent = lastRequest("POST", "/rest/api/3/issue")!.body as { fields: Record<string, unknown> };
    expect(sent.fields.assignee).toEqual({ id: env.fake.demo.users.ravi });
  });

  it("with a Status, runs the transition right after creation and emits the issue as fetched after it", async () => {
    const ev = await createIssue.run(
      ctxFor(createIssue, { project: "OPS", issueType: env.fake.demo.issueTypes.task, summary: "Start me", status: "In Progress" }),
    );
    const data = (ev as { data: { key: string; fields: { status: { name: string } } } }).data;
    expect(data.fields.status.name).toBe("In Progress");
    expect(site().issue(data.key)!.statusId).toBe(env.fake.demo.statuses.inProgress);
    expect(lastRequest("POST", `/issue/${data.key}/transitions`)!.body).toEqual({ transition: { id: "11" } });
  });

  it("fails without retry, naming the reachable statuses, when the Status cannot be reached from the initial one", async () => {
    const err = await createIssue
      .run(ctxFor(createIssue, { project: "OPS", issueType: env.fake.demo.issueTypes.task, summary: "x", status: "In Review" }))
      .catch((e) => e);
    expect(err).toBeInstanceOf(NonRetryableError);
    expect(err.message).toMatch(/was created, but it could not be moved/);
    expect(err.message).toMatch(/Reachable statuses: In Progress, Done/);
  });

  it("after creation, waits out a transient failure and resumes without creating a second issue", async () => {
    env.fake.fail({ method: "POST", path: /\/transitions$/, status: 429, retryAfter: 3 });
    const ctx = ctxFor(createIssue, { project: "OPS", issueType: env.fake.demo.issueTypes.task, summary: "resume me", status: "In Progress" });
    const first = (await createIssue.run(ctx)) as { kind: string; delayMs: number; state: { key: string } };
    expect(first).toMatchObject({ kind: "wait", delayMs: 3000, state: { key: expect.stringMatching(/^OPS-\d+$/), attempts: 1 } });
    const creates = env.fake.state.requests.filter((r) => r.method === "POST" && r.path.endsWith("/rest/api/3/issue")).length;
    (ctx as { state: unknown }).state = first.state;
    const second = (await createIssue.run(ctx)) as { type: string; data: { key: string; fields: { status: { name: string } } } };
    expect(second.type).toBe("tracker.issue");
    expect(second.data.key).toBe(first.state.key);
    expect(second.data.fields.status.name).toBe("In Progress");
    expect(env.fake.state.requests.filter((r) => r.method === "POST" && r.path.endsWith("/rest/api/3/issue")).length).toBe(creates);
  });

  it("surfaces Jira's field errors as a permanent failure, naming a project or issue type Jira refused", async () => {
    const err = await createIssue.run(ctxFor(createIssue, { project: "NOPE", issueType: "10001", summary: "x" })).catch((e) => e);
    expect(err).toBeInstanceOf(NonRetryableError);
    expect(err.message).toMatch(
      /^Project NOPE does not exist, or the connection's user cannot create issues in it \(.*project: Specify a valid project ID or key\)$/,
    );
    const type = await createIssue.run(ctxFor(createIssue, { project: "TEAM", issueType: "Bug", summary: "x" })).catch((e) => e);
    expect(type.message).toMatch(/^Issue type Bug is not one of project TEAM's \(.*issuetype: Specify an issue type\)$/);
    // Other field errors pass through with the field Jira named.
    const other = await createIssue.run(ctxFor(createIssue, { project: "OPS", issueType: "10001", summary: "x", assignee: "bad" })).catch((e) => e);
    expect(other).toBeInstanceOf(IntegrationHttpError);
    expect(other.retryable).toBe(false);
    expect(other.message).toContain("assignee: Specified user does not exist");
  });

  it("treats a 429 as retryable and carries Retry-After for the runner", async () => {
    env.fake.fail({ method: "POST", path: /\/rest\/api\/3\/issue$/, status: 429, retryAfter: 7 });
    const err = await createIssue.run(ctxFor(createIssue, { project: "OPS", issueType: "10001", summary: "x" })).catch((e) => e);
    expect(err).toBeInstanceOf(IntegrationHttpError);
    expect(err.retryable).toBe(true);
    expect(err.retryAfterMs).toBe(7000);
  });

  it("refreshes an expired access token once and retries the call", async () => {
    const before = env.tokens.status.refreshes;
    env.fake.state.expireAccessTokens();
    const issue = await newIssue({ summary: "after refresh" });
    expect(issue.key).toMatch(/^OPS-/);
    expect(env.tokens.status.refreshes).toBe(before + 1);
  });
});

describe("tracker.getIssue", () => {
  it("emits the issue with its full fields and requested expansions", async () => {
    const { key } = await newIssue({ summary: "read me" });
    const ev = (await getIssue.run(ctxFor(getIssue, { project: "OPS", issueKey: key, expand: "changelog, names" }))) as {
      type: string;
      data: Record<string, unknown> & { fields: Record<string, unknown> };
    };
    expect(ev.type).toBe("tracker.issue");
    expect(ev.data).toMatchObject({
      key,
      fields: { summary: "read me", project: { key: "OPS", name: "Operations" }, reporter: { accountId: env.fake.demo.users.mia } },
    });
    expect(ev.data.changelog).toBeDefined();
    expect(lastRequest("GET", `/issue/${key}`)!.query).toMatchObject({ expand: "changelog,names" });
  });

  it("rejects unknown expand values at save time", () => {
    expect(getIssue.config.safeParse({ project: "OPS", issueKey: "OPS-1", expand: "everything" }).success).toBe(false);
  });

  it("fails without retry for a missing issue", async () => {
    const err = await getIssue.run(ctxFor(getIssue, { project: "OPS", issueKey: "OPS-9999" })).catch((e) => e);
    expect(err).toBeInstanceOf(IntegrationHttpError);
    expect(err.status).toBe(404);
    expect(err.message).toMatch(/does not exist/);
  });
});

describe("tracker.updateIssue", () => {
  it("refuses to save without any optional field", () => {
    const config = updateIssue.config.parse({ project: "OPS", issueKey: "OPS-1", notifyUsers: false });
    expect(updateIssue.validate!(config, {})).toEqual([{ path: "summary", message: NOTHING_TO_UPDATE }]);
    expect(updateIssue.validate!(updateIssue.config.parse({ project: "OPS", issueKey: "OPS-1", labels: [] }), {})).toEqual([]);
  });

  it("refuses to run when expressions resolved every optional field to nothing", async () => {
    const err = await updateIssue.run(ctxFor(updateIssue, { project: "OPS", issueKey: "OPS-1", description: "" })).catch((e) => e);
    expect(err).toBeInstanceOf(NonRetryableError);
    expect(err.message).toBe(NOTHING_TO_UPDATE);
  });

  it("updates the fields, omits notifyUsers when unset, and emits the issue as fetched after the update", async () => {
    const { key } = await newIssue();
    const ev = (await updateIssue.run(
      ctxFor(updateIssue, {
        project: "OPS",
        issueKey: key,
        summary: "Disk full",
        description: "now 100%",
        priority: "Highest",
        labels: ["disk", "sev1"],
        assignee: env.fake.demo.users.lee,
        issueType: env.fake.demo.issueTypes.bug,
      }),
    )) as { type: string; data: { fields: Record<string, unknown> } };
    expect(ev.type).toBe("tracker.issue");
    expect(ev.data.fields).toMatchObject({
      summary: "Disk full",
      priority: { name: "Highest" },
      labels: ["disk", "sev1"],
      assignee: { accountId: env.fake.demo.users.lee },
      issuetype: { name: "Bug" },
    });
    expect(adfToText(ev.data.fields.description)).toBe("now 100%");
    const put = lastRequest("PUT", `/issue/${key}`)!;
    expect(put.query).not.toHaveProperty("notifyUsers");
  });

  it("passes notifyUsers only when set", async () => {
    const { key } = await newIssue();
    await updateIssue.run(ctxFor(updateIssue, { project: "OPS", issueKey: key, summary: "quiet", notifyUsers: false }));
    expect(lastRequest("PUT", `/issue/${key}`)!.query).toMatchObject({ notifyUsers: "false" });
  });

  it("reports Jira's refusal of a bad value", async () => {
    const { key } = await newIssue();
    const err = await updateIssue.run(ctxFor(updateIssue, { project: "OPS", issueKey: key, priority: "Apocalyptic" })).catch((e) => e);
    expect(err).toBeInstanceOf(IntegrationHttpError);
    expect(err.message).toMatch(/priority/);
  });
});

describe("tracker.deleteIssue", () => {
  async function withSubtask() {
    const parent = await newIssue({ summary: "parent" });
    site().createIssue(
      {
        projectId: "10000",
        issueTypeId: env.fake.demo.issueTypes.subtask,
        summary: "child",
        description: null,
        reporterId: env.fake.demo.users.mia,
        labels: [],
        parentId: parent.id,
      },
      env.fake.demo.users.mia,
    );
    return parent;
  }

  it("deletes an issue and emits tracker.issueDeleted", async () => {
    const { key, id } = await newIssue();
    const ev = await deleteIssue.run(ctxFor(deleteIssue, { project: "OPS", issueKey: key }));
    expect(ev).toMatchObject({ type: "tracker.issueDeleted", data: { deleted: true, id, key } });
    expect(site().issue(key)).toBeUndefined();
  });

  it("after a transient failure of the delete, resumes and reports the issue deleted once it is gone", async () => {
    const { key, id } = await newIssue();
    env.fake.fail({ method: "DELETE", path: `/issue/${key}`, status: 503, retryAfter: 2 });
    const ctx = ctxFor(deleteIssue, { project: "OPS", issueKey: key });
    const first = (await deleteIssue.run(ctx)) as { kind: string; delayMs: number; state: unknown };
    expect(first).toMatchObject({ kind: "wait", delayMs: 2000, state: { id, key, attempts: 1 } });
    expect(site().issue(key)).toBeDefined();
    (ctx as { state: unknown }).state = first.state;
    expect(await deleteIssue.run(ctx)).toMatchObject({ type: "tracker.issueDeleted", data: { deleted: true, id, key } });
    expect(site().issue(key)).toBeUndefined();
    // A resume that finds the issue already gone (the first DELETE went through) also succeeds.
    expect(await deleteIssue.run(ctx)).toMatchObject({ type: "tracker.issueDeleted", data: { deleted: true, id, key } });
  });

  it("fails, saying so, when the issue has subtasks and Delete Subtasks is off", async () => {
    const { key } = await withSubtask();
    const err = await deleteIssue.run(ctxFor(deleteIssue, { project: "OPS", issueKey: key, deleteSubtasks: false })).catch((e) => e);
    expect(err).toBeInstanceOf(NonRetryableError);
    expect(err.message).toMatch(new RegExp(`${key} has 1 subtask \\(OPS-\\d+\\); turn on Delete Subtasks`));
    expect(site().issue(key)).toBeDefined();
  });

  it("deletes the issue with its subtasks when Delete Subtasks is on", async () => {
    const { key, id } = await withSubtask();
    const subKey = site().subtasks(site().issue(key)!)[0]!.key;
    await deleteIssue.run(ctxFor(deleteIssue, { project: "OPS", issueKey: key, deleteSubtasks: true }));
    expect(site().issue(id)).toBeUndefined();
    expect(site().issue(subKey)).toBeUndefined();
    expect(lastRequest("DELETE", `/issue/${key}`)!.query).toMatchObject({ deleteSubtasks: "true" });
  });
});
