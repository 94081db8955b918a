/** Teams, heartbeats and integrations (outgoing webhooks) of the fake JSM Operations API. */
import { randomUUID } from "node:crypto";
import { OPS_PREFIX, opsError, withSite } from "./alerts";
import { json, q, type FakeRoute } from "../route-kit";
import type { OpsEscalation, OpsHeartbeat, OpsSite, OpsState } from "./state";

type Body = Record<string, unknown>;
const UNITS: Record<string, OpsHeartbeat["intervalUnit"]> = { minutes: "Minutes", hours: "Hours", days: "Days" };

function team(site: OpsSite, teamId: string) {
  return site.teams.some((t) => t.teamId === teamId);
}

function heartbeatsOf(site: OpsSite, teamId: string) {
  let m = site.heartbeats.get(teamId);
  if (!m) site.heartbeats.set(teamId, (m = new Map()));
  return m;
}

const escalationDto = ({ teamId: _t, ...e }: OpsEscalation) => (
  void _t,
  { ...e, description: "", rules: [], repeat: { waitInterval: 0, count: 1, resetRecipientStates: false, closeAlertAfterAll: false } }
);

const publicHb = ({ lastPingAt: _p, ...hb }: OpsHeartbeat) => (void _p, hb);

function applyHb(hb: OpsHeartbeat, b: Body): string | undefined {
  if (b.interval !== undefined) {
    if (!Number.isInteger(b.interval) || (b.interval as number) < 1) return "Interval must be at least 1";
    hb.interval = b.interval as number;
  }
  if (b.intervalUnit !== undefined) hb.intervalUnit = UNITS[String(b.intervalUnit)]!;
  if (b.description !== undefined) hb.description = String(b.description);
  if (b.alertMessage !== undefined) {
    if (String(b.alertMessage).length > 130) return "Alert message can not be longer than 130 characters";
    hb.alertMessage = String(b.alertMessage);
  }
  if (b.alertTags !== undefined) hb.alertTags = b.alertTags as string[];
  if (b.alertPriority !== undefined) hb.alertPriority = String(b.alertPriority);
  if (b.enabled !== undefined) {
    hb.enabled = Boolean(b.enabled);
    hb.status = !hb.enabled ? "Off" : hb.lastPingAt ? "Responsive" : "Pending";
  }
  return undefined;
}

export function configRoutes(state: OpsState): FakeRoute[] {
  const P = OPS_PREFIX;
  const HB = `${P}/teams/{teamId}/heartbeats`;
  type TeamHandler = (site: OpsSite, teamId: string, req: Parameters<FakeRoute["handler"]>[0]) => ReturnType<FakeRoute["handler"]>;
  const memberGuard = (fn: TeamHandler, needsHeartbeats = false) =>
    withSite(state, (site, req) => {
      if (needsHeartbeats && !site.plan.heartbeats) return opsError(402, "Your plan does not include heartbeats");
      if (!team(site, req.params.teamId!)) return opsError(403, "You are not a member of this team or it does not exist");
      return fn(site, req.params.teamId!, req);
    });
  const teamGuard = (fn: TeamHandler) => memberGuard(fn, true);
  return [
    { method: "GET", path: `${P}/teams`, handler: withSite(state, (site) => json(200, { platformTeams: site.teams })) },
    {
      method: "GET",
      path: `${HB}/ping`,
      handler: teamGuard((site, teamId, req) => {
        // Like the real API: accepted whether or not the heartbeat exists.
        const hb = heartbeatsOf(site, teamId).get(q(req, "name") ?? "");
        if (hb) {
          hb.lastPingAt = site.now().toISOString();
          if (hb.enabled) hb.status = "Responsive";
        }
        return json(202, { message: "PONG - Heartbeat received" });
      }),
    },
    {
      method: "GET",
      path: HB,
      handler: teamGuard((site, teamId, req) => {
        const name = q(req, "name");
        const size = Math.min(Number(q(req, "size") ?? 20), 100);
        const offset = Number(q(req, "offset") ?? 0);
        const all = [...heartbeatsOf(site, teamId).values()].filter((h) => !name || h.name === name);
        const next = offset + size < all.length ? `/v1/teams/${teamId}/heartbeats?offset=${offset + size}&size=${size}` : undefined;
        return json(200, { values: all.slice(offset, offset + size).map(publicHb), links: next ? { next } : {} });
      }),
    },
    {
      method: "POST",
      path: HB,
      handler: teamGuard((site, teamId, req) => {
        const b = (req.body ?? {}) as Body;
        const name = String(b.name ?? "").trim();
        if (!name) return opsError(422, "Name can not be empty");
        const list = heartbeatsOf(site, teamId);
        if (list.has(name)) return opsError(422, `Heartbeat with name [${name}] already exists`);
        const hb: OpsHeartbeat = {
          name,
          description: "",
          interval: 1,
          intervalUnit: "Minutes",
          enabled: false,
          status: "Off",
          ownerTeamId: teamId,
          alertMessage: `${name} is expired`,
          alertTags: [],
          alertPriority: "P3",
        };
        const problem = applyHb(hb, { enabled: false, ...b });
        if (problem) return opsError(422, problem);
        list.set(name, hb);
        return json(201, publicHb(hb));
      }),
    },
    {
      method: "PATCH",
      path: HB,
      handler: teamGuard((site, teamId, req) => {
        const hb = heartbeatsOf(site, teamId).get(q(req, "name") ?? "");
        if (!hb) return opsError(404, `Heartbeat with name [${q(req, "name")}] does not exist`);
        const b = (req.body ?? {}) as Body;
        if (b.name !== undefined && b.name !== hb.name) return opsError(422, "Heartbeat name can not be changed");
        const problem = applyHb(hb, b);
        return problem ? opsError(422, problem) : json(201, publicHb(hb));
      }),
    },
    {
      method: "DELETE",
      path: HB,
      handler: teamGuard((site, teamId, req) => {
        const list = heartbeatsOf(site, teamId);
        const name = q(req, "name") ?? "";
        if (!list.delete(name)) return opsError(404, `Heartbeat with name [${name}] does not exist`);
        return { status: 204 };
      }),
    },
    {
      method: "GET",
      path: `${P}/schedules/{id}`,
      handler: withSite(state, (site, req) => {
        const s = site.schedules.get(req.params.id!);
        return s ? json(200, { ...s, description: "", rotations: [] }) : opsError(404, `Schedule [${req.params.id}] not found`);
      }),
    },
    {
      method: "GET",
      path: `${P}/teams/{teamId}/escalations`,
      handler: memberGuard((site, teamId) =>
        json(200, { values: [...site.escalations.values()].filter((e) => e.teamId === teamId).map(escalationDto), links: {} }),
      ),
    },
    {
      method: "GET",
      path: `${P}/teams/{teamId}/escalations/{id}`,
      handler: memberGuard((site, teamId, req) => {
        const e = site.escalations.get(req.params.id!);
        return e && e.teamId === teamId ? json(200, escalationDto(e)) : opsError(404, `Escalation [${req.params.id}] not found`);
      }),
    },
    ...integrationRoutes(state),
  ];
}

