/**
 * One step creates at most one issue / incident / alert: a create whose answer is lost (the fake handles it,
 * then resets the connection or never answers) is found by the retry instead of being created again, and a
 * normal create stays one request.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { isRetryable } from "../../core/errors";
import { createHttpClient } from "../../core/http";
import { createTestContext } from "../../core/testing";
import { DEMO } from "../testing/fake-atlassian/seed";
import { JSM_DEMO } from "../testing/fake-atlassian/jsm/wiring";
import { drive, startJsmOpsFake, type JsmOpsFake } from "../testing/jsm-ops-harness";
import { createAlert } from "./create-alert";
import { createIncident } from "./create-incident";
import { createIssue } from "./create-issue";
import type { AnyComponent } from "../../core/define";

let h: JsmOpsFake;
beforeAll(async () => {
  h = await startJsmOpsFake();
});
afterAll(() => h?.close());
beforeEach(() => {
  h.site.processing = { delayMs: 0 };
});

const jira = () => h.atlassian.state.site(DEMO.cloudId)!;
const ISSUE_POST = /\/rest\/api\/3\/issue$/;
const posts = (re: RegExp) => h.fake.received.filter((r) => r.method === "POST" && re.test(r.path));
const searches = () => h.fake.received.filter((r) => r.method === "GET" && r.path.endsWith("/rest/api/3/search/jql"));
const labelled = (label: string) => [...jira().issues.values()].filter((i) => i.labels.includes(label));
/** The context of attempt `attempt` of step `stepId` (the engine keeps the step id across retries). */
const attemptOf = <D extends AnyComponent>(def: D, config: unknown, stepId: string, attempt: number, timeoutMs?: number) =>
  createTestContext(def, {
    config,
    connection: h.connection(),
    now: h.clock.now,
    run: { stepId, attempt },
    http: timeoutMs ? createHttpClient({ timeoutMs }) : undefined,
  });
const issueConfig = { project: "OPS", issueType: DEMO.issueTypes.task, summary: "Disk almost full on db-1" };

describe("tracker.createIssue creates once per step", () => {
  it("a normal create is one request, and the issue carries the step's label", async () => {
    const before = { posts: posts(ISSUE_POST).length, searches: searches().length };
    const out = (await createIssue.run(attemptOf(createIssue, issueConfig, "stp_once", 1))) as { data: { key: string } };
    expect(posts(ISSUE_POST).length - before.posts).toBe(1);
    expect(searches().length).toBe(before.searches);
    expect(posts(ISSUE_POST).at(-1)!.body).toMatchObject({ fields: { labels: ["conveyor-stp_once"] } });
    expect(labelled("conveyor-stp_once").map((i) => i.key)).toEqual([out.data.key]);
  });

  it("a create whose connection is reset after Jira created the issue: the retry emits that issue, the project holds one", async () => {
    h.atlassian.fail({ method: "POST", path: ISSUE_POST, lose: "reset" });
    const err = await createIssue.run(attemptOf(createIssue, issueConfig, "stp_reset", 1)).catch((e) => e);
    expect(isRetryable(err)).toBe(true);
    expect(h.fake.received.at(-1)).toMatchObject({ method: "POST", status: 201, lost: "reset" });
    const [made] = labelled("conveyor-stp_reset");
    expect(made).toBeDefined();

    const creates = posts(ISSUE_POST).length;
    const out = (await createIssue.run(attemptOf(createIssue, issueConfig, "stp_reset", 2))) as { type: string; data: { id: string; key: string } };
    expect(out.type).toBe("tracker.issue");
    expect(out.data).toMatchObject({ id: made!.id, key: made!.key });
    expect(labelled("conveyor-stp_reset")).toHaveLength(1);
    expect(posts(ISSUE_POST).length).toBe(creates); // no second create
    expect(searches().at(-1)!.query).toMatchObject({ jql: 'labels = "conveyor-stp_reset" ORDER BY created ASC' });
  });

  it("a create Jira never answers (timeout): the retry moves the issue it finds to the Status and emits it", async () => {
    h.atlassian.fail({ method: "POST", path: ISSUE_POST, lose: "hang" });
    const config = { ...issueConfig, status: "In Progress" };
    const err = await createIssue.run(attemptOf(createIssue, config, "stp_hang", 1, 500)).catch((e) => e);
    expect(err.message).toMatch(/timed out after 500 ms/);
    expect(isRetryable(err)).toBe(true);
    expect(labelled("conveyor-stp_hang")).toHaveLength(1);

    const out = (await createIssue.run(attemptOf(createIssue, config, "stp_hang", 2))) as { data: { key: string; fields: { status: { name: string } } } };
    expect(labelled("conveyor-stp_hang").map((i) => i.key)).toEqual([out.data.key]);
    expect(out.data.fields.status.name).toBe("In Progress");
  });

  it("a retry that finds nothing (the lost attempt never reached Jira) creates the issue", async () => {
    h.atlassian.fail({ method: "POST", path: ISSUE_POST, status: 503 });
    await expect(createIssue.run(attemptOf(createIssue, issueConfig, "stp_503", 1))).rejects.toMatchObject({ retryable: true });
    expect(labelled("conveyor-stp_503")).toHaveLength(0);
    const out = (await createIssue.run(attemptOf(createIssue, issueConfig, "stp_503", 2))) as { data: { key: string } };
    expect(labelled("conveyor-stp_503").map((i) => i.key)).toEqual([out.data.key]);
  });

  it("a project whose create screen lacks Labels gets the issue without the label (logged)", async () => {
    const ops = jira().project("OPS")!;
    ops.offCreateScreen = ["labels"];
    try {
      const ctx = attemptOf(createIssue, issueConfig, "stp_screen", 1);
      const before = posts(ISSUE_POST).length;
      const out = (await createIssue.run(ctx)) as { data: { key: string } };
      expect(
        posts(ISSUE_POST)
          .slice(before)
          .map((r) => r.status),
      ).toEqual([400, 201]);
      expect(jira().issue(out.data.key)!.labels).toEqual([]);
      expect(ctx.logs.some((l) => l.level === "warn" && /refused the label conveyor-stp_screen/.test(l.message))).toBe(true);
    } finally {
      ops.offCreateScreen = undefined;
    }
  });
});

