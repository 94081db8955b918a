import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpClient } from "../../core/http";
import { NonRetryableError } from "../../core/errors";
import { DEMO } from "../testing/fake-atlassian/seed";
import { JSM_DEMO } from "../testing/fake-atlassian/jsm/wiring";
import { contextFor, startJsmOpsFake, type JsmOpsFake } from "../testing/jsm-ops-harness";
import { incidentIssue, incidentRequestType, incidentTypes, ISSUE_PICKER_LIMIT, serviceDesk } from "../resources-jsm";
import { createIncident } from "./create-incident";
import { deleteIncident } from "./delete-incident";
import { getIncident } from "./get-incident";

let h: JsmOpsFake;
const F = JSM_DEMO.fields;
const base = { serviceDesk: JSM_DEMO.serviceDeskId, requestType: JSM_DEMO.requestTypes.incident };
beforeAll(async () => {
  h = await startJsmOpsFake();
});
afterAll(() => h?.close());

const jira = () => h.atlassian.state.site(DEMO.cloudId)!;
const create = (config: Record<string, unknown>) =>
  createIncident.run(contextFor(createIncident, h, { ...base, ...config })) as Promise<{ type: string; data: { id: string; key: string; self: string } }>;
const loaderArgs = (config: Record<string, unknown>, search?: string) => ({ connection: h.connection(), http: createHttpClient(), config, search });

describe("tracker.createIncident", () => {
  it("creates the incident with every field and emits id, key, self", async () => {
    const out = await create({
      summary: "HighLatency on a:9100",
      description: "p99 > 1s\nsince 09:49Z\n\nsee dashboard",
      dueDate: "2026-12-01",
      priority: "High",
      impact: "Significant / Large",
      urgency: "Critical",
      originalEstimate: "2h",
      customFields: [{ fieldId: F.responders, value: '[{"id":"team-red","type":"team"}]' }],
      additionalFields: { duedate: "2026-12-02" }, // merged last: wins over Due date
      update: { labels: [{ add: "from-alert" }] },
      alertIds: ["alert-1", "alert-2"],
    });
    expect(out.type).toBe("tracker.incident.created");
    expect(out.data.id).toMatch(/^\d+$/);
    expect(out.data.key).toMatch(/^SD-\d+$/);
    expect(out.data.self).toContain(`/rest/api/3/issue/${out.data.id}`);
    const issue = jira().issue(out.data.key)!;
    expect(issue).toMatchObject({ summary: "HighLatency on a:9100", issueTypeId: JSM_DEMO.issueTypes.incident, priorityId: "2" });
    expect(issue.labels).toEqual(["from-alert", expect.stringMatching(/^conveyor-stp_test\d+$/)]); // the step's own label follows the caller's (create-once.ts)
    expect(issue.description).toMatchObject({
      type: "doc",
      version: 1,
      content: [{ type: "paragraph", content: [{ text: "p99 > 1s" }, { type: "hardBreak" }, { text: "since 09:49Z" }] }, { type: "paragraph" }],
    });
    expect(issue.extra).toMatchObject({
      duedate: "2026-12-02",
      timetracking: { originalEstimate: "2h" },
      [F.impact]: { id: "10101" },
      [F.urgency]: { id: "10100" },
      [F.alerts]: ["alert-1", "alert-2"],
      [F.responders]: [{ id: "team-red", type: "team" }],
    });
  });

  it("takes the summary from Additional fields; without any summary it is refused at save and run time", async () => {
    const out = await create({ additionalFields: { summary: "from additional" } });
    expect(jira().issue(out.data.key)!.summary).toBe("from additional");
    const ctx = contextFor(createIncident, h, base);
    expect(createIncident.validate!(ctx.config, { connection: h.connection() })).toEqual([expect.objectContaining({ path: "summary" })]);
    await expect(createIncident.run(ctx)).rejects.toBeInstanceOf(NonRetryableError);
  });

  it("refuses a request type outside the incident-management work category", async () => {
    await expect(create({ requestType: JSM_DEMO.requestTypes.getHelp, summary: "x" })).rejects.toThrow(/service-request.*not incident management/);
  });

  it("refuses an impact value the site does not offer, listing the valid ones", async () => {
    await expect(create({ summary: "x", impact: "Huge" })).rejects.toThrow(/not a valid Impact.*Minor \/ Localized/);
  });

  it("rejects due date and estimate formats in the schema", () => {
    expect(() => contextFor(createIncident, h, { ...base, summary: "x", dueDate: "01/12/2026" })).toThrow();
    expect(() => contextFor(createIncident, h, { ...base, summary: "x", originalEstimate: "two hours" })).toThrow();
  });

  it("surfaces Jira's field error for an unknown custom field", async () => {
    await expect(create({ summary: "x", customFields: [{ fieldId: "customfield_99999", value: "v" }] })).rejects.toThrow(/customfield_99999/);
  });
});