function integrationRoutes(state: OpsState): FakeRoute[] {
  const P = OPS_PREFIX;
  return [
    {
      method: "GET",
      path: `${P}/integrations`,
      handler: withSite(state, (site, req) => {
        const type = q(req, "type");
        const values = [...site.integrations.values()]
          .filter((i) => !type || i.type === type)
          .map(({ id, name, type: t, enabled, teamId }) => ({ id, name, type: t, enabled, teamId }));
        return json(200, { values, links: {} });
      }),
    },
    {
      method: "POST",
      path: `${P}/integrations`,
      handler: withSite(state, (site, req) => {
        const b = (req.body ?? {}) as Body;
        if (b.type === "Webhook" && !site.plan.outgoingWebhooks) return opsError(403, "Outgoing webhook integrations need a Premium or Enterprise plan");
        if ([...site.integrations.values()].some((i) => i.name === b.name)) return opsError(422, `Integration name [${b.name}] is already in use`);
        if (b.teamId && !team(site, String(b.teamId))) return opsError(422, `Team [${b.teamId}] does not exist`);
        const props = (b.typeSpecificProperties ?? {}) as Record<string, unknown>;
        // An outgoing webhook integration is useless without its target: the product asks for the URL.
        if (b.type === "Webhook" && typeof props.url !== "string") return opsError(422, "Webhook URL must be provided for Webhook integrations");
        const integ = {
          id: randomUUID(),
          name: String(b.name),
          type: String(b.type),
          enabled: Boolean(b.enabled),
          teamId: b.teamId ? String(b.teamId) : undefined,
          description: b.description ? String(b.description) : undefined,
          typeSpecificProperties: props,
          actions: [],
        };
        site.integrations.set(integ.id, integ);
        const { actions: _a, ...out } = integ;
        return json(200, (void _a, out));
      }),
    },
    {
      method: "GET",
      path: `${P}/integrations/{id}`,
      handler: withSite(state, (site, req) => {
        const i = site.integrations.get(req.params.id!);
        if (!i) return opsError(404, "Integration not found");
        const { actions: _a, ...out } = i;
        return json(200, (void _a, out));
      }),
    },
    {
      method: "DELETE",
      path: `${P}/integrations/{id}`,
      handler: withSite(state, (site, req) => (site.integrations.delete(req.params.id!) ? { status: 200 } : opsError(404, "Integration not found"))),
    },
    {
      method: "POST",
      path: `${P}/integrations/{integrationId}/actions`,
      handler: withSite(state, (site, req) => {
        const i = site.integrations.get(req.params.integrationId!);
        if (!i) return opsError(404, "Integration not found");
        const b = req.body as Body;
        if (b.direction === "outgoing" && !b.groupType) return opsError(422, "groupType must be provided for outgoing actions");
        const action = {
          id: randomUUID(),
          type: String(b.type),
          name: String(b.name),
          direction: String(b.direction),
          domain: String(b.domain),
          groupType: b.groupType as string | undefined,
        };
        i.actions.push(action);
        return json(200, action);
      }),
    },
    {
      method: "GET",
      path: `${P}/integrations/{integrationId}/actions`,
      handler: withSite(state, (site, req) => {
        const i = site.integrations.get(req.params.integrationId!);
        return i ? json(200, { values: i.actions, links: {} }) : opsError(404, "Integration not found");
      }),
    },
  ];
}
