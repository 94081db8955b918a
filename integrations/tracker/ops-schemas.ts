/** Output schemas and helpers shared by the ops (alert, heartbeat) components of the tracker integration. */
import { z } from "zod";
import { ui } from "../core/ui-meta";
import type { ComponentContext, WaitResult } from "../core/define";
import { isRetryable, NonRetryableError, retryAfterOf } from "../core/errors";
import type { Heartbeat, OpsAlert, OpsClient, RequestStatus } from "./ops-client";
import { normaliseHeartbeat } from "./ops-client";

export const PRIORITIES = ["P1", "P2", "P3", "P4", "P5"] as const;
export const RESPONDER_TYPES = ["team", "user", "escalation", "schedule"] as const;

export const alertOutput = z.object({
  id: z.string(),
  tinyId: z.string(),
  alias: z.string(),
  message: z.string(),
  description: z.string(),
  entity: z.string(),
  source: z.string(),
  owner: z.string(),
  integrationName: z.string(),
  integrationType: z.string(),
  status: z.string(),
  priority: z.string(),
  acknowledged: z.boolean(),
  seen: z.boolean(),
  snoozed: z.boolean(),
  count: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
  lastOccuredAt: z.string(),
  tags: z.array(z.string()),
  actions: z.array(z.unknown()),
  responders: z.array(z.unknown()),
  services: z.array(z.unknown()),
  extraProperties: z.record(z.string(), z.unknown()),
});
export type AlertOutput = z.infer<typeof alertOutput>;

export function toAlertOutput(a: OpsAlert): AlertOutput {
  return {
    id: a.id,
    tinyId: String(a.tinyId ?? ""),
    alias: a.alias ?? "",
    message: a.message ?? "",
    description: a.description ?? "",
    entity: a.entity ?? "",
    source: a.source ?? "",
    owner: a.owner ?? "",
    integrationName: a.integrationName ?? "",
    integrationType: a.integrationType ?? "",
    status: a.status,
    priority: a.priority,
    acknowledged: Boolean(a.acknowledged),
    seen: Boolean(a.seen),
    snoozed: Boolean(a.snoozed),
    count: a.count ?? 1,
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
    lastOccuredAt: a.lastOccuredAt ?? a.updatedAt,
    tags: a.tags ?? [],
    actions: a.actions ?? [],
    responders: a.responders ?? [],
    services: a.services ?? [],
    extraProperties: a.extraProperties ?? {},
  };
}

export const exampleAlert: AlertOutput = {
  id: "70413a06-38d6-4c85-92b8-5ebc900d42e2-1714557600123",
  tinyId: "1791",
  alias: "am:HighLatency:a:9100",
  message: "[P1] HighLatency on a:9100",
  description: "p99 > 1s since 09:49Z",
  entity: "a:9100",
  source: "conveyor",
  owner: "",
  integrationName: "Default API",
  integrationType: "API",
  status: "open",
  priority: "P1",
  acknowledged: false,
  seen: false,
  snoozed: false,
  count: 1,
  createdAt: "2026-05-01T10:00:00.123Z",
  updatedAt: "2026-05-01T10:00:00.123Z",
  lastOccuredAt: "2026-05-01T10:00:00.123Z",
  tags: ["prod"],
  actions: ["RestartServer"],
  responders: [{ id: "4513b7ea-3b91-438f-b7e4-e3e54af9147c", type: "teams" }],
  services: [],
  extraProperties: { runbook: "https://runbooks.example/latency" },
};

export const heartbeatOutput = z.object({
  name: z.string(),
  description: z.string(),
  interval: z.number().int(),
  intervalUnit: z.string(),
  enabled: z.boolean(),
  status: z.string(),
  ownerTeamId: z.string(),
  alertMessage: z.string(),
  alertTags: z.array(z.string()),
  alertPriority: z.string(),
});

export function toHeartbeatOutput(hb: Heartbeat): z.infer<typeof heartbeatOutput> {
  const h = normaliseHeartbeat(hb);
  return {
    name: h.name,
    description: h.description ?? "",
    interval: h.interval,
    intervalUnit: h.intervalUnit,
    enabled: Boolean(h.enabled),
    status: h.status,
    ownerTeamId: h.ownerTeamId ?? "",
    alertMessage: h.alertMessage ?? "",
    alertTags: h.alertTags ?? [],
    alertPriority: h.alertPriority ?? "P3",
  };
}

