/**
 * The ONE Jira dynamic-webhook registration per tracker connection (Jira allows one callback URL per OAuth app),
 * shared by tracker.onIssue, tracker.onIssueComment and tracker.onIncident (`sharedKey` "jira-webhook"):
 * - setup: acquire the registration, registering (or re-registering with merged events and a project JQL
 *   filter) when what the enabled triggers need is not covered yet;
 * - teardown: release; the last user deletes the webhooks, others shrink the registration to what is left;
 * - maintain: re-register when Jira dropped the webhooks, refresh them before their 30-day expiry.
 * The callback URL is the connection's shared intake URL, which carries an unguessable token; deliveries are
 * also checked for Atlassian's bearer JWT (HS256 with the app's client secret, UPSTREAM §D.15).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingDelivery, RegistrationRecord, TriggerMatchContext, TriggerSetupContext } from "../core/define";
import { DeliveryUnauthorizedError, NonRetryableError } from "../core/errors";
import { expiryMs, jiraClient, type DynamicWebhookSpec, type JiraClient } from "./jira-client";
import { deskProjectKey } from "./lookups";
import { jqlString } from "./resources";

export const SHARED_KEY = "jira-webhook";
export const WEBHOOK_TTL_MS = 30 * 24 * 3600 * 1000;
/** Refresh when fewer than this many ms remain (maintain runs at least daily). */
export const REFRESH_MARGIN_MS = 10 * 24 * 3600 * 1000;

const ISSUE_EVENTS = { created: "jira:issue_created", updated: "jira:issue_updated", deleted: "jira:issue_deleted" } as const;
const COMMENT_EVENTS = { created: "comment_created", updated: "comment_updated", deleted: "comment_deleted" } as const;

export interface Interest {
  projects: string[];
  events: string[];
}
type Cfg = Record<string, unknown>;
const eventsOf = (config: Cfg, map: Record<string, string>) =>
  ((config.events as string[] | undefined) ?? []).map((e) => map[e]).filter((e): e is string => Boolean(e));
const projectsOf = (config: Cfg) =>
  [config.project ?? config.projectKey].filter((p): p is string => typeof p === "string" && p.length > 0).map((p) => p.toUpperCase());

/** What each trigger using the shared registration needs. tracker.onIncident has its entry here too. */
export const INTERESTS: Record<string, (config: Cfg, state?: Record<string, unknown>) => Interest> = {
  "tracker.onIssue": (c) => ({ projects: projectsOf(c), events: eventsOf(c, ISSUE_EVENTS) }),
  "tracker.onIssueComment": (c) => ({ projects: projectsOf(c), events: eventsOf(c, COMMENT_EVENTS) }),
  "tracker.onIncident": (c, state) => ({
    projects: typeof c.serviceDesk === "string" && c.serviceDesk.trim() ? [deskProjectKey(c.serviceDesk, state)] : [],
    events: eventsOf(c, ISSUE_EVENTS),
  }),
};

/**
 * Merges interests into webhook entries: events wanted by the same set of projects share one JQL filter.
 * `state` is the connection's (it maps service desks given by id to their project keys).
 */
export function webhookSpec(users: Array<{ triggerKey: string; config: unknown }>, state?: Record<string, unknown>): DynamicWebhookSpec[] {
  const byEvent = new Map<string, Set<string>>();
  for (const u of users) {
    const interest = INTERESTS[u.triggerKey]?.((u.config ?? {}) as Cfg, state);
    if (!interest) continue;
    for (const e of interest.events) for (const p of interest.projects) byEvent.set(e, (byEvent.get(e) ?? new Set()).add(p));
  }
  const groups = new Map<string, string[]>();
  for (const [event, projects] of [...byEvent].sort(([a], [b]) => a.localeCompare(b))) {
    const key = [...projects].sort().join(",");
    groups.set(key, [...(groups.get(key) ?? []), event]);
  }
  return [...groups].map(([projects, events]) => ({ events, jqlFilter: `project IN (${projects.split(",").map(jqlString).join(", ")})` }));
}

interface RegData {
  webhookIds: number[];
  url: string;
  spec: DynamicWebhookSpec[];
}
const dataOf = (r: RegistrationRecord): RegData => (r.data ?? { webhookIds: [], url: "", spec: [] }) as unknown as RegData;

const pairs = (spec: DynamicWebhookSpec[]) =>
  new Set(spec.flatMap((w) => w.events.flatMap((e) => [...w.jqlFilter.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => `${e}|${m[1]}`))));
