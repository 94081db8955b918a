/** Helpers shared by the fake Jira route files. */
import { jiraError, type FakeRequest, type FakeResponse } from "../route-kit";
import type { FakeIssue, JiraSite } from "../site";
import type { FakeAtlassianState } from "../state";

export const JIRA = "/ex/jira/{cloudId}/rest/api/3";

export type Body = Record<string, unknown>;

/** Resolves `{cloudId}`: unknown sites answer 404, sites the token was not granted for 401 (as the gateway does). */
export function withSite(state: FakeAtlassianState, fn: (site: JiraSite, req: FakeRequest) => FakeResponse | Promise<FakeResponse>) {
  return (req: FakeRequest) => {
    const site = state.site(req.params.cloudId!);
    if (!site) return { status: 404, body: { code: 404, message: "Site not found" } };
    if (req.clientId && req.accountId && !state.grantedSites(req.clientId, req.accountId).includes(site)) {
      return { status: 401, body: { code: 401, message: "Unauthorized" } };
    }
    return fn(site, req);
  };
}

export function withIssue(state: FakeAtlassianState, fn: (site: JiraSite, issue: FakeIssue, req: FakeRequest) => FakeResponse | Promise<FakeResponse>) {
  return withSite(state, (site, req) => {
    const issue = site.issue(req.params.issueIdOrKey!);
    if (!issue) return jiraError(404, ["Issue does not exist or you do not have permission to see it."]);
    return fn(site, issue, req);
  });
}

/** True for an ADF document (`{type:"doc", version:1, content:[...]}`). */
export function isAdf(v: unknown): boolean {
  const d = v as Body | null;
  return Boolean(d && typeof d === "object" && d.type === "doc" && d.version === 1 && Array.isArray(d.content));
}

export const ADF_REQUIRED = "Operation value must be an Atlassian Document (see the Atlassian Document Format)";

/** Reads a user reference `{id}` / `{accountId}`; null = unassign; "bad" = unknown user. */
export function userRef(site: JiraSite, v: unknown): string | null | "bad" | undefined {
  if (v === undefined) return undefined;
  if (v === null) return null;
  const o = v as Body;
  const id = (o.id ?? o.accountId) as string | undefined;
  if (typeof id !== "string" || !site.state.users.has(id) || !site.members.has(id)) return "bad";
  return id;
}

export function refId(list: Array<{ id: string; name: string }>, v: unknown): string | undefined {
  const o = (v ?? {}) as Body;
  return list.find((x) => (o.id !== undefined && x.id === String(o.id)) || (o.name !== undefined && x.name === o.name))?.id;
}

export function displayOf(site: JiraSite, accountId: string | undefined | null): string | null {
  return accountId ? (site.state.users.get(accountId)?.displayName ?? null) : null;
}
