/**
 * Names and keys people type, resolved to what the APIs address things by:
 * - an operations team given by name (or id) → its team id (heartbeat endpoints take only the id),
 * - a service desk given by project key, desk id, `projectKey:ABC` or `projectId:10012` → the desk
 *   (id, project id, project key, name).
 * Lists are cached per connection and site for a minute and fetched again when a value is not found
 * (a team or desk created meanwhile).
 */
import type { CheckContext, ConfigProblem, ConnectionHandle } from "../core/define";
import { NonRetryableError } from "../core/errors";
import { hasExpression } from "../core/expressions";
import type { JsmClient, ServiceDesk } from "./jsm-client";
import { cloudIdOf, opsClient, type OpsClient } from "./ops-client";

const TTL_MS = 60_000;
const cache = new Map<string, { at: number; value: Promise<unknown> }>();

/** One load per key at a time (a save checking many nodes shares it); failures are not kept. */
function cached<T>(key: string, fresh: boolean, load: () => Promise<T>): Promise<T> {
  const hit = cache.get(key);
  if (!fresh && hit && Date.now() - hit.at < TTL_MS) return hit.value as Promise<T>;
  const value = load();
  if (cache.size > 1000) cache.clear();
  const entry = { at: Date.now(), value };
  cache.set(key, entry);
  value.catch(() => cache.get(key) === entry && cache.delete(key));
  return value;
}

const scope = (conn: ConnectionHandle | undefined, what: string) => `${what}:${conn?.id ?? ""}:${cloudIdOf(conn) ?? ""}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type Team = { teamId: string; teamName: string };

/** The team `value` names (id, exact name, then name ignoring case), or a message saying why none. */
export function pickTeam(teams: Team[], value: string): { team?: Team; problem?: string } {
  const v = value.trim();
  const byId = teams.find((t) => t.teamId === v);
  if (byId) return { team: byId };
  const exact = teams.filter((t) => t.teamName === v);
  const named = exact.length ? exact : teams.filter((t) => t.teamName.toLowerCase() === v.toLowerCase());
  if (named.length === 1) return { team: named[0] };
  if (named.length > 1) return { problem: `Several operations teams are named "${v}"; choose the team from the list.` };
  const known = teams.map((t) => t.teamName).join(", ") || "none";
  return { problem: `No operations team "${v}" is visible to the connected user (teams: ${known}).` };
}

async function findTeam(ops: OpsClient, conn: ConnectionHandle | undefined, value: string) {
  const load = (fresh: boolean) => cached(scope(conn, "teams"), fresh, () => ops.listTeams());
  const found = pickTeam(await load(false), value);
  return found.team ? found : pickTeam(await load(true), value);
}

/**
 * The team id for a team id or name. An id-shaped value that is not listed is passed on as it is (members see
 * only their own teams in the list; the operations API answers for the rest).
 */
export async function teamIdOf(ops: OpsClient, conn: ConnectionHandle | undefined, value: string): Promise<string> {
  const v = value.trim();
  const found = await findTeam(ops, conn, v);
  if (found.team) return found.team.teamId;
  if (UUID.test(v)) return v;
  throw new NonRetryableError(found.problem!);
}

/** Save-time check of the heartbeat components: the team exists (by id or name). */
export async function teamCheck(config: { team: string }, ctx: CheckContext): Promise<ConfigProblem[]> {
  const v = config.team.trim();
  if (hasExpression(v)) return [];
  const found = await findTeam(opsClient(ctx.connection, ctx.http), ctx.connection, v);
  return found.team || UUID.test(v) ? [] : [{ path: "team", message: found.problem! }];
}

/** How a service desk was written: the desk id, or its project by key or id (the forms the JSM API accepts). */
export function deskRef(value: string): { deskId?: string; projectKey?: string; projectId?: string } {
  const v = value.trim();
  const m = /^project(Key|Id):(.+)$/i.exec(v);
  if (m) return m[1]!.toLowerCase() === "key" ? { projectKey: m[2]!.trim() } : { projectId: m[2]!.trim() };
  return /^\d+$/.test(v) ? { deskId: v } : { projectKey: v };
}

export function pickDesk(desks: ServiceDesk[], value: string): ServiceDesk | undefined {
  const ref = deskRef(value);
  if (ref.deskId) return desks.find((d) => d.id === ref.deskId) ?? desks.find((d) => d.projectId === ref.deskId);
  if (ref.projectId) return desks.find((d) => d.projectId === ref.projectId);
  return desks.find((d) => d.projectKey.toUpperCase() === ref.projectKey!.toUpperCase());
}

/** The service desk `value` refers to, or undefined when the connected user sees no such desk. */
export async function findServiceDesk(jsm: JsmClient, conn: ConnectionHandle | undefined, value: string): Promise<ServiceDesk | undefined> {
  const load = (fresh: boolean) => cached(scope(conn, "desks"), fresh, () => jsm.listServiceDesks());
  return pickDesk(await load(false), value) ?? pickDesk(await load(true), value);
}

export const deskMissing = (value: string) => `Service desk "${value}" does not exist or is not visible to the connected user; choose one from the list.`;

/** Like findServiceDesk, failing the step with a clear message when there is no such desk. */
export async function requireServiceDesk(jsm: JsmClient, conn: ConnectionHandle | undefined, value: string): Promise<ServiceDesk> {
  const desk = await findServiceDesk(jsm, conn, value);
  if (!desk) throw new NonRetryableError(deskMissing(value));
  return desk;
}

/** Connection-state key: desk values that are not a project key (an id typed by hand) → the desk's project key. */
export const DESK_KEYS = "jsmServiceDeskKeys";

/** The project key webhook events of this desk value carry (no network: uses what setup remembered). */
export function deskProjectKey(value: string, state: Record<string, unknown> | undefined): string {
  const known = (state?.[DESK_KEYS] as Record<string, string> | undefined)?.[value.trim()];
  if (known) return known;
  const ref = deskRef(value);
  return (ref.projectKey ?? value).trim().toUpperCase();
}

/** State patch remembering the project key behind `value` when it is not the key itself. */
export function rememberDeskKey(state: Record<string, unknown> | undefined, value: string, desk: ServiceDesk): Record<string, unknown> {
  if (deskRef(value).projectKey?.toUpperCase() === desk.projectKey.toUpperCase()) return {};
  return { [DESK_KEYS]: { ...((state?.[DESK_KEYS] as Record<string, string> | undefined) ?? {}), [value.trim()]: desk.projectKey.toUpperCase() } };
}
