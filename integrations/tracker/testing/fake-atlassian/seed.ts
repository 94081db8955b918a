/**
 * Demo data of the fake Atlassian: one OAuth app, three users, site "acme" with a company-managed project
 * OPS (workflow scheme, conditions and validators) and a team-managed project TEAM (no scheme), and
 * optionally a second site "globex" (several accessible resources).
 */
import type { FakeAtlassianState } from "./state";

export const DEMO = {
  clientId: "conveyor-demo-client",
  clientSecret: "conveyor-demo-secret",
  cloudId: "1324a887-45db-1bf4-1e99-ef0ff456d421",
  siteName: "acme",
  otherCloudId: "b6f1c0de-2f3a-4c5d-9e8f-0a1b2c3d4e5f",
  users: {
    mia: "5b10ac8d82e05b22cc7d4ef5",
    ravi: "5b10a2844c20165700ede21g",
    lee: "712020:3f1e2d3c-lee",
  },
  statuses: { todo: "10000", inProgress: "10001", inReview: "10002", done: "10003", closed: "10004", backlog: "10010", doing: "10011", shipped: "10012" },
  issueTypes: { task: "10001", bug: "10002", subtask: "10003", incident: "10004", teamTask: "10020" },
  projects: { ops: "10000", team: "10020" },
} as const;

export function seedDemo(state: FakeAtlassianState, opts: { secondSite?: boolean } = {}) {
  const { users: U, statuses: S, issueTypes: T } = DEMO;
  state.addApp({ clientId: DEMO.clientId, clientSecret: DEMO.clientSecret, name: "Conveyor (demo)" });
  state.addUser({ accountId: U.mia, displayName: "Mia Krystof", emailAddress: "mia@acme.example" });
  state.addUser({ accountId: U.ravi, displayName: "Ravi Patel", emailAddress: "ravi@acme.example" });
  state.addUser({ accountId: U.lee, displayName: "Lee Chen" });
  state.consentAccountId = U.mia;

  const site = state.addSite(DEMO.cloudId, DEMO.siteName);
  for (const id of Object.values(U)) site.members.add(id);
  site.admins.add(U.mia);
  const statuses: Array<[string, string, "new" | "indeterminate" | "done"]> = [
    [S.todo, "To Do", "new"],
    [S.inProgress, "In Progress", "indeterminate"],
    [S.inReview, "In Review", "indeterminate"],
    [S.done, "Done", "done"],
    [S.closed, "Closed", "done"],
    [S.backlog, "Backlog", "new"],
    [S.doing, "Doing", "indeterminate"],
    [S.shipped, "Shipped", "done"],
  ];
  for (const [id, name, category] of statuses) site.statuses.set(id, { id, name, category });
  const types: Array<[string, string, boolean, number]> = [
    [T.task, "Task", false, 0],
    [T.bug, "Bug", false, 0],
    [T.subtask, "Sub-task", true, -1],
    [T.incident, "Incident", false, 0],
    [T.teamTask, "Task", false, 0],
  ];
  for (const [id, name, subtask, hierarchyLevel] of types) site.issueTypes.set(id, { id, name, subtask, hierarchyLevel });
  site.priorities = [
    { id: "1", name: "Highest" },
    { id: "2", name: "High" },
    { id: "3", name: "Medium", isDefault: true },
    { id: "4", name: "Low" },
    { id: "5", name: "Lowest" },
  ];
  site.resolutions = [
    { id: "10000", name: "Done" },
    { id: "10001", name: "Won't Do" },
    { id: "10002", name: "Duplicate" },
  ];

  site.workflows.set("Ops Workflow", {
    id: "a1b2c3d4-0001",
    name: "Ops Workflow",
    initial: S.todo,
    statuses: [S.todo, S.inProgress, S.inReview, S.done, S.closed],
    transitions: [
      { id: "11", name: "Start Progress", from: [S.todo], to: S.inProgress, screen: ["comment"] },
      { id: "21", name: "Request Review", from: [S.inProgress], to: S.inReview, screen: ["comment"] },
      {
        id: "31",
        name: "Done",
        to: S.done,
        screen: ["resolution", "comment"],
        validator: (_issue, fields) => (fields.resolution ? undefined : "A resolution is required to finish this issue."),
      },
      { id: "41", name: "Reopen", from: [S.done, S.closed], to: S.todo, screen: ["comment"] },
      // Condition: only the assignee may close a reviewed issue (hidden from everybody else).
      { id: "51", name: "Close", from: [S.inReview], to: S.closed, screen: ["resolution", "comment"], condition: (issue, who) => issue.assigneeId === who },
    ],
  });
  site.workflows.set("Team Workflow", {
    id: "a1b2c3d4-0002",
    name: "Team Workflow",
    initial: S.backlog,
    statuses: [S.backlog, S.doing, S.shipped],
    transitions: [
      { id: "101", name: "Backlog", to: S.backlog },
      { id: "111", name: "Doing", to: S.doing },
      { id: "121", name: "Shipped", to: S.shipped, screen: ["resolution", "comment"] },
    ],
  });
  site.projects.set(DEMO.projects.ops, {
    id: DEMO.projects.ops,
    key: "OPS",
    name: "Operations",
    style: "classic",
    issueTypeIds: [T.task, T.bug, T.subtask, T.incident],
    scheme: { id: 10100, name: "OPS Workflow Scheme", defaultWorkflow: "Ops Workflow", issueTypeMappings: { [T.bug]: "Ops Workflow" } },
    leadAccountId: U.mia,
  });
  site.projects.set(DEMO.projects.team, {
    id: DEMO.projects.team,
    key: "TEAM",
    name: "Team Space",
    style: "next-gen",
    issueTypeIds: [T.teamTask],
    teamWorkflows: { "*": "Team Workflow" },
    leadAccountId: U.mia,
  });

  if (opts.secondSite) {
    const other = state.addSite(DEMO.otherCloudId, "globex");
    other.members.add(U.mia);
  }
  return site;
}
