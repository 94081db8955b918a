import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NonRetryableError } from "../../core/errors";
import { createTestContext } from "../../core/testing";
import { adfToText } from "../adf";
import { startJiraEnv, type JiraTestEnv } from "../testing/jira-harness";
import { getWorkflow } from "./get-workflow";
import { transitionIssue } from "./transition-issue";

let env: JiraTestEnv;
beforeAll(async () => {
  env = await startJiraEnv();
});
afterAll(() => env?.fake.stop());

const site = () => env.fake.state.site(env.fake.demo.cloudId)!;
const ctxFor = <D extends Parameters<typeof createTestContext>[0]>(def: D, config: unknown) => createTestContext(def, { config, connection: env.connection });
const S = () => env.fake.demo.statuses;

function seedIssue(project: "OPS" | "TEAM", statusId?: string, assigneeId?: string) {
  const p = site().project(project)!;
  const issue = site().createIssue(
    { projectId: p.id, issueTypeId: p.issueTypeIds[0]!, summary: "seeded", description: null, reporterId: env.fake.demo.users.ravi, labels: [], assigneeId },
    env.fake.demo.users.ravi,
  );
  if (statusId) issue.statusId = statusId;
  return issue;
}

describe("tracker.transitionIssue", () => {
  it("runs the transition whose target is the requested status, with comment and resolution in the same call", async () => {
    const issue = seedIssue("OPS");
    const ev = (await transitionIssue.run(
      ctxFor(transitionIssue, { issueKey: issue.key, targetStatus: "done", comment: "Fixed by rollback", resolution: "Won't Do" }),
    )) as {
      type: string;
      data: { fields: { status: { name: string }; resolution: { name: string } } };
    };
    expect(ev.type).toBe("tracker.issue");
    expect(ev.data.fields.status.name).toBe("Done");
    expect(ev.data.fields.resolution.name).toBe("Won't Do");
    const posts = env.fake.state.requests.filter((r) => r.method === "POST" && r.path.endsWith(`/issue/${issue.key}/transitions`));
    expect(posts).toHaveLength(1);
    expect(posts[0]!.body).toMatchObject({
      transition: { id: "31" },
      fields: { resolution: { name: "Won't Do" } },
      update: { comment: [{ add: { body: { type: "doc" } } }] },
    });
    expect(adfToText(site().issue(issue.key)!.comments[0]!.body)).toBe("Fixed by rollback");
  });

  it("matches the target status by id too", async () => {
    const issue = seedIssue("OPS");
    const ev = (await transitionIssue.run(ctxFor(transitionIssue, { project: "OPS", issueKey: issue.key, targetStatus: S().inProgress }))) as {
      data: { fields: { status: { name: string } } };
    };
    expect(ev.data.fields.status.name).toBe("In Progress");
  });

  it("fails listing the reachable statuses when no available transition leads to the target", async () => {
    const issue = seedIssue("OPS");
    const err = await transitionIssue.run(ctxFor(transitionIssue, { issueKey: issue.key, targetStatus: "In Review" })).catch((e) => e);
    expect(err).toBeInstanceOf(NonRetryableError);
    expect(err.message).toBe(`No available transition moves ${issue.key} from "To Do" to "In Review". Reachable statuses: In Progress, Done.`);
  });

  it("does not offer a transition whose workflow condition refuses the user", async () => {
    const issue = seedIssue("OPS", S().inReview, env.fake.demo.users.ravi); // only the assignee may Close
    const err = await transitionIssue.run(ctxFor(transitionIssue, { issueKey: issue.key, targetStatus: "Closed", resolution: "Done" })).catch((e) => e);
    expect(err).toBeInstanceOf(NonRetryableError);
    expect(err.message).toMatch(/Reachable statuses: Done\./);
    issue.assigneeId = env.fake.demo.users.mia;
    const ev = (await transitionIssue.run(ctxFor(transitionIssue, { issueKey: issue.key, targetStatus: "Closed", resolution: "Done" }))) as {
      data: { fields: { status: { name: string } } };
    };
    expect(ev.data.fields.status.name).toBe("Closed");
  });

  it("fails without retry when a workflow validator rejects the transition", async () => {
    const issue = seedIssue("OPS");
    const err = await transitionIssue.run(ctxFor(transitionIssue, { issueKey: issue.key, targetStatus: "Done" })).catch((e) => e);
    expect(err).toBeInstanceOf(NonRetryableError);
    expect(err.message).toMatch(/refused transition "Done" .*A resolution is required to finish this issue/);
    expect(site().issue(issue.key)!.statusId).toBe(S().todo);
  });

  it("succeeds without a call when a retried step finds the issue already in the target status", async () => {
    const issue = seedIssue("OPS", S().inReview);
    const ev = (await transitionIssue.run(ctxFor(transitionIssue, { issueKey: issue.key, targetStatus: "In Review" }))) as {
      data: { fields: { status: { name: string } } };
    };
    expect(ev.data.fields.status.name).toBe("In Review");
  });
});

