import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UiMeta } from "../core/ui-meta";
import { createIssueConfig } from "./components/create-issue";
import { ISSUE_PICKER_LIMIT, jiraResources } from "./resources";
import { startJiraEnv, type JiraTestEnv } from "./testing/jira-harness";

let env: JiraTestEnv;
beforeAll(async () => {
  env = await startJiraEnv();
});
afterAll(() => env?.fake.stop());

const load = (type: string, config: Record<string, unknown> = {}, search?: string) =>
  jiraResources[type]!({ connection: env.connection, http: env.http, config, search });

describe("tracker pickers", () => {
  it("lists projects, and issue types scoped to the chosen project", async () => {
    expect((await load("projects")).options).toEqual(
      expect.arrayContaining([
        { value: "OPS", label: "Operations (OPS)", description: "Company-managed" },
        { value: "TEAM", label: "Team Space (TEAM)", description: "Team-managed" },
      ]),
    );
    expect((await load("projects", {}, "team")).options.map((o) => o.value)).toEqual(["TEAM"]);
    expect((await load("issueTypes")).options).toEqual([]);
    expect((await load("issueTypes", { project: "OPS" })).options.map((o) => o.label)).toEqual(["Task", "Bug", "Sub-task", "Incident"]);
    expect((await load("issueTypes", { project: "TEAM" })).options.map((o) => o.label)).toEqual(["Task"]);
  });

  it("Create Issue's issue type picker leaves out sub-task types (it sets no parent, so Jira refuses them)", async () => {
    const picker = (createIssueConfig.shape.issueType.meta() as UiMeta).resource!.type;
    expect((await load(picker, { project: "OPS" })).options.map((o) => o.label)).toEqual(["Task", "Bug", "Incident"]);
  });

  it("lists statuses of the project (or all), priorities and resolutions", async () => {
    expect((await load("statuses", { project: "TEAM" })).options.map((o) => o.value)).toEqual(["Backlog", "Doing", "Shipped"]);
    expect((await load("statuses")).options.map((o) => o.value)).toEqual(expect.arrayContaining(["To Do", "In Review", "Closed", "Backlog", "Shipped"]));
    expect((await load("priorities")).options.map((o) => o.value)).toEqual(["Highest", "High", "Medium", "Low", "Lowest"]);
    expect((await load("priorities", { project: "OPS", issueType: "10002" }, "h")).options.map((o) => o.value)).toEqual(["Highest", "High"]);
    expect(env.fake.state.requests.at(-1)!.path).toMatch(/\/issue\/createmeta\/OPS\/issuetypes\/10002$/);
    expect((await load("resolutions", {}, "do")).options.map((o) => o.value)).toEqual(["Done", "Won't Do"]);
  });

  it("searches users as you type and finds one by account id", async () => {
    expect((await load("users", {}, "rav")).options).toEqual([{ value: env.fake.demo.users.ravi, label: "Ravi Patel", description: "ravi@acme.example" }]);
    expect((await load("users", {}, env.fake.demo.users.mia)).options.map((o) => o.label)).toEqual(["Mia Krystof"]);
  });

  it("lists issues most recently updated first, capped at 500", async () => {
    const site = env.fake.state.site(env.fake.demo.cloudId)!;
    const p = site.project("OPS")!;
    for (let i = 0; i < 505; i++) {
      site.createIssue(
        { projectId: p.id, issueTypeId: "10001", summary: `alert ${i}`, description: null, reporterId: env.fake.demo.users.mia, labels: [] },
        env.fake.demo.users.mia,
      );
    }
    const oldest = site.issue("OPS-1")!;
    oldest.updated = Date.now() + 60_000;
    const { options } = await load("issues", { project: "OPS" });
    expect(options).toHaveLength(ISSUE_PICKER_LIMIT);
    expect(options[0]).toMatchObject({ value: "OPS-1", label: "OPS-1 alert 0", description: "To Do" });
    expect(options[1]!.value).toBe("OPS-505");
    expect((await load("issues", { project: "OPS" }, "alert 50")).options.map((o) => o.value)).toContain("OPS-51");
    expect((await load("issues", { project: "OPS" }, "ops-7")).options.map((o) => o.value)).toEqual(["OPS-7"]);
    expect(env.fake.state.requests.some((r) => r.path.endsWith("/rest/api/3/search"))).toBe(false);
  });
});
