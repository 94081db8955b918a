/** JSON shapes of the fake Jira (IssueBean, User, StatusDetails, ...) as the v3 API returns them. */
import type { FakeComment, FakeIssue, JiraIssueType, JiraProject, JiraSite, JiraStatus } from "../site";

export const jiraTime = (ms: number) => new Date(ms).toISOString().replace("Z", "+0000");

const CATEGORIES = {
  new: { id: 2, key: "new", colorName: "blue-gray", name: "To Do" },
  indeterminate: { id: 4, key: "indeterminate", colorName: "yellow", name: "In Progress" },
  done: { id: 3, key: "done", colorName: "green", name: "Done" },
} as const;

export function userBean(site: JiraSite, accountId: string | undefined) {
  if (!accountId) return null;
  const u = site.state.users.get(accountId);
  if (!u) return null;
  return {
    self: `${site.apiBase}/user?accountId=${u.accountId}`,
    accountId: u.accountId,
    ...(u.emailAddress ? { emailAddress: u.emailAddress } : {}),
    avatarUrls: { "48x48": `${site.state.baseUrl}/avatar/${u.accountId}.png` },
    displayName: u.displayName,
    active: u.active,
    timeZone: "UTC",
    accountType: u.accountType,
  };
}

export function statusBean(site: JiraSite, status: JiraStatus) {
  const cat = CATEGORIES[status.category];
  return {
    self: `${site.apiBase}/status/${status.id}`,
    description: "",
    iconUrl: `${site.url}/images/icons/statuses/generic.png`,
    name: status.name,
    id: status.id,
    statusCategory: { self: `${site.apiBase}/statuscategory/${cat.id}`, ...cat },
  };
}

export const categoryEnum = (status: JiraStatus) => (status.category === "new" ? "TODO" : status.category === "done" ? "DONE" : "IN_PROGRESS");

export function issueTypeBean(site: JiraSite, t: JiraIssueType) {
  return {
    self: `${site.apiBase}/issuetype/${t.id}`,
    id: t.id,
    description: "",
    iconUrl: "",
    name: t.name,
    subtask: t.subtask,
    hierarchyLevel: t.hierarchyLevel,
  };
}

export function projectBean(site: JiraSite, p: JiraProject, full = false) {
  return {
    self: `${site.apiBase}/project/${p.id}`,
    id: p.id,
    key: p.key,
    name: p.name,
    projectTypeKey: "software",
    simplified: p.style === "next-gen",
    style: p.style,
    avatarUrls: { "48x48": `${site.url}/secure/projectavatar?pid=${p.id}` },
    ...(full
      ? {
          lead: userBean(site, p.leadAccountId),
          issueTypes: p.issueTypeIds.map((id) => issueTypeBean(site, site.issueTypes.get(id)!)),
        }
      : {}),
  };
}

export function commentBean(site: JiraSite, c: FakeComment) {
  return {
    self: `${site.apiBase}/issue/comment/${c.id}`,
    id: c.id,
    author: userBean(site, c.authorId),
    body: c.body,
    updateAuthor: userBean(site, c.updateAuthorId),
    created: jiraTime(c.created),
    updated: jiraTime(c.updated),
    jsdPublic: true,
  };
}

export function issueFields(site: JiraSite, i: FakeIssue) {
  const project = site.projects.get(i.projectId)!;
  const priority = site.priorities.find((p) => p.id === i.priorityId);
  const resolution = site.resolutions.find((r) => r.id === i.resolutionId);
  const parent = i.parentId ? site.issues.get(i.parentId) : undefined;
  return {
    summary: i.summary,
    description: i.description ?? null,
    issuetype: issueTypeBean(site, site.issueTypes.get(i.issueTypeId)!),
    project: projectBean(site, project),
    status: statusBean(site, site.statuses.get(i.statusId)!),
    priority: priority ? { self: `${site.apiBase}/priority/${priority.id}`, id: priority.id, name: priority.name } : null,
    assignee: userBean(site, i.assigneeId),
    reporter: userBean(site, i.reporterId),
    creator: userBean(site, i.reporterId),
    labels: i.labels,
    resolution: resolution ? { self: `${site.apiBase}/resolution/${resolution.id}`, id: resolution.id, name: resolution.name, description: "" } : null,
    resolutiondate: resolution ? jiraTime(i.updated) : null,
    created: jiraTime(i.created),
    updated: jiraTime(i.updated),
    subtasks: site.subtasks(i).map((s) => ({ id: s.id, key: s.key, self: `${site.apiBase}/issue/${s.id}` })),
    ...(parent ? { parent: { id: parent.id, key: parent.key, self: `${site.apiBase}/issue/${parent.id}` } } : {}),
    comment: { comments: i.comments.map((c) => commentBean(site, c)), maxResults: i.comments.length, total: i.comments.length, startAt: 0 },
    ...Object.fromEntries([...site.extraFields.keys()].map((k) => [k, i.extra?.[k] ?? null])),
  };
}

/** IssueBean; `fields` selects field ids (`*all`/`*navigable` = every field, `-x` excludes). */
export function issueBean(site: JiraSite, i: FakeIssue, opts: { fields?: string[]; expand?: string[] } = {}) {
  const all = issueFields(site, i) as Record<string, unknown>;
  let fields = all;
  const wanted = opts.fields?.filter(Boolean) ?? [];
  if (wanted.length && !wanted.some((f) => f === "*all" || f === "*navigable")) {
    fields = Object.fromEntries(Object.entries(all).filter(([k]) => wanted.includes(k)));
  }
  for (const f of wanted) if (f.startsWith("-")) delete fields[f.slice(1)];
  const bean: Record<string, unknown> = {
    expand: "renderedFields,names,schema,operations,editmeta,changelog,transitions",
    id: i.id,
    self: `${site.apiBase}/issue/${i.id}`,
    key: i.key,
    fields,
  };
  if (opts.expand?.includes("changelog")) {
    bean.changelog = {
      startAt: 0,
      maxResults: i.histories.length,
      total: i.histories.length,
      histories: i.histories.map((h) => ({ id: h.id, author: userBean(site, h.authorId), created: jiraTime(h.created), items: h.items })),
    };
  }
  if (opts.expand?.includes("names"))
    bean.names = Object.fromEntries(Object.keys(all).map((k) => [k, site.extraFields.get(k) ?? k[0]!.toUpperCase() + k.slice(1)]));
  return bean;
}
