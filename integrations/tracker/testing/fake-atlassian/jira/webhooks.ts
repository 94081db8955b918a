/** Dynamic webhooks of the fake Jira (OAuth apps): register, list, delete, refresh (30-day expiry). */
import { json, jiraError, q, type FakeRoute } from "../route-kit";
import type { FakeAtlassianState } from "../state";
import { JIRA, withSite, type Body } from "./common";
import { WEBHOOK_FIELDS, WEBHOOK_OPS, parseJql } from "./jql";

export const WEBHOOK_TTL_MS = 30 * 24 * 3600 * 1000;

/** Returns the problems of a dynamic-webhook `jqlFilter` (only a few fields and operators are supported). */
export function jqlFilterErrors(jql: string): string[] {
  try {
    const parsed = parseJql(jql);
    if (parsed.orderBy) return ["The ORDER BY clause is unsupported"];
    const errors: string[] = [];
    for (const c of parsed.or.flat()) {
      if (!WEBHOOK_FIELDS.has(c.field)) errors.push(`The clause ${c.field} is unsupported`);
      else if (!WEBHOOK_OPS.has(c.op)) errors.push(`The operator ${c.op} is unsupported`);
    }
    return errors;
  } catch (e) {
    return [(e as Error).message];
  }
}

export function webhookRoutes(state: FakeAtlassianState): FakeRoute[] {
  return [
    {
      method: "POST",
      path: `${JIRA}/webhook`,
      handler: withSite(state, (site, req) => {
        if (!req.clientId) return jiraError(403, ["Only apps can register dynamic webhooks; the caller isn't an app."]);
        const body = req.body as { url: string; webhooks: Array<{ events: string[]; jqlFilter: string; fieldIdsFilter?: string[] }> };
        const mine = [...site.webhooks.values()].filter((w) => w.clientId === req.clientId);
        const otherUrl = mine.find((w) => w.url !== body.url);
        const now = state.now().getTime();
        const results = body.webhooks.map((w) => {
          if (otherUrl) return { errors: [`Only one webhook URL per app is allowed; ${otherUrl.url} is already registered.`] };
          const errors = jqlFilterErrors(w.jqlFilter);
          if (errors.length) return { errors };
          const id = site.nextId("webhook");
          site.webhooks.set(id, {
            id,
            clientId: req.clientId!,
            ownerAccountId: req.accountId!,
            url: body.url,
            events: w.events,
            jqlFilter: w.jqlFilter,
            fieldIdsFilter: w.fieldIdsFilter,
            expiresAt: now + WEBHOOK_TTL_MS,
          });
          return { createdWebhookId: id };
        });
        return json(200, { webhookRegistrationResult: results });
      }),
    },
    {
      method: "GET",
      path: `${JIRA}/webhook`,
      handler: withSite(state, (site, req) => {
        const now = state.now().getTime();
        const all = [...site.webhooks.values()].filter((w) => w.clientId === req.clientId && w.expiresAt > now);
        const startAt = Number(q(req, "startAt") ?? 0);
        const maxResults = Math.min(Number(q(req, "maxResults") ?? 100), 100);
        const values = all.slice(startAt, startAt + maxResults).map((w) => ({
          id: w.id,
          url: w.url,
          events: w.events,
          jqlFilter: w.jqlFilter,
          ...(w.fieldIdsFilter ? { fieldIdsFilter: w.fieldIdsFilter } : {}),
          expirationDate: w.expiresAt,
        }));
        return json(200, { startAt, maxResults, total: all.length, isLast: startAt + values.length >= all.length, values });
      }),
    },
    {
      method: "DELETE",
      path: `${JIRA}/webhook`,
      handler: withSite(state, (site, req) => {
        for (const id of ((req.body ?? {}) as Body).webhookIds as number[]) {
          if (site.webhooks.get(id)?.clientId === req.clientId) site.webhooks.delete(id);
        }
        return json(202);
      }),
    },
    {
      method: "PUT",
      path: `${JIRA}/webhook/refresh`,
      handler: withSite(state, (site, req) => {
        const expiresAt = state.now().getTime() + WEBHOOK_TTL_MS;
        for (const id of ((req.body ?? {}) as Body).webhookIds as number[]) {
          const w = site.webhooks.get(id);
          if (w && w.clientId === req.clientId && w.expiresAt > state.now().getTime()) w.expiresAt = expiresAt;
        }
        return json(200, { expirationDate: expiresAt });
      }),
    },
  ];
}