describe("tracker.createIncident creates once per step", () => {
  const config = {
    serviceDesk: JSM_DEMO.serviceDeskId,
    requestType: JSM_DEMO.requestTypes.incident,
    summary: "HighLatency on a:9100",
    update: { labels: [{ add: "from-alert" }] },
  };

  it("a create whose answer is lost: the retry emits the incident created, with the caller's labels and the step's", async () => {
    h.atlassian.fail({ method: "POST", path: ISSUE_POST, lose: "reset" });
    const err = await createIncident.run(attemptOf(createIncident, config, "stp_inc", 1)).catch((e) => e);
    expect(isRetryable(err)).toBe(true);
    const [made] = labelled("conveyor-stp_inc");
    expect(made!.labels).toEqual(["from-alert", "conveyor-stp_inc"]);

    const creates = posts(ISSUE_POST).length;
    const out = (await createIncident.run(attemptOf(createIncident, config, "stp_inc", 2))) as { type: string; data: Record<string, string> };
    expect(out).toMatchObject({ type: "tracker.incident.created", data: { id: made!.id, key: made!.key } });
    expect(out.data.self).toContain(`/rest/api/3/issue/${made!.id}`);
    expect(labelled("conveyor-stp_inc")).toHaveLength(1);
    expect(posts(ISSUE_POST).length).toBe(creates);
  });
});

describe("tracker.createAlert creates once per step", () => {
  const ALERTS = /\/v1\/alerts$/;

  it("without an Alias the alert gets conveyor-<step id>; a retry after a lost answer emits that alert (one alert, count 1)", async () => {
    h.atlassian.fail({ method: "POST", path: ALERTS, lose: "reset" });
    const config = { message: "DiskFull on db-1" };
    const err = await createAlert.run(attemptOf(createAlert, config, "stp_alert", 1)).catch((e) => e);
    expect(isRetryable(err)).toBe(true);
    expect(posts(ALERTS).at(-1)!.body).toMatchObject({ alias: "conveyor-stp_alert" });
    const ours = () => [...h.site.alerts.values()].filter((a) => a.alias === "conveyor-stp_alert");
    await vi.waitFor(() => expect(ours()).toHaveLength(1));

    const creates = posts(ALERTS).length;
    const { result } = await drive(createAlert, attemptOf(createAlert, config, "stp_alert", 2), h, { realSleepMs: 30 });
    expect(result).toMatchObject({ type: "tracker.alert.created", data: { id: ours()[0]!.id, alias: "conveyor-stp_alert", count: 1 } });
    expect(posts(ALERTS).length).toBe(creates);
    expect(ours()).toHaveLength(1);
  });

  it("a first attempt sends the create alone", async () => {
    const before = h.fake.received.length;
    await drive(createAlert, attemptOf(createAlert, { message: "fresh" }, "stp_alert_fresh", 1), h, { realSleepMs: 30 });
    expect(h.fake.received.slice(before).some((r) => r.path.endsWith("/alerts/alias"))).toBe(false);
  });
});
