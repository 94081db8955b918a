/** Dynamic dropdowns of the operations module: teams, heartbeats of a team, recent alerts. */
import type { ResourceLoader } from "../core/define";
import { teamIdOf } from "./lookups";
import { opsClient } from "./ops-client";

const matches = (search: string | undefined, ...texts: string[]) => !search || texts.some((t) => t.toLowerCase().includes(search.toLowerCase()));

export const team: ResourceLoader = async ({ connection, http, search }) => {
  const teams = await opsClient(connection, http).listTeams();
  return { options: teams.filter((t) => matches(search, t.teamName, t.teamId)).map((t) => ({ value: t.teamId, label: t.teamName })) };
};

export const heartbeat: ResourceLoader = async ({ connection, http, config, search }) => {
  const team = typeof config.team === "string" ? config.team.trim() : "";
  if (!team || team.includes("{{")) return { options: [] };
  const ops = opsClient(connection, http);
  const list = await ops.listHeartbeats(await teamIdOf(ops, connection, team));
  return {
    options: list
      .filter((h) => matches(search, h.name))
      .map((h) => ({ value: h.name, label: h.name, description: `every ${h.interval} ${String(h.intervalUnit).toLowerCase()} · ${h.status}` })),
  };
};

/** The 50 most recently created alerts (search matches the message). */
export const alert: ResourceLoader = async ({ connection, http, search }) => {
  const page = await opsClient(connection, http).listAlerts({ size: 50, sort: "createdAt", order: "desc", query: search || undefined });
  return {
    options: page.values.map((a) => ({ value: a.id, label: `#${a.tinyId} ${a.message}`, description: `${a.status} · ${a.priority} · ${a.createdAt}` })),
  };
};

export const opsResources = { teams: team, heartbeats: heartbeat, alerts: alert };
