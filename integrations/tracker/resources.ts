/**
 * Pickers of the Jira components and triggers: projects, issue types (of the chosen project), statuses,
 * users (search as you type; an account id finds that user), priorities, resolutions and issues (most
 * recently updated first, at most 500, through the current `/search/jql`).
 */
import type { ResourceLoader, ResourceOption } from "../core/define";
import { jiraClient } from "./jira-client";

export const ISSUE_PICKER_LIMIT = 500;
const PAGE = 100;

const projectOf = (config: Record<string, unknown>) => (typeof config.project === "string" && config.project.trim() ? config.project.trim() : undefined);
const matches = (search: string | undefined, ...texts: string[]) => !search || texts.some((t) => t.toLowerCase().includes(search.toLowerCase()));
/** JQL string literal. */
export const jqlString = (v: string) => `"${v.replace(/["\\]/g, "\\$&")}"`;

const projects: ResourceLoader = async ({ connection, http, search, cursor }) => {
  const startAt = Number(cursor ?? 0);
  const page = await jiraClient(connection, http).searchProjects({ query: search || undefined, startAt, maxResults: 50 });
  const values = page.values ?? [];
  return {
    options: values.map((p) => ({ value: p.key, label: `${p.name} (${p.key})`, description: p.simplified ? "Team-managed" : "Company-managed" })),
    nextCursor: page.isLast === false && values.length ? String(startAt + values.length) : null,
  };
};

const issueTypesOf =
  (withSubtasks: boolean): ResourceLoader =>
  async ({ connection, http, config, search }) => {
    const project = projectOf(config);
    if (!project) return { options: [] };
    const types = await jiraClient(connection, http).issueTypes(project);
    return {
      options: types
        .filter((t) => (withSubtasks || !t.subtask) && matches(search, t.name))
        .map((t) => ({ value: t.id, label: t.name, description: t.subtask ? "Sub-task" : undefined })),
    };
  };
const issueTypes = issueTypesOf(true);
/** Create Issue sets no parent, without which Jira refuses every sub-task type ("parent: Given parent work item…"). */
const creatableIssueTypes = issueTypesOf(false);

const statuses: ResourceLoader = async ({ connection, http, config, search }) => {
  const client = jiraClient(connection, http);
  const project = projectOf(config);
  const list = project ? (await client.projectStatuses(project)).flatMap((t) => t.statuses) : await client.statuses();
  const seen = new Map<string, ResourceOption>();
  for (const s of list) {
    if (!seen.has(s.name.toLowerCase()) && matches(search, s.name))
      seen.set(s.name.toLowerCase(), { value: s.name, label: s.name, description: s.statusCategory?.name });
  }
  return { options: [...seen.values()] };
};

const users: ResourceLoader = async ({ connection, http, search }) => {
  const term = search?.trim();
  const client = jiraClient(connection, http);
  // An account id (24 hex chars, or "<digits>:<uuid>") finds that user; anything else searches names/emails.
  const looksLikeId = term && (/^[0-9a-f]{24}$/i.test(term) || /^\d+:[0-9a-f-]+/i.test(term));
  const found = await client.searchUsers(looksLikeId ? { accountId: term, maxResults: 20 } : { query: term ?? "", maxResults: 20 });
  return {
    options: found
      .filter((u) => (u.accountType ?? "atlassian") === "atlassian")
      .map((u) => ({ value: u.accountId, label: u.displayName, description: u.emailAddress ?? u.accountId })),
  };
};

/**
 * Priorities allowed for the project's issue type (create metadata, the non-deprecated per-project source);
 * without a project, the site-wide list (`/priority/search`, flagged deprecated upstream, UPSTREAM §D.11).
 */
const priorities: ResourceLoader = async ({ connection, http, config, search }) => {
  const client = jiraClient(connection, http);
  const project = projectOf(config);
  let list: Array<{ id: string; name: string }>;
  if (project) {
    const types = await client.issueTypes(project);
    const chosen = typeof config.issueType === "string" ? types.find((t) => t.id === config.issueType || t.name === config.issueType) : undefined;
    const type = chosen ?? types.find((t) => !t.subtask) ?? types[0];
    list = type ? ((await client.createFields(project, type.id)).find((f) => f.fieldId === "priority")?.allowedValues ?? []) : [];
  } else list = await client.priorities();
  return { options: list.filter((p) => matches(search, p.name)).map((p) => ({ value: p.name, label: p.name })) };
};

const resolutions: ResourceLoader = async ({ connection, http, search }) => ({
  options: (await jiraClient(connection, http).resolutions()).filter((r) => matches(search, r.name)).map((r) => ({ value: r.name, label: r.name })),
});

const issues: ResourceLoader = async ({ connection, http, config, search }) => {
  const client = jiraClient(connection, http);
  const project = projectOf(config);
  const term = search?.trim();
  const clauses = [project ? `project = ${jqlString(project)}` : "updated >= -90d"];
  if (term) clauses.push(/^[A-Z][A-Z0-9_]*-\d+$/i.test(term) ? `key = ${jqlString(term.toUpperCase())}` : `summary ~ ${jqlString(term)}`);
  const jql = `${clauses.join(" AND ")} ORDER BY updated DESC`;
  const options: ResourceOption[] = [];
  let nextPageToken: string | undefined;
  while (options.length < ISSUE_PICKER_LIMIT) {
    const page = await client.searchJql({ jql, fields: "summary,status", maxResults: Math.min(PAGE, ISSUE_PICKER_LIMIT - options.length), nextPageToken });
    for (const i of page.issues ?? []) {
      const f = i.fields as { summary?: string; status?: { name: string } };
      options.push({ value: i.key, label: `${i.key} ${f.summary ?? ""}`.trim(), description: f.status?.name });
    }
    nextPageToken = page.nextPageToken;
    if (!nextPageToken || !page.issues?.length) break;
  }
  return { options: options.slice(0, ISSUE_PICKER_LIMIT) };
};

export const jiraResources: Record<string, ResourceLoader> = { projects, issueTypes, creatableIssueTypes, statuses, users, priorities, resolutions, issues };