describe("tracker.getIncident / tracker.deleteIncident", () => {
  it("gets by key and by numeric id, with summary, reporter, priority, status, responders", async () => {
    const { data } = await create({
      summary: "Readable",
      priority: "Highest",
      customFields: [{ fieldId: F.responders, value: '[{"id":"t1","type":"team"}]' }],
    });
    for (const ref of [data.key, data.id]) {
      const out = await getIncident.run(contextFor(getIncident, h, { issue: ref }));
      expect(out).toMatchObject({
        type: "tracker.incident.fetched",
        data: {
          id: data.id,
          key: data.key,
          summary: "Readable",
          priority: "Highest",
          status: "To Do",
          issueType: "Incident",
          reporter: { accountId: DEMO.users.mia },
          responders: [{ id: "t1", type: "team" }],
        },
      });
    }
  });

  it("fails clearly for an unknown incident", async () => {
    await expect(getIncident.run(contextFor(getIncident, h, { issue: "SD-99999" }))).rejects.toThrow(/does not exist/);
    await expect(deleteIncident.run(contextFor(deleteIncident, h, { issue: "SD-99999" }))).rejects.toThrow(/does not exist/);
  });

  it("deletes by key and emits deleted true", async () => {
    const { data } = await create({ summary: "To delete" });
    const out = await deleteIncident.run(contextFor(deleteIncident, h, { project: "SD", issue: data.key }));
    expect(out).toMatchObject({ type: "tracker.incident.deleted", data: { deleted: true, key: data.key, id: data.id } });
    expect(jira().issue(data.key)).toBeUndefined();
  });
});

describe("service-desk pickers", () => {
  it("lists service desks and only incident-management request types when the practice is reported", async () => {
    expect((await serviceDesk(loaderArgs({}))).options).toEqual([
      { value: "SD", label: "IT Service Desk (SD)", description: `Service desk ${JSM_DEMO.serviceDeskId}` },
    ]);
    const types = await incidentRequestType(loaderArgs({ serviceDesk: JSM_DEMO.serviceDeskId }));
    expect(types.options.map((o) => o.label)).toEqual(["Report a system problem", "Major incident"]);
    expect(h.fake.received.some((r) => r.path.endsWith("/requesttype") && String(r.query.expand).includes("practice"))).toBe(true);
  });

  it("lists every request type when none reports a practice", () => {
    const t = [
      { id: "1", name: "A", issueTypeId: "1", serviceDeskId: "1" },
      { id: "2", name: "B", issueTypeId: "2", serviceDeskId: "1" },
    ];
    expect(incidentTypes(t)).toHaveLength(2);
    expect(incidentTypes([{ ...t[0]!, practice: "service-request" }, t[1]!])).toHaveLength(0);
  });

  it("issue picker: at most 500, most recently updated first; ~90 days across projects without a project", async () => {
    const site = jira();
    const now = h.clock.now().getTime();
    for (let i = 0; i < ISSUE_PICKER_LIMIT + 5; i++) {
      const issue = site.createIssue(
        {
          projectId: JSM_DEMO.projectId,
          issueTypeId: JSM_DEMO.issueTypes.incident,
          summary: `bulk ${i}`,
          description: null,
          reporterId: DEMO.users.mia,
          labels: [],
        },
        DEMO.users.mia,
      );
      issue.updated = now - (ISSUE_PICKER_LIMIT - i) * 1000;
    }
    const old = site.createIssue(
      { projectId: DEMO.projects.ops, issueTypeId: DEMO.issueTypes.task, summary: "ancient", description: null, reporterId: DEMO.users.mia, labels: [] },
      DEMO.users.mia,
    );
    old.updated = now - 120 * 86_400_000;
    const recentOps = site.createIssue(
      { projectId: DEMO.projects.ops, issueTypeId: DEMO.issueTypes.task, summary: "recent ops", description: null, reporterId: DEMO.users.mia, labels: [] },
      DEMO.users.mia,
    );
    recentOps.updated = now + 5000;

    const inProject = await incidentIssue(loaderArgs({ project: "SD" }));
    expect(inProject.options).toHaveLength(ISSUE_PICKER_LIMIT);
    expect(inProject.options[0]!.label).toContain("bulk 504");
    expect(inProject.options.some((o) => o.label.includes("recent ops"))).toBe(false);

    const across = await incidentIssue(loaderArgs({}));
    expect(across.options).toHaveLength(ISSUE_PICKER_LIMIT);
    expect(across.options[0]!.label).toContain("recent ops");
    expect(across.options.some((o) => o.label.includes("ancient"))).toBe(false);
    const jql = h.fake.received.filter((r) => r.path.endsWith("/search/jql")).map((r) => r.query.jql);
    expect(jql).toContain("updated >= -90d ORDER BY updated DESC");
  });
});
