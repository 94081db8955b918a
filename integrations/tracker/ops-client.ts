/**
 * JSM Operations client (`{apiBase}/jsm/ops/api/{cloudId}/v1/...`), UPSTREAM.md §F.
 * Alert-changing calls are asynchronous: they return a receipt `{result, requestId}` whose outcome is
 * read later with `requestStatus` (404 while not processed yet).
 */
import type { ConnectionHandle } from "../core/define";
import { ConnectionAuthError, NonRetryableError } from "../core/errors";
import type { HttpClient } from "../core/http";
import { apiBaseOf as connectionApiBase, type TrackerConnection } from "./connection";
import { REFRESH_REFUSED } from "./jira-client";

type Conn = ConnectionHandle<Record<string, unknown>>;

/** API gateway base (api.atlassian.com unless the connection points elsewhere, e.g. at the fake). */
export function apiBaseOf(conn: Conn): string {
  return connectionApiBase(conn.config as Partial<TrackerConnection>);
}

export function cloudIdOf(conn: Conn | undefined): string | undefined {
  const id = conn?.state?.cloudId;
  return typeof id === "string" && id ? id : undefined;
}

/** Why ops features cannot be used with this connection (undefined when they can). */
export function opsGateProblem(conn: Conn | undefined): string | undefined {
  if (!conn) return "Choose a tracker connection.";
  if (conn.config.enableOpsFeatures !== true) {
    return "Operations features are off for this connection. In Connections, open its Settings, turn on “Enable ops features” and press “Save and reconnect”: Atlassian then asks to grant the operations (alert and heartbeat) scopes.";
  }
  if (!cloudIdOf(conn)) return "The connection has no synced site (cloud id). Reconnect the tracker connection and choose the site to use.";
  return undefined;
}

/** validate() helper shared by ops components and the alert trigger. */
export function opsGateIssues(conn: Conn | undefined): Array<{ path: string; message: string }> {
  if (!conn) return []; // the editor asks for a connection on its own
  const problem = opsGateProblem(conn);
  return problem ? [{ path: "", message: problem }] : [];
}

/** Authenticated client for an Atlassian API base (bearer token, one refresh on 401, Atlassian error shapes). */
export function atlassianHttp(conn: Conn, http: HttpClient, baseUrl: string): HttpClient {
  return http.with({
    baseUrl,
    auth: async () => (conn.oauth ? { authorization: `Bearer ${await conn.oauth.getAccessToken()}` } : ({} as Record<string, string>)),
    onUnauthorized: conn.oauth
      ? async () => {
          if (await conn.oauth!.refresh()) return true;
          throw new ConnectionAuthError(REFRESH_REFUSED);
        }
      : undefined,
    describeError: describeAtlassianError,
  });
}

export function describeAtlassianError(status: number, body: unknown): string | undefined {
  if (!body || typeof body !== "object") return typeof body === "string" && body ? body.slice(0, 500) : undefined;
  const b = body as Record<string, unknown>;
  const parts: string[] = [];
  if (Array.isArray(b.errors)) for (const e of b.errors as Array<{ title?: string; message?: string }>) parts.push(e.title ?? e.message ?? JSON.stringify(e));
  else if (b.errors && typeof b.errors === "object") for (const [k, v] of Object.entries(b.errors)) parts.push(`${k}: ${String(v)}`);
  if (Array.isArray(b.errorMessages)) parts.push(...(b.errorMessages as string[]));
  if (typeof b.errorMessage === "string") parts.push(b.errorMessage);
  if (typeof b.message === "string") parts.push(b.message);
  if (status === 402) parts.push("(the site's plan does not include this operations feature)");
  if (status === 401 && /scope/i.test(parts.join(" "))) parts.push("(reconnect the tracker connection so the operations scopes are granted)");
  return parts.length ? parts.join("; ") : undefined;
}

export interface OpsAlert {
  id: string;
  tinyId: string;
  alias: string;
  message: string;
  description?: string;
  entity?: string;
  source?: string;
  owner?: string;
  integrationName?: string;
  integrationType?: string;
  status: string;
  priority: string;
  acknowledged: boolean;
  seen: boolean;
  snoozed: boolean;
  count: number;
  createdAt: string;
  updatedAt: string;
  lastOccuredAt: string;
  tags: string[];
  actions: string[];
  responders: unknown[];
  services?: unknown[];
  extraProperties: Record<string, unknown>;
}

export interface Receipt {
  result: string;
  requestId: string;
  took?: number;
}
export interface RequestStatus {
  action: string;
  processedAt?: string;
  isSuccess: boolean;
  status: string;
  alertId?: string;
  alias?: string;
}
export interface Heartbeat {
  name: string;
  description?: string;
  interval: number;
  intervalUnit: string;
  enabled: boolean;
  status: string;
  ownerTeamId: string;
  alertMessage?: string;
  alertTags?: string[];
  alertPriority?: string;
}