/** True when `have` delivers every event/project pair of `want` to `url`. */
export function covers(have: RegistrationRecord, want: DynamicWebhookSpec[], url: string): boolean {
  const d = dataOf(have);
  if (d.url !== url) return false;
  const got = pairs(d.spec);
  return [...pairs(want)].every((p) => got.has(p));
}

async function register(jira: JiraClient, url: string, spec: DynamicWebhookSpec[], now: number): Promise<RegistrationRecord> {
  if (!spec.length) throw new NonRetryableError("No events to register: choose a project and at least one event.");
  const results = await jira.registerWebhooks(url, spec);
  const ids = results.map((r) => r.createdWebhookId).filter((id): id is number => typeof id === "number");
  const errors = results.flatMap((r) => r.errors ?? []);
  if (errors.length || ids.length !== spec.length) {
    if (ids.length) await jira.deleteWebhooks(ids);
    throw new NonRetryableError(`Jira refused the webhook registration: ${errors.join("; ") || "no webhook was created"}`);
  }
  const live = await jira.listWebhooks();
  const expiries = live
    .filter((w) => ids.includes(w.id))
    .map((w) => expiryMs(w.expirationDate))
    .filter((x): x is number => x !== undefined);
  const expiresAt = expiries.length ? Math.min(...expiries) : now + WEBHOOK_TTL_MS;
  return {
    upstreamId: ids.join(","),
    expiresAt: new Date(expiresAt).toISOString(),
    data: { webhookIds: ids, url, spec } as unknown as Record<string, unknown>,
  };
}

/**
 * Registers the new set first, then deletes the old webhooks (no gap in deliveries). When the callback URL
 * itself changes the old ones go first: Jira accepts one URL per app.
 */
async function replace(jira: JiraClient, old: RegistrationRecord | undefined, url: string, spec: DynamicWebhookSpec[], now: number) {
  const stale = old ? dataOf(old).webhookIds : [];
  const moved = old !== undefined && dataOf(old).url !== url;
  if (moved && stale.length) await jira.deleteWebhooks(stale);
  const next = await register(jira, url, spec, now);
  if (!moved && stale.length) await jira.deleteWebhooks(stale);
  return next;
}

type SetupCtx = TriggerSetupContext<unknown, Record<string, unknown>> & { now?: () => Date };
const nowOf = (ctx: SetupCtx) => (ctx.now ? ctx.now().getTime() : Date.now());

function sharedUrl(ctx: SetupCtx): string {
  if (!ctx.sharedIntake?.url) throw new NonRetryableError("The connection has no shared webhook intake yet; save the connection again.");
  return ctx.sharedIntake.url;
}

const others = (ctx: SetupCtx, users: Array<{ automationId: string; nodeId: string; triggerKey: string; config: unknown }>) =>
  users.filter((u) => !(u.automationId === ctx.automationId && u.nodeId === ctx.nodeId));

export async function setupShared(ctx: SetupCtx, triggerKey: string): Promise<{ registration: RegistrationRecord }> {
  const url = sharedUrl(ctx);
  const jira = jiraClient(ctx.connection!, ctx.http);
  const now = nowOf(ctx);
  const users = [
    ...others(ctx, await ctx.registrations.users(SHARED_KEY)),
    { automationId: ctx.automationId, nodeId: ctx.nodeId, triggerKey, config: ctx.config },
  ];
  const spec = webhookSpec(users, ctx.connection?.state);
  const registration = await ctx.registrations.acquire(
    SHARED_KEY,
    () => register(jira, url, spec, now),
    async (existing) => (covers(existing, spec, url) ? existing : replace(jira, existing, url, spec, now)),
  );
  return { registration };
}

export async function teardownShared(ctx: SetupCtx): Promise<void> {
  const jira = jiraClient(ctx.connection!, ctx.http);
  await ctx.registrations.release(SHARED_KEY, async (existing) => {
    const ids = dataOf(existing).webhookIds;
    if (ids.length) await jira.deleteWebhooks(ids);
  });
  const still = await ctx.registrations.get(SHARED_KEY);
  if (!still) return;
  const spec = webhookSpec(others(ctx, await ctx.registrations.users(SHARED_KEY)), ctx.connection?.state);
  const d = dataOf(still);
  if (!spec.length || JSON.stringify(spec) === JSON.stringify(d.spec)) return;
  await ctx.registrations.save(SHARED_KEY, await replace(jira, still, d.url, spec, nowOf(ctx)));
}

