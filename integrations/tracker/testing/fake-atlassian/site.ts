/**
 * One Atlassian site (cloud id) of the fake: Jira configuration (projects, issue types, statuses,
 * workflows, schemes, priorities, resolutions), issues with comments and subtasks, and dynamic webhooks.
 * Every change raises an `IssueEvent` that `webhooks.ts` turns into real webhook POSTs.
 */
import type { FakeAtlassianState } from "./state";

export type CategoryKey = "new" | "indeterminate" | "done";
export interface JiraStatus {
  id: string;
  name: string;
  category: CategoryKey;
}
export interface JiraIssueType {
  id: string;
  name: string;
  subtask: boolean;
  hierarchyLevel: number;
}
export interface JiraTransition {
  id: string;
  name: string;
  to: string;
  /** Source statuses; undefined = global (from any status). */
  from?: string[];
  /** Workflow condition: false hides the transition from the caller (as Jira does). */
  condition?: (issue: FakeIssue, accountId: string) => boolean;
  /** Workflow validator: a message rejects the transition with 400. */
  validator?: (issue: FakeIssue, fields: Record<string, unknown>) => string | undefined;
  /** Fields on the transition screen (others are refused with 400). */
  screen?: string[];
}
export interface JiraWorkflow {
  id: string;
  name: string;
  initial: string;
  statuses: string[];
  transitions: JiraTransition[];
}
export interface WorkflowScheme {
  id?: number;
  name: string;
  defaultWorkflow: string;
  issueTypeMappings: Record<string, string>;
}
export interface JiraProject {
  id: string;
  key: string;
  name: string;
  style: "classic" | "next-gen";
  issueTypeIds: string[];
  /** Company-managed: the scheme. Team-managed projects have none. */
  scheme?: WorkflowScheme;
  /** Team-managed: project-scoped workflow per issue type id (fallback "*"). */
  teamWorkflows?: Record<string, string>;
  leadAccountId: string;
  /** Fields left off the project's create screen: a create setting one is refused ("cannot be set"). */
  offCreateScreen?: string[];
}
export interface FakeComment {
  id: string;
  body: unknown;
  authorId: string;
  updateAuthorId: string;
  created: number;
  updated: number;
}
export interface FakeIssue {
  id: string;
  key: string;
  projectId: string;
  summary: string;
  description: unknown;
  issueTypeId: string;
  statusId: string;
  priorityId?: string;
  assigneeId?: string;
  reporterId: string;
  labels: string[];
  resolutionId?: string;
  parentId?: string;
  created: number;
  updated: number;
  comments: FakeComment[];
  histories: Array<{ id: string; authorId: string; created: number; items: ChangeItem[] }>;
  /** Values of `JiraSite.extraFields` (due date, time tracking, site custom fields). */
  extra?: Record<string, unknown>;
}
export interface ChangeItem {
  field: string;
  fieldtype: string;
  fieldId: string;
  from: string | null;
  fromString: string | null;
  to: string | null;
  toString: string | null;
}
export interface DynamicWebhook {
  id: number;
  clientId: string;
  ownerAccountId: string;
  url: string;
  events: string[];
  jqlFilter: string;
  fieldIdsFilter?: string[];
  expiresAt: number;
}

export interface IssueEvent {
  webhookEvent: string;
  issueEventTypeName?: string;
  /** Snapshot of the issue (as before deletion for deletes). */
  issue: FakeIssue;
  accountId: string;
  changelog?: { id: string; items: ChangeItem[] };
  comment?: FakeComment;
  timestamp: number;
}

export class JiraSite {
  members = new Set<string>();
  /** Jira administrators (may read workflow schemes). */
  admins = new Set<string>();
  projects = new Map<string, JiraProject>();
  issueTypes = new Map<string, JiraIssueType>();
  statuses = new Map<string, JiraStatus>();
  workflows = new Map<string, JiraWorkflow>();
  priorities: Array<{ id: string; name: string; isDefault?: boolean }> = [];
  resolutions: Array<{ id: string; name: string }> = [];
  issues = new Map<string, FakeIssue>();
  webhooks = new Map<number, DynamicWebhook>();
  /** Site-specific settable fields beyond the built-in ones: field id → display name. */
  extraFields = new Map<string, string>();
  private seq = { issue: 10000, comment: 10000, history: 10000, webhook: 1000 };
  private keySeq = new Map<string, number>();

  constructor(
    readonly state: FakeAtlassianState,
    readonly cloudId: string,
    readonly name: string,
  ) {}

  get url() {
    return `https://${this.name}.atlassian.net`;
  }

  get apiBase() {
    return `${this.state.baseUrl}/ex/jira/${this.cloudId}/rest/api/3`;
  }

  nextId(kind: keyof JiraSite["seq"]): number {
    return ++this.seq[kind];
  }