describe("tracker.getWorkflow", () => {
  it("describes a company-managed issue's workflow through its scheme", async () => {
    const issue = seedIssue("OPS");
    const ev = (await getWorkflow.run(ctxFor(getWorkflow, { project: "OPS", issueKey: issue.key }))) as { type: string; data: Record<string, unknown> };
    expect(ev.type).toBe("tracker.workflow");
    expect(getWorkflow.output.parse(ev.data)).toEqual({
      issueKey: issue.key,
      issueType: "Task",
      projectKey: "OPS",
      workflowName: "Ops Workflow",
      workflowSchemeName: "OPS Workflow Scheme",
      workflowSchemeId: "10100",
      currentStatus: "To Do",
      currentStatusId: S().todo,
      statuses: [
        { id: S().todo, name: "To Do", category: "TODO", isCurrent: true },
        { id: S().inProgress, name: "In Progress", category: "IN_PROGRESS" },
        { id: S().inReview, name: "In Review", category: "IN_PROGRESS" },
        { id: S().done, name: "Done", category: "DONE" },
        { id: S().closed, name: "Closed", category: "DONE" },
      ],
      availableTransitions: [
        { id: "11", name: "Start Progress", toStatus: "In Progress", toStatusId: S().inProgress },
        { id: "31", name: "Done", toStatus: "Done", toStatusId: S().done },
      ],
    });
  });

  it("leaves workflowName and statuses empty for team-managed projects but fills status and transitions", async () => {
    const issue = seedIssue("TEAM");
    const ev = (await getWorkflow.run(ctxFor(getWorkflow, { project: "TEAM", issueKey: issue.key }))) as { data: Record<string, unknown> };
    expect(ev.data).toMatchObject({
      projectKey: "TEAM",
      workflowName: "",
      workflowSchemeName: "",
      statuses: [],
      currentStatus: "Backlog",
      currentStatusId: S().backlog,
    });
    expect((ev.data.availableTransitions as Array<{ toStatus: string }>).map((t) => t.toStatus)).toEqual(["Backlog", "Doing", "Shipped"]);
    expect(env.fake.state.requests.some((r) => r.path.endsWith("/workflowscheme/project") && r.query.projectId === "10020")).toBe(false);
  });

  it("still reports status and transitions when the user may not read workflow schemes", async () => {
    const issue = seedIssue("OPS");
    site().admins.delete(env.fake.demo.users.mia);
    try {
      const ev = (await getWorkflow.run(ctxFor(getWorkflow, { project: "OPS", issueKey: issue.key }))) as { data: Record<string, unknown> };
      expect(ev.data).toMatchObject({ workflowName: "", statuses: [], currentStatus: "To Do" });
      expect(ev.data.availableTransitions).toHaveLength(2);
    } finally {
      site().admins.add(env.fake.demo.users.mia);
    }
  });
});
