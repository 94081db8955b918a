/** Alertmanager API v2 (0.25 and newer): silences and status. */
import type { HttpClient } from "../core/http";
import { NonRetryableError, RetryableError } from "../core/errors";
import { alertRouterUrl, type MetricsConnection } from "./connection";
import { createUpstream, type Upstream } from "./upstream";

export interface AmMatcher {
  name: string;
  value: string;
  isRegex: boolean;
  isEqual?: boolean;
}

export interface AmSilence {
  id: string;
  status: { state: "active" | "pending" | "expired" | string };
  matchers: AmMatcher[];
  startsAt: string;
  endsAt: string;
  updatedAt?: string;
  createdBy: string;
  comment: string;
}

export interface AmStatus {
  versionInfo?: { version?: string };
  cluster?: { status?: string };
  uptime?: string;
}

/** Alertmanager error bodies are a JSON-encoded string (e.g. "silence not found"); 404 has none. */
export function describeAlertmanagerError(status: number, body: unknown): string | undefined {
  if (typeof body === "string" && body.trim()) return body.trim().slice(0, 500);
  if (body && typeof body === "object") {
    const b = body as Record<string, unknown>;
    if (typeof b.message === "string") return b.message;
    if (typeof b.error === "string") return b.error;
  }
  if (status === 404) return "Not found";
  if (status === 401) return "Unauthorized";
  return undefined;
}

/** 0.25 answers an unknown silence with 500 "silence not found", 0.26+ with 404. */
function isSilenceNotFound(status: number, body: unknown): boolean {
  return status === 404 || (status === 500 && typeof body === "string" && /silence not found/i.test(body));
}

export class AlertmanagerClient {
  readonly upstream: Upstream;
  constructor(http: HttpClient, conn: MetricsConnection) {
    this.upstream = createUpstream("Alertmanager", http, conn, alertRouterUrl(conn), describeAlertmanagerError);
  }

  async status(): Promise<AmStatus> {
    const res = await this.upstream.call((http) => http.get<AmStatus>("/api/v2/status"));
    return res.body;
  }

  async createSilence(silence: Omit<AmSilence, "id" | "status" | "updatedAt">): Promise<string> {
    const res = await this.upstream.call((http) => http.post<{ silenceID?: string }>("/api/v2/silences", silence));
    if (!res.body?.silenceID) throw new NonRetryableError("Alertmanager did not return a silence ID");
    return res.body.silenceID;
  }

  async listSilences(): Promise<AmSilence[]> {
    const res = await this.upstream.call((http) => http.get<AmSilence[]>("/api/v2/silences"));
    return Array.isArray(res.body) ? res.body : [];
  }

  async getSilence(id: string): Promise<AmSilence> {
    const silenceId = checkId(id);
    const res = await this.upstream.call((http) =>
      http.get<AmSilence>(`/api/v2/silence/${encodeURIComponent(silenceId)}`, undefined, { okStatuses: [404, 422] }),
    );
    if (res.status === 404) throw notFound(silenceId, this.upstream.baseUrl);
    if (res.status === 422) throw new NonRetryableError(`"${silenceId}" is not a silence ID: ${describeAlertmanagerError(422, res.body) ?? "invalid"}`);
    return res.body;
  }

  /** Expires a silence (it stays listed as expired). An unknown ID fails without retry. */
  async expireSilence(id: string): Promise<void> {
    const silenceId = checkId(id);
    const res = await this.upstream.call((http) =>
      http.request({ method: "DELETE", url: `/api/v2/silence/${encodeURIComponent(silenceId)}`, okStatuses: [404, 422, 500] }),
    );
    if (res.status >= 200 && res.status < 300) return;
    if (isSilenceNotFound(res.status, res.body)) throw notFound(silenceId, this.upstream.baseUrl);
    if (res.status === 422) throw new NonRetryableError(`"${silenceId}" is not a silence ID: ${describeAlertmanagerError(422, res.body) ?? "invalid"}`);
    // A 500 for another reason is a server fault: let the runner retry it.
    throw new RetryableError(
      `Alertmanager at ${this.upstream.baseUrl} answered ${res.status}: ${describeAlertmanagerError(res.status, res.body) ?? "server error"}`,
    );
  }
}

function checkId(id: string): string {
  const s = String(id ?? "").trim();
  if (!s) throw new NonRetryableError("Silence ID is empty");
  return s;
}

function notFound(id: string, baseUrl: string): NonRetryableError {
  return new NonRetryableError(`Silence ${id} was not found in Alertmanager at ${baseUrl}`, { status: 404 });
}
