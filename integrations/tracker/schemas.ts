/** Output schemas, examples and config fields shared by the Jira components and triggers. */
import { z } from "zod";
import { ui } from "../core/ui-meta";

export const userSchema = z.looseObject({
  accountId: z.string(),
  displayName: z.string().optional(),
  emailAddress: z.string().optional(),
});

const named = z.looseObject({ name: z.string() });

export const issueFieldsSchema = z.looseObject({
  summary: z.string().optional(),
  created: z.string().optional(),
  updated: z.string().optional(),
  issuetype: named.optional(),
  labels: z.array(z.string()).optional(),
  priority: named.nullable().optional(),
  project: z.looseObject({ id: z.string(), key: z.string(), name: z.string().optional() }).optional(),
  status: z.looseObject({ name: z.string(), statusCategory: z.looseObject({ key: z.string(), name: z.string().optional() }).optional() }).optional(),
  assignee: userSchema.nullable().optional(),
  reporter: userSchema.nullable().optional(),
  resolution: named.nullable().optional(),
});

export const issueSchema = z.looseObject({
  id: z.string(),
  key: z.string(),
  self: z.string(),
  fields: issueFieldsSchema,
});
export type IssueOutput = z.output<typeof issueSchema>;

const exampleUser = { accountId: "5b10ac8d82e05b22cc7d4ef5", displayName: "Mia Krystof", emailAddress: "mia@example.com" };

export const exampleIssue: IssueOutput = {
  id: "10002",
  key: "OPS-24",
  self: "https://api.atlassian.com/ex/jira/1324a887-45db-1bf4-1e99-ef0ff456d421/rest/api/3/issue/10002",
  fields: {
    summary: "[FIRING] HighLatency on api-1",
    created: "2026-05-01T09:50:12.000+0000",
    updated: "2026-05-01T09:55:40.000+0000",
    issuetype: { id: "10004", name: "Incident" },
    labels: ["alertmanager"],
    priority: { id: "2", name: "High" },
    project: { id: "10000", key: "OPS", name: "Operations" },
    status: { id: "10001", name: "In Progress", statusCategory: { key: "indeterminate", name: "In Progress" } },
    assignee: exampleUser,
    reporter: exampleUser,
    resolution: null,
  },
};
export { exampleUser };

/** Issue as Conveyor emits it: id, key, self, fields (plus expanded parts when asked for). */
export function toIssueOutput(issue: { id: string; key: string; self: string; fields?: Record<string, unknown> } & Record<string, unknown>): IssueOutput {
  const { expand: _expand, ...rest } = issue;
  return { ...rest, id: issue.id, key: issue.key, self: issue.self, fields: (issue.fields ?? {}) as IssueOutput["fields"] };
}

const projectBase = (expression: boolean) =>
  z
    .string()
    .trim()
    .meta(
      ui({
        title: "Project",
        widget: "resource",
        resource: { type: "projects", allowCustom: true },
        expression,
        order: 1,
        description: "Project key, e.g. OPS",
      }),
    );
export const projectField = () => projectBase(true).min(1, "Choose a project");
export const optionalProjectField = () => projectBase(true).optional();
/** Triggers match deliveries against a fixed project (no expressions: there is no run yet). */
export const triggerProjectField = () => projectBase(false).min(1, "Choose a project");

export const issueKeyField = () =>
  z
    .string()
    .trim()
    .min(1, "Enter an issue key")
    .meta(
      ui({
        title: "Issue Key",
        widget: "resource",
        resource: { type: "issues", dependsOn: ["project"], allowCustom: true },
        expression: true,
        order: 2,
        placeholder: "OPS-123",
      }),
    );

export const eventsField = () =>
  z
    .array(z.enum(["created", "updated", "deleted"]))
    .min(1, "Choose at least one event")
    .default(["created"])
    .meta(ui({ title: "Events", widget: "multiselect", enumLabels: { created: "Created", updated: "Updated", deleted: "Deleted" }, order: 2 }));

/** Service desk of Create Incident and On Incident: one picker, the project key stored (a desk id typed by hand also works). */
export const serviceDeskField = () =>
  z
    .string()
    .trim()
    .min(1, "Choose a service desk")
    .meta(
      ui({
        title: "Service desk",
        description: "Stored as the desk's project key; a desk id, projectKey:ABC or projectId:10012 also works",
        widget: "resource",
        resource: { type: "serviceDesks", allowCustom: true },
        order: 1,
      }),
    );
