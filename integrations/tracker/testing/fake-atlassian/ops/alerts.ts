/** Alert routes of the fake JSM Operations API (`/jsm/ops/api/{cloudId}/v1/alerts...`). */
import { randomUUID } from "node:crypto";
import { json, q, type FakeRequest, type FakeResponse, type FakeRoute } from "../route-kit";
import type { OpsAlert, OpsSite, OpsState, RequestStatus } from "./state";

export const OPS_PREFIX = "/jsm/ops/api/{cloudId}/v1";

export const opsError = (status: number, title: string, code = String(status)) => json(status, { errors: [{ title, code }] });

type Body = Record<string, unknown>;

/** Resolves the site of `{cloudId}`; unknown sites answer 404 as a site without the ops module does. */
export function withSite(state: OpsState, fn: (site: OpsSite, req: FakeRequest) => FakeResponse | Promise<FakeResponse>) {
  return (req: FakeRequest) => {
    const site = state.sites.get(req.params.cloudId!);
    if (!site) return opsError(404, `No operations site for cloud id ${req.params.cloudId}`);
    return fn(site, req);
  };
}

function receipt(requestId: string, status = 202) {
  return json(status, { result: "Request will be processed", requestId, took: 0.01 });
}

function done(site: OpsSite, action: string, alert: OpsAlert | undefined, alertId: string, ok: string): RequestStatus {
  return {
    action,
    processedAt: site.now().toISOString(),
    integrationId: "",
    isSuccess: Boolean(alert),
    status: alert ? ok : "Alert does not exist",
    alertId: alert?.id ?? alertId,
    alias: alert?.alias ?? "",
  };
}

function createAlert(site: OpsSite, body: Body, who: string): RequestStatus {
  const now = site.now().toISOString();
  const alias = typeof body.alias === "string" && body.alias ? body.alias : "";
  const existing = alias ? site.findOpenByAlias(alias) : undefined;
  if (existing) {
    existing.count += 1;
    existing.lastOccuredAt = now;
    existing.updatedAt = now;
    return { ...done(site, "Create", existing, existing.id, "Alert already exists; its count was increased"), alias };
  }
  const id = `${randomUUID()}-${Date.parse(now)}`;
  const alert: OpsAlert = {
    id,
    tinyId: site.nextTinyId(),
    createdAt: now,
    updatedAt: now,
    message: String(body.message),
    entity: String(body.entity ?? ""),
    source: String(body.source ?? "127.0.0.1"),
    status: "open",
    alias: alias || id,
    tags: (body.tags as string[]) ?? [],
    extraProperties: (body.extraProperties as Record<string, string>) ?? {},
    description: String(body.description ?? ""),
    acknowledged: false,
    count: 1,
    owner: "",
    snoozed: false,
    lastOccuredAt: now,
    integrationType: "API",
    integrationName: "Default API",
    priority: String(body.priority ?? "P3"),
    responders: (body.responders as OpsAlert["responders"]) ?? [],
    visibleTo: (body.visibleTo as OpsAlert["visibleTo"]) ?? [],
    actions: (body.actions as string[]) ?? [],
    seen: false,
  };
  site.alerts.set(id, alert);
  if (typeof body.note === "string" && body.note) {
    site.notes.set(id, [{ id: String(Date.now()) + "000001", createdAt: now, updatedAt: now, note: body.note, owner: who }]);
  }
  site.deliver("Create", alert, who);
  return done(site, "Create", alert, id, "Created alert");
}

function publicAlert(a: OpsAlert) {
  const { visibleTo: _hidden, ...rest } = a;
  void _hidden;
  return rest;
}

/** An asynchronous change of one alert: receipt now, `change` applied when the request is processed. */
function asyncChange(state: OpsState, action: string, ok: string, change: (site: OpsSite, a: OpsAlert, body: Body, who: string) => void): FakeRoute["handler"] {
  return withSite(state, (site, req) => {
    const alertId = req.params.id!;
    const who = req.accountId ?? "api-user";
    const body = (req.body ?? {}) as Body;
    const requestId = site.enqueue(() => {
      const alert = site.alerts.get(alertId);
      if (alert) {
        change(site, alert, body, who);
        if (site.alerts.has(alertId)) alert.updatedAt = site.now().toISOString();
      }
      return done(site, action, alert, alertId, ok);
    });
    return receipt(requestId);
  });
}

