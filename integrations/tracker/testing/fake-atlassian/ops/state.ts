/**
 * State of the JSM Operations module of the fake Atlassian, one `OpsSite` per cloud id.
 * Alert-changing calls are asynchronous as in the real API: they return a receipt with a request id
 * and are applied later (`processing`), after which `GET /v1/alerts/requests/{id}` answers.
 */
import { randomUUID } from "node:crypto";

export interface OpsAlert {
  id: string;
  tinyId: string;
  createdAt: string;
  updatedAt: string;
  message: string;
  entity: string;
  source: string;
  status: "open" | "acked" | "resolved" | "snoozed" | "closed";
  alias: string;
  tags: string[];
  extraProperties: Record<string, string>;
  description: string;
  acknowledged: boolean;
  ackTime?: string;
  closeTime?: string;
  count: number;
  owner: string;
  snoozed: boolean;
  lastOccuredAt: string;
  integrationType: string;
  integrationName: string;
  priority: string;
  responders: Array<{ id: string; type: string }>;
  visibleTo: Array<{ id: string; type: string }>;
  actions: string[];
  seen: boolean;
}

export interface OpsNote {
  id: string;
  createdAt: string;
  updatedAt: string;
  note: string;
  owner: string;
}

export interface OpsHeartbeat {
  name: string;
  description: string;
  interval: number;
  intervalUnit: "Minutes" | "Hours" | "Days";
  enabled: boolean;
  status: "Unresponsive" | "Responsive" | "Off" | "Pending";
  ownerTeamId: string;
  alertMessage: string;
  alertTags: string[];
  alertPriority: string;
  lastPingAt?: string;
}

export interface OpsIntegration {
  id: string;
  name: string;
  type: string;
  enabled: boolean;
  teamId?: string;
  description?: string;
  typeSpecificProperties: Record<string, unknown>;
  actions: Array<{ id: string; type: string; name: string; direction: string; domain: string; groupType?: string }>;
}

/** Schedules and escalations belong to one team (they are only looked up by id here). */
export interface OpsSchedule {
  id: string;
  name: string;
  teamId: string;
  timezone: string;
  enabled: boolean;
}
export interface OpsEscalation {
  id: string;
  name: string;
  teamId: string;
  enabled: boolean;
}

export interface RequestStatus {
  action: string;
  processedAt: string;
  integrationId: string;
  isSuccess: boolean;
  status: string;
  alertId: string;
  alias: string;
}

interface PendingRequest {
  id: string;
  run: () => RequestStatus;
  status?: RequestStatus;
}

export interface Delivery {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  status?: number;
  error?: string;
}

/** `{ delayMs }`: request statuses appear after the delay; `"never"`: they never do (nor the effect). */
export type Processing = { delayMs: number } | "never";

export class OpsSite {
  teams: Array<{ teamId: string; teamName: string }> = [];
  alerts = new Map<string, OpsAlert>();
  notes = new Map<string, OpsNote[]>();
  heartbeats = new Map<string, Map<string, OpsHeartbeat>>();
  integrations = new Map<string, OpsIntegration>();
  schedules = new Map<string, OpsSchedule>();
  escalations = new Map<string, OpsEscalation>();
  requests = new Map<string, PendingRequest>();
  deliveries: Delivery[] = [];
  processing: Processing = { delayMs: 0 };
  /** Plan without heartbeats / outgoing integrations answers 402. */
  plan: { heartbeats: boolean; outgoingWebhooks: boolean } = { heartbeats: true, outgoingWebhooks: true };
  private tiny = 0;
  private queue: PendingRequest[] = [];
  private pendingDeliveries = new Set<Promise<void>>();

  constructor(
    readonly cloudId: string,
    readonly now: () => Date = () => new Date(),
  ) {}

  addTeam(teamName: string, teamId: string = randomUUID()) {
    this.teams.push({ teamId, teamName });
    return teamId;
  }

  /** A team with its default schedule and escalation, named like the product names them. */
  addTeamWithRouting(teamName: string, ids: { teamId: string; scheduleId: string; escalationId: string }) {
    this.addTeam(teamName, ids.teamId);
    this.schedules.set(ids.scheduleId, { id: ids.scheduleId, name: `${teamName}_schedule`, teamId: ids.teamId, timezone: "Europe/Berlin", enabled: true });
    this.escalations.set(ids.escalationId, { id: ids.escalationId, name: `${teamName}_escalation`, teamId: ids.teamId, enabled: true });
  }

