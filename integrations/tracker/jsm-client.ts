/**
 * Jira Service Management client (`{apiBase}/ex/jira/{cloudId}/rest/servicedeskapi/...`, UPSTREAM.md §E)
 * plus the few Jira platform calls incidents need (an incident is a Jira issue on an incident request type).
 */
import type { ConnectionHandle } from "../core/define";
import { IntegrationHttpError, NonRetryableError } from "../core/errors";
import type { HttpClient } from "../core/http";
import { apiBaseOf, atlassianHttp, cloudIdOf } from "./ops-client";

type Conn = ConnectionHandle<Record<string, unknown>>;

export interface Page<T> {
  values: T[];
  isLastPage?: boolean;
  start?: number;
  limit?: number;
  size?: number;
}
export interface ServiceDesk {
  id: string;
  projectId: string;
  projectKey: string;
  projectName: string;
}
export interface RequestType {
  id: string;
  name: string;
  description?: string;
  issueTypeId: string;
  serviceDeskId: string;
  practice?: string;
}
export interface RequestTypeField {
  fieldId: string;
  name: string;
  required: boolean;
  validValues?: Array<{ value: string; label: string }>;
}
export interface UserRef {
  accountId: string;
  displayName?: string;
  emailAddress?: string;
}
export interface Approval {
  id: string;
  name: string;
  finalDecision: string;
  canAnswerApproval?: boolean;
  approvers: Array<{ approver: UserRef; approverDecision: string }>;
  createdDate?: { iso8601: string; jira: string };
  completedDate?: { iso8601: string; jira: string };
}
export interface JiraIssue {
  id: string;
  key: string;
  self: string;
  fields: Record<string, unknown>;
}

/** Incident-management work category as reported by `expand=practice` (value strings unconfirmed, §E.3). */
export function isIncidentPractice(practice: string | undefined): boolean {
  return typeof practice === "string" && /incident/i.test(practice) && !/post[- _]?incident/i.test(practice);
}

export function siteProblem(conn: Conn | undefined): string | undefined {
  if (!conn) return "Choose a tracker connection.";
  if (!cloudIdOf(conn)) return "The connection has no synced site (cloud id). Reconnect the tracker connection and choose the site to use.";
  return undefined;
}

/** Save-time check shared by the service-desk components: a connection with a synced site. */
export function siteProblems(connection: Conn | undefined): Array<{ path: string; message: string }> {
  const problem = connection ? siteProblem(connection) : undefined;
  return problem ? [{ path: "connection", message: problem }] : [];
}