export const exampleHeartbeat = {
  name: "conveyor-dns",
  description: "DNS checker",
  interval: 5,
  intervalUnit: "minutes",
  enabled: true,
  status: "Pending",
  ownerTeamId: "4513b7ea-3b91-438f-b7e4-e3e54af9147c",
  alertMessage: "conveyor-dns is expired",
  alertTags: ["critical"],
  alertPriority: "P3",
};

// ---------------------------------------------------------------------------------------------
// Config fields

export const teamField = z
  .string()
  .min(1)
  .meta(
    ui({
      title: "Team",
      description: "Pick a team, or type its name (or id)",
      widget: "resource",
      resource: { type: "teams", allowCustom: true },
      expression: true,
      order: 1,
    }),
  );

export const heartbeatField = z
  .string()
  .min(1)
  .meta(
    ui({
      title: "Heartbeat",
      description: "Heartbeat name",
      widget: "resource",
      resource: { type: "heartbeats", dependsOn: ["team"], allowCustom: true },
      expression: true,
      order: 2,
    }),
  );

export const alertField = z
  .string()
  .min(1)
  .meta(
    ui({
      title: "Alert",
      description: "Alert id, picked from recent alerts, or the alias Create Alert gave it (e.g. an expression over the Alertmanager alert)",
      widget: "resource",
      resource: { type: "alerts", allowCustom: true },
      expression: true,
      order: 1,
    }),
  );

// ---------------------------------------------------------------------------------------------
// Polling of asynchronous requests (without holding a worker)

/** How long Create/Update Alert wait for the operations queue, and the delays between looks. */
export const POLL_WINDOW_MS = 60_000;
export const POLL_DELAYS_MS = [1_000, 2_000, 3_000, 5_000];

export interface PollState {
  requestId: string;
  startedAt: number;
  polls: number;
  alertId?: string;
}

/**
 * One look at an asynchronous request: its status when processed, else a `wait` to look again later,
 * else (window over) a failure that names the request id so the user can fetch the alert with Get Alert.
 */
export async function pollRequest(
  ctx: Pick<ComponentContext, "now" | "wait">,
  ops: OpsClient,
  st: PollState,
  what: string,
): Promise<RequestStatus | WaitResult> {
  const status = await ops.requestStatus(st.requestId);
  if (status) {
    if (!status.isSuccess) throw new NonRetryableError(`${what} failed in the operations module: ${status.status} (request id ${st.requestId}).`);
    return status;
  }
  const elapsed = ctx.now().getTime() - st.startedAt;
  if (elapsed >= POLL_WINDOW_MS) {
    throw new NonRetryableError(
      `${what} was accepted but not processed within ${Math.round(POLL_WINDOW_MS / 1000)} s (request id ${st.requestId}). ` +
        `Use Get Alert with this request id once the operations module has processed it.`,
    );
  }
  const delay = POLL_DELAYS_MS[Math.min(st.polls, POLL_DELAYS_MS.length - 1)]!;
  return ctx.wait(
    Math.min(delay, POLL_WINDOW_MS - elapsed),
    { ...st, polls: st.polls + 1 } satisfies PollState,
    `Waiting for operations request ${st.requestId}`,
  );
}

export function isWait(x: unknown): x is WaitResult {
  return Boolean(x && typeof x === "object" && (x as WaitResult).kind === "wait");
}

/**
 * The first look right after the request was sent: a transient failure must not fail the step, or the
 * engine's retry would send the request again (a second alert, a second note). Wait instead: the state
 * with the request id is then stored and later looks retry on their own.
 */
export async function firstLook(ctx: Pick<ComponentContext, "now" | "wait">, ops: OpsClient, st: PollState, what: string): Promise<RequestStatus | WaitResult> {
  try {
    return await pollRequest(ctx, ops, st, what);
  } catch (e) {
    if (!isRetryable(e)) throw e;
    return ctx.wait(
      Math.max(retryAfterOf(e) ?? 0, POLL_DELAYS_MS[0]!),
      { ...st, polls: st.polls + 1 } satisfies PollState,
      `Waiting for operations request ${st.requestId}`,
    );
  }
}