export function alertRoutes(state: OpsState): FakeRoute[] {
  const P = OPS_PREFIX;
  return [
    {
      method: "POST",
      path: `${P}/alerts`,
      handler: withSite(state, (site, req) => {
        const body = (req.body ?? {}) as Body;
        if (typeof body.message !== "string" || !body.message.trim()) return opsError(422, "Message can not be empty");
        if (body.message.length > 130) return opsError(422, "Message can not be longer than 130 characters");
        const who = req.accountId ?? "api-user";
        return receipt(
          site.enqueue(() => createAlert(site, body, who)),
          200,
        );
      }),
    },
    {
      method: "GET",
      path: `${P}/alerts`,
      handler: withSite(state, (site, req) => {
        const size = Math.min(Number(q(req, "size") ?? 20), 100);
        const offset = Number(q(req, "offset") ?? 0);
        if (offset + size >= 20000) return opsError(422, "offset + size must be below 20000");
        const query = (q(req, "query") ?? "").trim();
        let list = [...site.alerts.values()];
        const m = /^status\s*[:=]\s*(\w+)$/.exec(query);
        if (m) list = list.filter((a) => a.status === m[1]);
        else if (query) list = list.filter((a) => a.message.toLowerCase().includes(query.toLowerCase()));
        const sortKey = (q(req, "sort") ?? "createdAt") as "createdAt";
        const asc = q(req, "order") === "asc";
        list.sort((a, b) => (String(a[sortKey] ?? a.createdAt) < String(b[sortKey] ?? b.createdAt) ? -1 : 1) * (asc ? 1 : -1));
        const page = list.slice(offset, offset + size);
        const next = offset + size < list.length ? `/v1/alerts?offset=${offset + size}&size=${size}` : undefined;
        return json(200, { values: page.map(publicAlert), count: list.length, links: next ? { next } : {} });
      }),
    },
    {
      method: "GET",
      path: `${P}/alerts/requests/{id}`,
      handler: withSite(state, (site, req) => {
        const st = site.requestStatus(req.params.id!);
        return st ? json(200, st) : opsError(404, "Request not found. It may not be processed yet.");
      }),
    },
    {
      method: "GET",
      path: `${P}/alerts/alias`,
      handler: withSite(state, (site, req) => {
        const a = [...site.alerts.values()].find((x) => x.alias === q(req, "alias"));
        return a ? json(200, publicAlert(a)) : opsError(404, "Alert not found");
      }),
    },
    {
      method: "GET",
      path: `${P}/alerts/{id}`,
      handler: withSite(state, (site, req) => {
        const a = site.alerts.get(req.params.id!);
        return a ? json(200, publicAlert(a)) : opsError(404, "Alert not found");
      }),
    },
    {
      method: "DELETE",
      path: `${P}/alerts/{id}`,
      handler: asyncChange(state, "Delete", "Deleted alert", (site, a, _b, who) => {
        site.alerts.delete(a.id);
        site.notes.delete(a.id);
        site.deliver("Delete", a, who);
      }),
    },
    {
      method: "POST",
      path: `${P}/alerts/{id}/acknowledge`,
      handler: asyncChange(state, "Acknowledge", "Acknowledged alert", (site, a, _b, who) => {
        if (a.status === "closed") return;
        a.acknowledged = true;
        a.status = "acked";
        a.ackTime = site.now().toISOString();
        site.deliver("Acknowledge", a, who);
      }),
    },
    {
      method: "POST",
      path: `${P}/alerts/{id}/close`,
      handler: asyncChange(state, "Close", "Closed alert", (site, a, _b, who) => {
        a.status = "closed";
        a.closeTime = site.now().toISOString();
        site.deliver("Close", a, who);
      }),
    },
    {
      method: "PATCH",
      path: `${P}/alerts/{id}/priority`,
      handler: asyncChange(state, "UpdatePriority", "Updated priority", (_s, a, b) => void (a.priority = String(b.priority))),
    },
    {
      method: "PATCH",
      path: `${P}/alerts/{id}/message`,
      handler: asyncChange(state, "UpdateMessage", "Updated message", (_s, a, b) => void (a.message = String(b.message))),
    },
    {
      method: "PATCH",
      path: `${P}/alerts/{id}/description`,
      handler: asyncChange(state, "UpdateDescription", "Updated description", (_s, a, b) => void (a.description = String(b.description))),
    },
    {
      method: "POST",
      path: `${P}/alerts/{id}/assign`,
      handler: asyncChange(state, "AssignOwnership", "Assigned alert", (_s, a, b) => void (a.owner = String(b.accountId))),
    },
    ...noteRoutes(state),
  ];
}

function noteRoutes(state: OpsState): FakeRoute[] {
  const P = OPS_PREFIX;
  return [
    {
      method: "GET",
      path: `${P}/alerts/{id}/notes`,
      handler: withSite(state, (site, req) => {
        if (!site.alerts.has(req.params.id!)) return opsError(404, "Alert not found");
        return json(200, { values: site.notes.get(req.params.id!) ?? [], links: {} });
      }),
    },
    {
      method: "POST",
      path: `${P}/alerts/{id}/notes`,
      handler: withSite(state, (site, req) => {
        if (!site.alerts.has(req.params.id!)) return opsError(404, "Alert not found");
        const now = site.now().toISOString();
        const list = site.notes.get(req.params.id!) ?? [];
        const note = {
          id: `${Date.now()}${String(list.length + 1).padStart(6, "0")}`,
          createdAt: now,
          updatedAt: now,
          note: String((req.body as Body).note),
          owner: req.accountId ?? "api-user",
        };
        list.push(note);
        site.notes.set(req.params.id!, list);
        return json(200, note);
      }),
    },
    {
      method: "PATCH",
      path: `${P}/alerts/{alertId}/notes/{id}`,
      handler: withSite(state, (site, req) => {
        const note = site.notes.get(req.params.alertId!)?.find((n) => n.id === req.params.id);
        if (!note) return opsError(404, "Note not found");
        note.note = String((req.body as Body).note);
        note.updatedAt = site.now().toISOString();
        return json(200, note);
      }),
    },
  ];
}