export function jsmClient(conn: Conn | undefined, http: HttpClient) {
  const problem = siteProblem(conn);
  if (problem) throw new NonRetryableError(problem);
  const c = conn!;
  const site = `${apiBaseOf(c)}/ex/jira/${encodeURIComponent(cloudIdOf(c)!)}/rest`;
  const sd = atlassianHttp(c, http, `${site}/servicedeskapi`);
  const jira = atlassianHttp(c, http, `${site}/api/3`);
  const enc = encodeURIComponent;

  async function all<T>(url: string, query: Record<string, string | number | undefined> = {}, max = 500): Promise<T[]> {
    const out: T[] = [];
    for (let start = 0; out.length < max; ) {
      const page = (await sd.get<Page<T>>(url, { ...query, start, limit: 50 })).body;
      out.push(...page.values);
      if (page.isLastPage !== false || page.values.length === 0) break;
      start += page.values.length;
    }
    return out.slice(0, max);
  }

  return {
    listServiceDesks: () => all<ServiceDesk>("/servicedesk"),
    listRequestTypes: (serviceDeskId: string, searchQuery?: string) =>
      all<RequestType>(`/servicedesk/${enc(serviceDeskId)}/requesttype`, { expand: "practice", searchQuery }),
    getRequestType: async (serviceDeskId: string, requestTypeId: string) =>
      (await sd.get<RequestType>(`/servicedesk/${enc(serviceDeskId)}/requesttype/${enc(requestTypeId)}`, { expand: "practice" })).body,
    getRequestTypeFields: async (serviceDeskId: string, requestTypeId: string) =>
      (await sd.get<{ requestTypeFields: RequestTypeField[] }>(`/servicedesk/${enc(serviceDeskId)}/requesttype/${enc(requestTypeId)}/field`)).body
        .requestTypeFields ?? [],
    /** The customer request behind an issue, or undefined when the issue is not a service-desk request. */
    async getRequest(issueIdOrKey: string): Promise<{ issueId: string; issueKey: string; serviceDeskId: string; requestTypeId: string } | undefined> {
      const res = await sd.request<{ issueId: string; issueKey: string; serviceDeskId: string; requestTypeId: string }>({
        method: "GET",
        url: `/request/${enc(issueIdOrKey)}`,
        okStatuses: [404],
      });
      return res.status === 404 ? undefined : res.body;
    },
    listApprovals: (issueIdOrKey: string) => all<Approval>(`/request/${enc(issueIdOrKey)}/approval`),
    getApproval: async (issueIdOrKey: string, approvalId: string) => (await sd.get<Approval>(`/request/${enc(issueIdOrKey)}/approval/${enc(approvalId)}`)).body,
    decide: async (issueIdOrKey: string, approvalId: string, decision: "approve" | "decline") =>
      (await sd.post<Approval>(`/request/${enc(issueIdOrKey)}/approval/${enc(approvalId)}`, { decision })).body,
    listComments: (issueIdOrKey: string) =>
      all<{ id: string; body: string; public: boolean; author?: UserRef }>(`/request/${enc(issueIdOrKey)}/comment`, { public: "true", internal: "false" }),
    addPublicComment: async (issueIdOrKey: string, body: string) =>
      (await sd.post<{ id: string }>(`/request/${enc(issueIdOrKey)}/comment`, { body, public: true })).body,

    // Jira platform calls used for incidents.
    createIssue: async (payload: { fields: Record<string, unknown>; update?: Record<string, unknown> }) =>
      (await jira.post<{ id: string; key: string; self: string }>("/issue", payload)).body,
    /** The incident's issue; a missing one is a permanent failure that names it. */
    async getIncidentIssue(ref: string, expand?: string) {
      try {
        return (await jira.get<JiraIssue & { names?: Record<string, string> }>(`/issue/${enc(ref)}`, { expand })).body;
      } catch (e) {
        if (isNotFound(e)) throw new NonRetryableError(`Incident ${ref} does not exist or is not visible to the connected user.`);
        throw e;
      }
    },
    async deleteIssue(idOrKey: string): Promise<void> {
      await jira.request({ method: "DELETE", url: `/issue/${enc(idOrKey)}` });
    },
    /** One page of `/search/jql` (`fields` as given). */
    searchJql: async (query: { jql: string; fields?: string; maxResults?: number }) =>
      (await jira.get<{ issues: JiraIssue[]; nextPageToken?: string }>("/search/jql", query)).body,
    /** `/search/jql` (current endpoint), newest updates first, capped. */
    async searchIssues(jql: string, max = 500): Promise<JiraIssue[]> {
      const out: JiraIssue[] = [];
      let nextPageToken: string | undefined;
      while (out.length < max) {
        const body = (
          await jira.get<{ issues: JiraIssue[]; nextPageToken?: string }>("/search/jql", {
            jql,
            fields: "summary,updated",
            maxResults: Math.min(100, max - out.length),
            nextPageToken,
          })
        ).body;
        out.push(...(body.issues ?? []));
        if (!body.nextPageToken || !body.issues?.length) break;
        nextPageToken = body.nextPageToken;
      }
      return out.slice(0, max);
    },
  };
}

export type JsmClient = ReturnType<typeof jsmClient>;

export function isNotFound(e: unknown): boolean {
  return e instanceof IntegrationHttpError && e.status === 404;
}