  nextTinyId() {
    this.tiny += 1;
    return String(this.tiny);
  }

  /** Queues an asynchronous operation and returns its request id. */
  enqueue(run: () => RequestStatus): string {
    const req: PendingRequest = { id: randomUUID(), run };
    this.requests.set(req.id, req);
    this.queue.push(req);
    if (this.processing !== "never") {
      const t = setTimeout(() => this.processDue(req), this.processing.delayMs);
      t.unref?.();
    }
    return req.id;
  }

  /** Processes queued requests in order up to and including `upTo` (FIFO like the real queue). */
  private processDue(upTo: PendingRequest) {
    while (this.queue.length) {
      const next = this.queue.shift()!;
      next.status = next.run();
      if (next === upTo) break;
    }
  }

  /** Test control: process everything queued now (e.g. after switching away from "never"). */
  processAll() {
    while (this.queue.length) {
      const next = this.queue.shift()!;
      next.status = next.run();
    }
  }

  requestStatus(id: string): RequestStatus | undefined {
    return this.requests.get(id)?.status;
  }

  findOpenByAlias(alias: string): OpsAlert | undefined {
    for (const a of this.alerts.values()) if (a.alias === alias && a.status !== "closed") return a;
    return undefined;
  }

  /** Sends the Opsgenie-style "alert action data" to every outgoing webhook integration that wants `action`. */
  deliver(action: "Create" | "Acknowledge" | "Close" | "Delete", alert: OpsAlert, username: string) {
    for (const integ of this.integrations.values()) {
      if (!integ.enabled || integ.type !== "Webhook") continue;
      const wanted = integ.actions.some((a) => a.direction === "outgoing" && a.type.toLowerCase() === action.toLowerCase());
      if (!wanted) continue;
      const teamIds = alert.responders.filter((r) => r.type === "team").map((r) => r.id);
      if (integ.teamId && !teamIds.includes(integ.teamId)) continue;
      const props = integ.typeSpecificProperties;
      const url = String(props.url ?? "");
      const headers = { "content-type": "application/json", ...((props.headers as Record<string, string>) ?? {}) };
      const created = Date.parse(alert.createdAt);
      const body = {
        action,
        alert: {
          alertId: alert.id,
          tinyId: alert.tinyId,
          alias: alert.alias,
          message: alert.message,
          entity: alert.entity,
          source: alert.source,
          priority: alert.priority,
          tags: alert.tags,
          teams: teamIds,
          recipients: alert.responders.map((r) => r.id),
          createdAt: created,
          updatedAt: Date.parse(alert.updatedAt) * 1_000_000,
          username,
          userId: username,
          ...(action === "Create" && props.addAlertDescription ? { description: alert.description.slice(0, 1000) } : {}),
          ...(action === "Create" && props.addAlertDetails ? { details: alert.extraProperties } : {}),
        },
        source: { name: "web", type: "API" },
        integrationId: integ.id,
        integrationName: integ.name,
      };
      const delivery: Delivery = { url, headers, body };
      this.deliveries.push(delivery);
      const p = fetch(url, { method: "POST", headers, body: JSON.stringify(body) })
        .then(async (res) => {
          delivery.status = res.status;
          await res.arrayBuffer().catch(() => undefined);
        })
        .catch((e: Error) => {
          delivery.error = e.message;
        })
        .finally(() => this.pendingDeliveries.delete(p));
      this.pendingDeliveries.add(p);
    }
  }

  /** Test helper: resolves once every delivery started so far has finished. */
  async settled() {
    while (this.pendingDeliveries.size) await Promise.all([...this.pendingDeliveries]);
  }
}

export class OpsState {
  sites = new Map<string, OpsSite>();
  constructor(readonly now: () => Date = () => new Date()) {}
  site(cloudId: string): OpsSite {
    let s = this.sites.get(cloudId);
    if (!s) {
      s = new OpsSite(cloudId, this.now);
      this.sites.set(cloudId, s);
    }
    return s;
  }
}
