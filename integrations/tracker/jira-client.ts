/**
 * Jira Cloud platform REST v3 client over the Atlassian API gateway:
 * `{apiBaseUrl}/ex/jira/{cloudId}/rest/api/3/...` with the connection's OAuth bearer token, one refresh on 401
 * (a refused refresh raises ConnectionAuthError: "needs reconnect"), and Atlassian's `{errorMessages, errors}`
 * turned into readable messages. Knows URLs and wire formats, nothing about automations.
 */
import type { ConnectionHandle } from "../core/define";
import { ConnectionAuthError, NonRetryableError } from "../core/errors";
import type { HttpClient } from "../core/http";
import { apiBaseOf, type TrackerConnection } from "./connection";

export interface JiraUser {
  accountId: string;
  displayName: string;
  emailAddress?: string;
  active?: boolean;
  accountType?: string;
}
export interface JiraStatusRef {
  id: string;
  name: string;
  statusCategory?: { key: string; name?: string };
}
export interface JiraIssue {
  id: string;
  key: string;
  self: string;
  fields: Record<string, unknown> & {
    status?: JiraStatusRef;
    project?: { id: string; key: string; name?: string };
    issuetype?: { id: string; name: string };
    subtasks?: Array<{ id: string; key: string }>;
  };
  [k: string]: unknown;
}
export interface JiraTransition {
  id: string;
  name: string;
  to: JiraStatusRef;
  hasScreen?: boolean;
  fields?: Record<string, unknown>;
}
export interface JiraProject {
  id: string;
  key: string;
  name: string;
  simplified?: boolean;
  style?: string;
}
export interface JiraComment {
  id: string;
  body: unknown;
  author?: JiraUser;
  updateAuthor?: JiraUser;
  created?: string;
  updated?: string;
}
export interface DynamicWebhookSpec {
  events: string[];
  jqlFilter: string;
  fieldIdsFilter?: string[];
}
export interface RegisteredWebhook {
  id: number;
  url: string;
  events: string[];
  jqlFilter: string;
  expirationDate?: number | string;
}

/** Atlassian's error bodies: `{errorMessages: [], errors: {field: msg}}`, gateway `{code, message}`, OAuth `{error, error_description}`. */
export function describeJiraError(status: number, body: unknown): string | undefined {
  if (!body || typeof body !== "object") return typeof body === "string" && body.trim() ? body.trim().slice(0, 500) : undefined;
  const b = body as Record<string, unknown>;
  const parts: string[] = [];
  if (Array.isArray(b.errorMessages)) parts.push(...(b.errorMessages as unknown[]).map(String));
  if (b.errors && typeof b.errors === "object" && !Array.isArray(b.errors)) {
    for (const [k, v] of Object.entries(b.errors as Record<string, unknown>)) parts.push(`${k}: ${String(v)}`);
  }
  if (typeof b.message === "string") parts.push(b.message);
  if (typeof b.error_description === "string") parts.push(b.error_description);
  else if (typeof b.error === "string") parts.push(b.error);
  if (status === 404 && !parts.length) parts.push("not found");
  return parts.length ? parts.join("; ") : undefined;
}

/** The step error of every tracker call once Atlassian refused the refresh (grant revoked): the same for Jira, JSM and JSM Ops. */
export const REFRESH_REFUSED = "Atlassian refused to refresh the tracker connection's token: the connection needs reconnect.";

export function cloudIdOf(conn: ConnectionHandle): string {
  const id = conn.state?.cloudId;
  if (typeof id !== "string" || !id) throw new NonRetryableError("The tracker connection has no Jira site yet: reconnect it and choose a site.");
  return id;
}

/** Authenticated HTTP client rooted at the Jira REST v3 base of the connection's site. */
export function jiraHttp(conn: ConnectionHandle, http: HttpClient): HttpClient {
  const config = conn.config as Partial<TrackerConnection>;
  const oauth = conn.oauth;
  if (!oauth) throw new ConnectionAuthError("The tracker connection is not authorised: connect it first.");
  return http.with({
    baseUrl: `${apiBaseOf(config)}/ex/jira/${cloudIdOf(conn)}/rest/api/3`,
    auth: async () => ({ authorization: `Bearer ${await oauth.getAccessToken()}` }),
    onUnauthorized: async () => {
      if (await oauth.refresh()) return true;
      throw new ConnectionAuthError(REFRESH_REFUSED);
    },
    describeError: describeJiraError,
  });
}

const enc = encodeURIComponent;