export function opsClient(conn: Conn | undefined, http: HttpClient) {
  const problem = opsGateProblem(conn);
  if (problem) throw new NonRetryableError(problem);
  const c = conn!;
  const api = atlassianHttp(c, http, `${apiBaseOf(c)}/jsm/ops/api/${encodeURIComponent(cloudIdOf(c)!)}/v1`);
  const enc = encodeURIComponent;
  const send = async <T>(method: "GET" | "POST" | "PATCH" | "DELETE", url: string, json?: unknown, query?: Record<string, string | number | undefined>) =>
    (await api.request<T>({ method, url, json, query })).body;

  return {
    listTeams: async () => (await send<{ platformTeams?: Array<{ teamId: string; teamName: string }> }>("GET", "/teams")).platformTeams ?? [],
    listAlerts: (query: { query?: string; size?: number; offset?: number; sort?: string; order?: "asc" | "desc" } = {}) =>
      send<{ values: OpsAlert[]; count?: number }>("GET", "/alerts", undefined, query),
    createAlert: (body: Record<string, unknown>) => send<Receipt>("POST", "/alerts", body),
    getAlert: (id: string) => send<OpsAlert>("GET", `/alerts/${enc(id)}`),
    /** The alert with this alias (the de-duplication key Create Alert was given), or undefined (404). */
    async getAlertByAlias(alias: string): Promise<OpsAlert | undefined> {
      const res = await api.request<OpsAlert>({ method: "GET", url: "/alerts/alias", query: { alias }, okStatuses: [404] });
      return res.status === 404 ? undefined : res.body;
    },
    deleteAlert: (id: string) => send<Receipt>("DELETE", `/alerts/${enc(id)}`),
    /** The request's outcome, or undefined while it has not been processed (404). */
    async requestStatus(requestId: string): Promise<RequestStatus | undefined> {
      const res = await api.request<RequestStatus>({ method: "GET", url: `/alerts/requests/${enc(requestId)}`, okStatuses: [404] });
      return res.status === 404 ? undefined : res.body;
    },
    acknowledge: (id: string) => send<Receipt>("POST", `/alerts/${enc(id)}/acknowledge`),
    close: (id: string) => send<Receipt>("POST", `/alerts/${enc(id)}/close`),
    setPriority: (id: string, priority: string) => send<Receipt>("PATCH", `/alerts/${enc(id)}/priority`, { priority }),
    setMessage: (id: string, message: string) => send<Receipt>("PATCH", `/alerts/${enc(id)}/message`, { message }),
    setDescription: (id: string, description: string) => send<Receipt>("PATCH", `/alerts/${enc(id)}/description`, { description }),
    assign: (id: string, accountId: string) => send<Receipt>("POST", `/alerts/${enc(id)}/assign`, { accountId }),
    addNote: (id: string, note: string) => send<{ id: string }>("POST", `/alerts/${enc(id)}/notes`, { note }),
    updateNote: (alertId: string, noteId: string, note: string) => send<{ id: string }>("PATCH", `/alerts/${enc(alertId)}/notes/${enc(noteId)}`, { note }),

    /** The team owning a schedule, or undefined when no such schedule is visible (404). */
    async scheduleTeam(id: string): Promise<string | undefined> {
      const res = await api.request<{ id: string; teamId?: string }>({ method: "GET", url: `/schedules/${enc(id)}`, okStatuses: [404] });
      return res.status === 404 ? undefined : res.body.teamId;
    },
    /** The team owning an escalation (escalations live under their team), or undefined when none has it. */
    async escalationTeam(id: string): Promise<string | undefined> {
      for (const t of (await send<{ platformTeams?: Array<{ teamId: string }> }>("GET", "/teams")).platformTeams ?? []) {
        const res = await api.request({ method: "GET", url: `/teams/${enc(t.teamId)}/escalations/${enc(id)}`, okStatuses: [403, 404] });
        if (res.status === 200) return t.teamId;
      }
      return undefined;
    },

    listHeartbeats: async (teamId: string, name?: string) =>
      (await send<{ values?: Heartbeat[] }>("GET", `/teams/${enc(teamId)}/heartbeats`, undefined, { name, size: 100 })).values ?? [],
    createHeartbeat: (teamId: string, body: Record<string, unknown>) => send<Heartbeat>("POST", `/teams/${enc(teamId)}/heartbeats`, body),
    updateHeartbeat: (teamId: string, name: string, body: Record<string, unknown>) =>
      send<Heartbeat>("PATCH", `/teams/${enc(teamId)}/heartbeats`, body, { name }),
    deleteHeartbeat: (teamId: string, name: string) => send<unknown>("DELETE", `/teams/${enc(teamId)}/heartbeats`, undefined, { name }),
    pingHeartbeat: (teamId: string, name: string) => send<{ message?: string }>("GET", `/teams/${enc(teamId)}/heartbeats/ping`, undefined, { name }),

    listIntegrations: async () =>
      (await send<{ values?: Array<{ id: string; name: string; type: string }> }>("GET", "/integrations", undefined, { type: "Webhook" })).values ?? [],
    createIntegration: (body: Record<string, unknown>) => send<{ id: string; name: string }>("POST", "/integrations", body),
    addIntegrationAction: (integrationId: string, body: Record<string, unknown>) =>
      send<{ id: string }>("POST", `/integrations/${enc(integrationId)}/actions`, body),
    /** The integration, or undefined when it no longer exists (404). */
    async getIntegration(id: string): Promise<{ id: string; name: string; enabled?: boolean } | undefined> {
      const res = await api.request<{ id: string; name: string; enabled?: boolean }>({ method: "GET", url: `/integrations/${enc(id)}`, okStatuses: [404] });
      return res.status === 404 ? undefined : res.body;
    },
    async deleteIntegration(id: string): Promise<boolean> {
      const res = await api.request({ method: "DELETE", url: `/integrations/${enc(id)}`, okStatuses: [404] });
      return res.status !== 404;
    },
  };
}

export type OpsClient = ReturnType<typeof opsClient>;

/** Response heartbeat units are capitalised ("Minutes"); requests and our output use lower case. */
export function normaliseHeartbeat(hb: Heartbeat): Heartbeat {
  return { ...hb, intervalUnit: String(hb.intervalUnit).toLowerCase() };
}
