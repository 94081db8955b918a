/** Dynamic dropdowns: the silence picker lists Alertmanager's silences (active first). */
import type { ResourceLoader } from "../core/define";
import { AlertmanagerClient } from "./alertmanager-client";
import { normalizeConnection } from "./connection";

const STATE_ORDER: Record<string, number> = { active: 0, pending: 1, expired: 2 };

export const listSilences: ResourceLoader = async (ctx) => {
  const am = new AlertmanagerClient(ctx.http, normalizeConnection(ctx.connection.config));
  const search = ctx.search?.trim().toLowerCase();
  const options = (await am.listSilences())
    .sort((a, b) => (STATE_ORDER[a.status?.state] ?? 3) - (STATE_ORDER[b.status?.state] ?? 3) || b.startsAt.localeCompare(a.startsAt))
    .map((s) => {
      const matchers = s.matchers.map((m) => `${m.name}${m.isEqual === false ? "!" : ""}${m.isRegex ? "=~" : "="}"${m.value}"`).join(", ");
      return {
        value: s.id,
        label: `${matchers} (${s.status?.state ?? "unknown"})`,
        description: `${s.comment} — by ${s.createdBy}, until ${s.endsAt}`,
      };
    })
    .filter((o) => !search || `${o.value} ${o.label} ${o.description}`.toLowerCase().includes(search));
  return { options, nextCursor: null };
};

export const metricsResources = { silence: listSilences };