  project(idOrKey: string): JiraProject | undefined {
    return this.projects.get(idOrKey) ?? [...this.projects.values()].find((p) => p.key === idOrKey.toUpperCase());
  }

  issue(idOrKey: string): FakeIssue | undefined {
    return this.issues.get(idOrKey) ?? [...this.issues.values()].find((i) => i.key === idOrKey.toUpperCase());
  }

  subtasks(issue: FakeIssue): FakeIssue[] {
    return [...this.issues.values()].filter((i) => i.parentId === issue.id);
  }

  workflowFor(project: JiraProject, issueTypeId: string): JiraWorkflow {
    const name = project.scheme
      ? (project.scheme.issueTypeMappings[issueTypeId] ?? project.scheme.defaultWorkflow)
      : (project.teamWorkflows?.[issueTypeId] ?? project.teamWorkflows?.["*"]);
    const wf = name ? this.workflows.get(name) : undefined;
    if (!wf) throw new Error(`fake: no workflow for ${project.key}/${issueTypeId}`);
    return wf;
  }

  /** Transitions the caller may run now (conditions applied). */
  availableTransitions(issue: FakeIssue, accountId: string): JiraTransition[] {
    const wf = this.workflowFor(this.projects.get(issue.projectId)!, issue.issueTypeId);
    return wf.transitions.filter((t) => (!t.from || t.from.includes(issue.statusId)) && (!t.condition || t.condition(issue, accountId)));
  }

  createIssue(input: Omit<FakeIssue, "id" | "key" | "created" | "updated" | "comments" | "histories" | "statusId">, accountId: string): FakeIssue {
    const project = this.projects.get(input.projectId)!;
    const n = (this.keySeq.get(project.key) ?? 0) + 1;
    this.keySeq.set(project.key, n);
    const now = this.state.now().getTime();
    const issue: FakeIssue = {
      ...input,
      id: String(this.nextId("issue")),
      key: `${project.key}-${n}`,
      statusId: this.workflowFor(project, input.issueTypeId).initial,
      created: now,
      updated: now,
      comments: [],
      histories: [],
    };
    this.issues.set(issue.id, issue);
    this.raise({ webhookEvent: "jira:issue_created", issueEventTypeName: "issue_created", issue, accountId });
    return issue;
  }

  /** Applies field changes, records a changelog entry and raises `jira:issue_updated` when something changed. */
  change(issue: FakeIssue, items: ChangeItem[], accountId: string, eventType = "issue_updated") {
    if (!items.length) return;
    issue.updated = this.state.now().getTime();
    const history = { id: String(this.nextId("history")), authorId: accountId, created: issue.updated, items };
    issue.histories.push(history);
    this.raise({ webhookEvent: "jira:issue_updated", issueEventTypeName: eventType, issue, accountId, changelog: { id: history.id, items } });
  }

  deleteIssue(issue: FakeIssue, accountId: string) {
    for (const sub of this.subtasks(issue)) this.deleteIssue(sub, accountId);
    this.issues.delete(issue.id);
    this.raise({ webhookEvent: "jira:issue_deleted", issueEventTypeName: "issue_deleted", issue, accountId });
  }

  addComment(issue: FakeIssue, body: unknown, accountId: string): FakeComment {
    const now = this.state.now().getTime();
    const comment: FakeComment = { id: String(this.nextId("comment")), body, authorId: accountId, updateAuthorId: accountId, created: now, updated: now };
    issue.comments.push(comment);
    issue.updated = now;
    this.raise({ webhookEvent: "comment_created", issue, accountId, comment });
    this.raise({ webhookEvent: "jira:issue_updated", issueEventTypeName: "issue_commented", issue, accountId, comment });
    return comment;
  }

  editComment(issue: FakeIssue, comment: FakeComment, body: unknown, accountId: string) {
    comment.body = body;
    comment.updateAuthorId = accountId;
    comment.updated = this.state.now().getTime();
    this.raise({ webhookEvent: "comment_updated", issue, accountId, comment });
    this.raise({ webhookEvent: "jira:issue_updated", issueEventTypeName: "issue_comment_edited", issue, accountId, comment });
  }

  deleteComment(issue: FakeIssue, comment: FakeComment, accountId: string) {
    issue.comments = issue.comments.filter((c) => c !== comment);
    this.raise({ webhookEvent: "comment_deleted", issue, accountId, comment });
    this.raise({ webhookEvent: "jira:issue_updated", issueEventTypeName: "issue_comment_deleted", issue, accountId, comment });
  }

  private raise(event: Omit<IssueEvent, "timestamp">) {
    const snapshot = structuredClone(event.issue);
    this.state.emit(this, { ...event, issue: snapshot, timestamp: this.state.now().getTime() });
  }
}
