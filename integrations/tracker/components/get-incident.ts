import { z } from "zod";
import { defineComponent } from "../../core/define";
import { ui } from "../../core/ui-meta";
import { jsmClient, siteProblems, type JiraIssue } from "../jsm-client";

export const incidentPickerFields = {
  project: z
    .string()
    .optional()
    .meta(
      ui({
        title: "Project",
        description: "Narrows the issue picker (without it: issues updated in the last ~90 days across projects)",
        widget: "resource",
        resource: { type: "projects" },
        order: 1,
      }),
    ),
  issue: z
    .string()
    .min(1)
    .meta(
      ui({ title: "Issue", description: "Issue key", widget: "resource", resource: { type: "incidentIssues", allowCustom: true }, expression: true, order: 2 }),
    ),
};

const user = z.object({ accountId: z.string(), displayName: z.string().optional(), emailAddress: z.string().optional() }).nullable();

export const incidentOutput = z.object({
  id: z.string(),
  key: z.string(),
  self: z.string(),
  summary: z.string(),
  status: z.string().nullable(),
  priority: z.string().nullable(),
  issueType: z.string().nullable(),
  reporter: user,
  assignee: user,
  responders: z.array(z.unknown()),
  created: z.string().nullable(),
  updated: z.string().nullable(),
  fields: z.record(z.string(), z.unknown()),
});

const nameOf = (v: unknown) => (v && typeof v === "object" && typeof (v as { name?: unknown }).name === "string" ? (v as { name: string }).name : null);
const userOf = (v: unknown) => {
  if (!v || typeof v !== "object") return null;
  const u = v as { accountId?: string; displayName?: string; emailAddress?: string };
  return u.accountId ? { accountId: u.accountId, displayName: u.displayName, ...(u.emailAddress ? { emailAddress: u.emailAddress } : {}) } : null;
};

export function toIncident(issue: JiraIssue & { names?: Record<string, string> }): z.infer<typeof incidentOutput> {
  const f = issue.fields ?? {};
  const respondersId = Object.entries(issue.names ?? {}).find(([, n]) => /^responders$/i.test(n))?.[0];
  const responders = respondersId && Array.isArray(f[respondersId]) ? (f[respondersId] as unknown[]) : [];
  return {
    id: String(issue.id),
    key: issue.key,
    self: issue.self,
    summary: String(f.summary ?? ""),
    status: nameOf(f.status),
    priority: nameOf(f.priority),
    issueType: nameOf(f.issuetype),
    reporter: userOf(f.reporter),
    assignee: userOf(f.assignee),
    responders,
    created: typeof f.created === "string" ? f.created : null,
    updated: typeof f.updated === "string" ? f.updated : null,
    fields: f,
  };
}

export const getIncident = defineComponent({
  key: "tracker.getIncident",
  title: "Get Incident",
  description: "Reads an incident by issue key (a numeric issue id works too).",
  config: z.object(incidentPickerFields),
  outputType: "tracker.incident.fetched",
  output: incidentOutput,
  example: {
    id: "10042",
    key: "SD-42",
    self: "https://api.atlassian.com/ex/jira/1324a887-45db-1bf4-1e99-ef0ff456d421/rest/api/3/issue/10042",
    summary: "HighLatency firing on a:9100",
    status: "To Do",
    priority: "High",
    issueType: "Incident",
    reporter: { accountId: "5b10ac8d82e05b22cc7d4ef5", displayName: "Mia Krystof" },
    assignee: null,
    responders: [],
    created: "2026-05-01T10:00:00.000+0000",
    updated: "2026-05-01T10:00:00.000+0000",
    fields: { summary: "HighLatency firing on a:9100" },
  },
  validate: (_c, { connection }) => siteProblems(connection),
  async run(ctx) {
    const jsm = jsmClient(ctx.connection, ctx.http);
    return ctx.emit(toIncident(await jsm.getIncidentIssue(ctx.config.issue.trim(), "names")));
  },
});