export function jiraClient(conn: ConnectionHandle, http: HttpClient) {
  const h = jiraHttp(conn, http);
  const body = <T>(p: Promise<{ body: T }>) => p.then((r) => r.body);
  return {
    http: h,
    myself: () => body(h.get<JiraUser>("myself")),
    createIssue: (payload: Record<string, unknown>) => body(h.post<{ id: string; key: string; self: string }>("issue", payload)),
    getIssue: (key: string, query: { expand?: string; fields?: string } = {}) => body(h.get<JiraIssue>(`issue/${enc(key)}`, query)),
    editIssue: (key: string, payload: Record<string, unknown>, notifyUsers?: boolean) =>
      h.request({ method: "PUT", url: `issue/${enc(key)}`, json: payload, query: { notifyUsers } }).then(() => undefined),
    deleteIssue: (key: string, deleteSubtasks: boolean) =>
      h.request({ method: "DELETE", url: `issue/${enc(key)}`, query: { deleteSubtasks: String(deleteSubtasks) } }).then(() => undefined),
    transitions: (key: string) =>
      body(h.get<{ transitions: JiraTransition[] }>(`issue/${enc(key)}/transitions`, { expand: "transitions.fields" })).then((b) => b.transitions ?? []),
    transition: (key: string, payload: Record<string, unknown>) => h.post(`issue/${enc(key)}/transitions`, payload).then(() => undefined),
    addComment: (key: string, adf: unknown) => body(h.post<JiraComment>(`issue/${enc(key)}/comment`, { body: adf })),
    searchJql: (query: { jql: string; fields?: string; maxResults?: number; nextPageToken?: string }) =>
      body(h.get<{ issues: JiraIssue[]; nextPageToken?: string; isLast?: boolean }>("search/jql", query)),
    searchProjects: (query: { query?: string; startAt?: number; maxResults?: number }) =>
      body(h.get<{ values: JiraProject[]; isLast?: boolean; total?: number; startAt: number }>("project/search", { orderBy: "key", ...query })),
    project: (key: string) => body(h.get<JiraProject>(`project/${enc(key)}`)),
    issueTypes: (projectKey: string) =>
      body(
        h.get<{ issueTypes: Array<{ id: string; name: string; subtask: boolean }> }>(`issue/createmeta/${enc(projectKey)}/issuetypes`, { maxResults: 200 }),
      ).then((b) => b.issueTypes ?? []),
    projectStatuses: (projectKey: string) => body(h.get<Array<{ id: string; name: string; statuses: JiraStatusRef[] }>>(`project/${enc(projectKey)}/statuses`)),
    statuses: () => body(h.get<JiraStatusRef[]>("status")),
    searchUsers: (query: { query?: string; accountId?: string; maxResults?: number }) => body(h.get<JiraUser[]>("user/search", query)),
    createFields: (projectKey: string, issueTypeId: string) =>
      body(
        h.get<{ fields: Array<{ fieldId: string; allowedValues?: Array<{ id: string; name: string }> }> }>(
          `issue/createmeta/${enc(projectKey)}/issuetypes/${enc(issueTypeId)}`,
          { maxResults: 200 },
        ),
      ).then((b) => b.fields ?? []),
    /** Deprecated upstream (CHANGE-1655); only used when no project is known. */
    priorities: () => body(h.get<{ values: Array<{ id: string; name: string }> }>("priority/search", { maxResults: 100 })).then((b) => b.values ?? []),
    resolutions: () => body(h.get<{ values: Array<{ id: string; name: string }> }>("resolution/search", { maxResults: 100 })).then((b) => b.values ?? []),
    workflowSchemeOf: (projectId: string) =>
      body(
        h.get<{
          values: Array<{
            projectIds: string[];
            workflowScheme: { id?: number; name: string; defaultWorkflow?: string; issueTypeMappings?: Record<string, string> };
          }>;
        }>("workflowscheme/project", { projectId }),
      ).then((b) => b.values?.[0]?.workflowScheme),
    readWorkflows: (names: string[]) =>
      body(
        h.post<{
          workflows: Array<{ id: string; name: string; statuses: Array<{ statusReference: string }> }>;
          statuses: Array<{ id: string; name: string; statusCategory: string; statusReference: string }>;
        }>("workflows", { workflowNames: names }),
      ),
    registerWebhooks: (url: string, webhooks: DynamicWebhookSpec[]) =>
      body(h.post<{ webhookRegistrationResult: Array<{ createdWebhookId?: number; errors?: string[] }> }>("webhook", { url, webhooks })).then(
        (b) => b.webhookRegistrationResult ?? [],
      ),
    listWebhooks: async () => {
      const all: RegisteredWebhook[] = [];
      for (let startAt = 0; ; ) {
        const page = await body(h.get<{ values: RegisteredWebhook[]; isLast?: boolean }>("webhook", { startAt, maxResults: 100 }));
        all.push(...(page.values ?? []));
        if (page.isLast !== false || !page.values?.length) return all;
        startAt += page.values.length;
      }
    },
    deleteWebhooks: (webhookIds: number[]) => h.request({ method: "DELETE", url: "webhook", json: { webhookIds } }).then(() => undefined),
    refreshWebhooks: (webhookIds: number[]) =>
      body(h.request<{ expirationDate: number | string }>({ method: "PUT", url: "webhook/refresh", json: { webhookIds } })),
  };
}

export type JiraClient = ReturnType<typeof jiraClient>;

/** Webhook expiry as epoch ms (the spec says int64, examples show ISO strings: accept both). */
export function expiryMs(v: number | string | undefined): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "number") return v;
  const n = Number(v);
  if (Number.isFinite(n)) return n;
  const t = Date.parse(v.replace(/([+-]\d{2})(\d{2})$/, "$1:$2"));
  return Number.isNaN(t) ? undefined : t;
}