export async function maintainShared(ctx: SetupCtx): Promise<void> {
  const rec = await ctx.registrations.get(SHARED_KEY);
  if (!rec) return;
  const jira = jiraClient(ctx.connection!, ctx.http);
  const d = dataOf(rec);
  const now = nowOf(ctx);
  const live = new Set((await jira.listWebhooks()).map((w) => w.id));
  const urlMoved = Boolean(ctx.sharedIntake?.url) && d.url !== ctx.sharedIntake!.url; // e.g. the public URL changed
  const wanted = webhookSpec(await ctx.registrations.users(SHARED_KEY), ctx.connection?.state);
  // Not covering what the triggers need: e.g. a service desk registered by id before desks were resolved to keys.
  const stale = wanted.length > 0 && !covers(rec, wanted, d.url);
  if (!d.webhookIds.length || d.webhookIds.some((id) => !live.has(id)) || urlMoved || stale) {
    ctx.log.warn("Jira webhook registration missing, expired, outdated or pointing elsewhere; registering again", { webhookIds: d.webhookIds });
    if (!wanted.length) return;
    await ctx.registrations.save(SHARED_KEY, await replace(jira, rec, sharedUrl(ctx), wanted, now));
    return;
  }
  const expiresAt = rec.expiresAt ? Date.parse(rec.expiresAt) : 0;
  if (expiresAt - now > REFRESH_MARGIN_MS) return;
  const res = await jira.refreshWebhooks(d.webhookIds);
  const next = expiryMs(res.expirationDate) ?? now + WEBHOOK_TTL_MS;
  await ctx.registrations.save(SHARED_KEY, { ...rec, expiresAt: new Date(next).toISOString() });
  ctx.log.info("Jira webhooks refreshed", { webhookIds: d.webhookIds, expiresAt: new Date(next).toISOString() });
}

// ---- Deliveries -------------------------------------------------------------------------------

export function header(delivery: IncomingDelivery, name: string): string | undefined {
  const want = name.toLowerCase();
  for (const [k, v] of Object.entries(delivery.headers)) if (k.toLowerCase() === want) return v;
  return undefined;
}

/** Jira signs OAuth dynamic-webhook deliveries with an HS256 JWT keyed by the app's client secret (claims unconfirmed). */
export function verifyJiraDelivery(delivery: IncomingDelivery, ctx: TriggerMatchContext<unknown, Record<string, unknown>>): void {
  const secret = ctx.connection?.config.clientSecret;
  if (typeof secret !== "string" || !secret) throw new DeliveryUnauthorizedError("The tracker connection has no client secret to check deliveries with");
  const m = /^Bearer\s+([\w-]+)\.([\w-]+)\.([\w-]+)$/i.exec(header(delivery, "authorization") ?? "");
  if (!m) throw new DeliveryUnauthorizedError("Missing Atlassian JWT in the Authorization header");
  const [, h, p, sig] = m as unknown as [string, string, string, string];
  let head: { alg?: string };
  let claims: { exp?: number };
  try {
    head = JSON.parse(Buffer.from(h, "base64url").toString());
    claims = JSON.parse(Buffer.from(p, "base64url").toString());
  } catch {
    throw new DeliveryUnauthorizedError("Malformed JWT");
  }
  if (head.alg !== "HS256") throw new DeliveryUnauthorizedError(`Unexpected JWT algorithm ${String(head.alg)}`);
  const expected = createHmac("sha256", secret).update(`${h}.${p}`).digest();
  const given = Buffer.from(sig, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw new DeliveryUnauthorizedError("JWT signature does not match the app's client secret");
  if (typeof claims.exp === "number" && claims.exp * 1000 < ctx.now().getTime() - 5 * 60_000) throw new DeliveryUnauthorizedError("JWT expired");
}

/** Deduplication key: Jira's delivery id, the same across retries. */
export function deliveryKey(delivery: IncomingDelivery, fallback: string): string {
  const id = header(delivery, "x-atlassian-webhook-identifier");
  return `jira:${id ?? fallback}`;
}

export function projectMatches(issue: { fields?: Record<string, unknown> } | undefined, project: string): boolean {
  const p = issue?.fields?.project as { key?: string; id?: string } | undefined;
  const want = project.trim().toUpperCase();
  return Boolean(p && (p.key?.toUpperCase() === want || p.id === project.trim()));
}
