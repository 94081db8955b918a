/** Read-only Jira metadata of the fake: myself, projects, issue types, statuses, users, priorities, resolutions, search. */
import { json, jiraError, q, qList, type FakeRoute } from "../route-kit";
import type { FakeAtlassianState } from "../state";
import { JIRA, withSite } from "./common";
import { matchesJql, parseJql, sortByJql } from "./jql";
import { issueBean, issueTypeBean, projectBean, statusBean, userBean } from "./render";

const page = <T>(all: T[], startAt: number, maxResults: number) => {
  const values = all.slice(startAt, startAt + maxResults);
  return { startAt, maxResults, total: all.length, isLast: startAt + values.length >= all.length, values };
};
const num = (v: string | undefined, d: number) => (v === undefined ? d : Number(v));

export function metaRoutes(state: FakeAtlassianState): FakeRoute[] {
  return [
    { method: "GET", path: `${JIRA}/myself`, handler: withSite(state, (site, req) => json(200, userBean(site, req.accountId))) },
    {
      method: "GET",
      path: `${JIRA}/project/search`,
      handler: withSite(state, (site, req) => {
        const query = (q(req, "query") ?? "").toLowerCase();
        const keys = qList(req, "keys");
        const list = [...site.projects.values()]
          .filter((p) => !query || p.key.toLowerCase().includes(query) || p.name.toLowerCase().includes(query))
          .filter((p) => !keys.length || keys.includes(p.key))
          .sort((a, b) => a.key.localeCompare(b.key));
        const max = Math.min(num(q(req, "maxResults"), 50), 100);
        const expand = qList(req, "expand");
        const p = page(list, num(q(req, "startAt"), 0), max);
        return json(200, { ...p, values: p.values.map((x) => projectBean(site, x, expand.includes("issueTypes"))) });
      }),
    },
    {
      method: "GET",
      path: `${JIRA}/project/{projectIdOrKey}`,
      handler: withSite(state, (site, req) => {
        const p = site.project(req.params.projectIdOrKey!);
        return p ? json(200, projectBean(site, p, true)) : jiraError(404, [`No project could be found with key '${req.params.projectIdOrKey}'.`]);
      }),
    },
    {
      method: "GET",
      path: `${JIRA}/issue/createmeta/{projectIdOrKey}/issuetypes`,
      handler: withSite(state, (site, req) => {
        const p = site.project(req.params.projectIdOrKey!);
        if (!p) return jiraError(404, ["No project could be found with key '" + req.params.projectIdOrKey + "'."]);
        const types = p.issueTypeIds.map((id) => issueTypeBean(site, site.issueTypes.get(id)!));
        const startAt = num(q(req, "startAt"), 0);
        const max = Math.min(num(q(req, "maxResults"), 50), 200);
        return json(200, { issueTypes: types.slice(startAt, startAt + max), startAt, maxResults: max, total: types.length });
      }),
    },
    {
      method: "GET",
      path: `${JIRA}/issue/createmeta/{projectIdOrKey}/issuetypes/{issueTypeId}`,
      handler: withSite(state, (site, req) => {
        const p = site.project(req.params.projectIdOrKey!);
        const t = p?.issueTypeIds.includes(req.params.issueTypeId!) ? site.issueTypes.get(req.params.issueTypeId!) : undefined;
        if (!p || !t) return jiraError(404, ["Issue type with id '" + req.params.issueTypeId + "' does not exist or is not in the project."]);
        const field = (fieldId: string, name: string, required: boolean, schema: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
          fieldId,
          key: fieldId,
          name,
          required,
          hasDefaultValue: false,
          operations: ["set"],
          schema,
          ...extra,
        });
        const defaultPriority = site.priorities.find((x) => x.isDefault);
        const fields = [
          field("summary", "Summary", true, { type: "string", system: "summary" }),
          field("issuetype", "Issue Type", true, { type: "issuetype", system: "issuetype" }, { allowedValues: [issueTypeBean(site, t)] }),
          field("project", "Project", true, { type: "project", system: "project" }, { allowedValues: [projectBean(site, p)] }),
          field("description", "Description", false, { type: "string", system: "description" }),
          field("assignee", "Assignee", false, { type: "user", system: "assignee" }),
          field("labels", "Labels", false, { type: "array", items: "string", system: "labels" }, { operations: ["add", "set", "remove"] }),
          field(
            "priority",
            "Priority",
            false,
            { type: "priority", system: "priority" },
            {
              allowedValues: site.priorities.map((x) => ({ self: `${site.apiBase}/priority/${x.id}`, id: x.id, name: x.name })),
              ...(defaultPriority ? { hasDefaultValue: true, defaultValue: { id: defaultPriority.id, name: defaultPriority.name } } : {}),
            },
          ),
          ...(t.subtask ? [field("parent", "Parent", true, { type: "issuelink", system: "parent" })] : []),
        ];
        const startAt = num(q(req, "startAt"), 0);
        const max = Math.min(num(q(req, "maxResults"), 50), 200);
        return json(200, { fields: fields.slice(startAt, startAt + max), startAt, maxResults: max, total: fields.length });
      }),
    },
    {
      method: "GET",
      path: `${JIRA}/project/{projectIdOrKey}/statuses`,
      handler: withSite(state, (site, req) => {
        const p = site.project(req.params.projectIdOrKey!);
        if (!p) return jiraError(404, ["No project could be found with key '" + req.params.projectIdOrKey + "'."]);
        return json(
          200,
          p.issueTypeIds.map((id) => {
            const t = site.issueTypes.get(id)!;
            const wf = site.workflowFor(p, id);
            return {
              self: `${site.apiBase}/issuetype/${id}`,
              id,
              name: t.name,
              subtask: t.subtask,
              statuses: wf.statuses.map((s) => statusBean(site, site.statuses.get(s)!)),
            };
          }),
        );
      }),
    },
    {
      method: "GET",
      path: `${JIRA}/status`,
      handler: withSite(state, (site) =>
        json(
          200,
          [...site.statuses.values()].map((s) => statusBean(site, s)),
        ),
      ),
    },
    ...(["user/search", "user/assignable/search"] as const).map(
      (path): FakeRoute => ({
        method: "GET",
        path: `${JIRA}/${path}`,
        handler: withSite(state, (site, req) => {
          const query = q(req, "query");
          const accountId = q(req, "accountId");
          if (query !== undefined && accountId !== undefined) return jiraError(400, ["The query parameters 'query' and 'accountId' can not be used together."]);
          if (path === "user/assignable/search" && !q(req, "project") && !q(req, "issueKey") && !q(req, "issueId")) {
            return jiraError(400, ["One of the following query parameters must be provided: issueKey, issueId, project."]);
          }
          const needle = (query ?? "").toLowerCase();
          const users = [...site.members]
            .map((id) => state.users.get(id)!)
            .filter((u) => u.accountType === "atlassian" && u.active)
            .filter((u) =>
              accountId
                ? u.accountId === accountId
                : !needle || u.displayName.toLowerCase().includes(needle) || (u.emailAddress ?? "").toLowerCase().startsWith(needle),
            )
            .slice(num(q(req, "startAt"), 0), num(q(req, "startAt"), 0) + num(q(req, "maxResults"), 50));
          return json(
            200,
            users.map((u) => userBean(site, u.accountId)),
          );
        }),
      }),
    ),
    {
      method: "GET",
      path: `${JIRA}/priority/search`,
      handler: withSite(state, (site, req) => {
        const list = site.priorities.map((p) => ({
          self: `${site.apiBase}/priority/${p.id}`,
          id: p.id,
          name: p.name,
          description: "",
          iconUrl: "",
          statusColor: "#cccccc",
          isDefault: Boolean(p.isDefault),
        }));
        return json(200, page(list, num(q(req, "startAt"), 0), num(q(req, "maxResults"), 50)));
      }),
    },
    {
      method: "GET",
      path: `${JIRA}/resolution/search`,
      handler: withSite(state, (site, req) =>
        json(
          200,
          page(
            site.resolutions.map((r) => ({ ...r, description: "", isDefault: false })),
            num(q(req, "startAt"), 0),
            num(q(req, "maxResults"), 50),
          ),
        ),
      ),
    },
    {
      method: "GET",
      path: `${JIRA}/search/jql`,
      handler: withSite(state, (site, req) => {
        let jql;
        try {
          jql = parseJql(q(req, "jql") ?? "");
        } catch (e) {
          return jiraError(400, [(e as Error).message]);
        }
        if (!jql.or.length) return jiraError(400, ["Unbounded JQL queries are not allowed here. Please add a search restriction to your query."]);
        const now = state.now().getTime();
        const all = sortByJql(
          [...site.issues.values()].filter((i) => matchesJql(site, i, jql, now)),
          jql,
        );
        const max = Math.min(num(q(req, "maxResults"), 50), 5000);
        const start = Number(q(req, "nextPageToken") ? Buffer.from(q(req, "nextPageToken")!, "base64url").toString() : 0);
        const fields = qList(req, "fields");
        const slice = all.slice(start, start + max);
        const more = start + slice.length < all.length;
        return json(200, {
          issues: slice.map((i) => (fields.length ? issueBean(site, i, { fields, expand: qList(req, "expand") }) : { id: i.id })),
          isLast: !more,
          ...(more ? { nextPageToken: Buffer.from(String(start + slice.length)).toString("base64url") } : {}),
        });
      }),
    },
  ];
}
