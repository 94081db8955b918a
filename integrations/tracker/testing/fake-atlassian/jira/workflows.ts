/** Workflow schemes and workflows of the fake Jira (admin endpoints, `manage:jira-configuration`). */
import { json, jiraError, qList, type FakeRoute } from "../route-kit";
import type { JiraSite, JiraWorkflow } from "../site";
import type { FakeAtlassianState } from "../state";
import { JIRA, withSite, type Body } from "./common";
import { categoryEnum } from "./render";

function workflowJson(site: JiraSite, wf: JiraWorkflow) {
  const teamOwner = [...site.projects.values()].find((p) => Object.values(p.teamWorkflows ?? {}).includes(wf.name));
  return {
    id: wf.id,
    name: wf.name,
    description: "",
    isEditable: true,
    scope: teamOwner ? { type: "PROJECT", project: { id: teamOwner.id } } : { type: "GLOBAL" },
    statuses: wf.statuses.map((s) => ({ statusReference: s, deprecated: false, properties: {} })),
    transitions: [
      { id: "1", name: "Create", type: "INITIAL", toStatusReference: wf.initial, links: [], actions: [], validators: [], triggers: [], properties: {} },
      ...wf.transitions.map((t) => ({
        id: t.id,
        name: t.name,
        type: t.from ? "DIRECTED" : "GLOBAL",
        toStatusReference: t.to,
        links: (t.from ?? []).map((f) => ({ fromStatusReference: f, fromPort: 0, toPort: 0 })),
        actions: [],
        validators: t.validator ? [{ ruleKey: "system:validate-field-value", parameters: {} }] : [],
        conditions: t.condition
          ? { operation: "ALL", conditions: [{ ruleKey: "system:restrict-issue-transition", parameters: {} }], conditionGroups: [] }
          : undefined,
        triggers: [],
        properties: {},
      })),
    ],
    version: { id: `v-${wf.id}`, versionNumber: 1 },
  };
}

export function workflowRoutes(state: FakeAtlassianState): FakeRoute[] {
  return [
    {
      method: "GET",
      path: `${JIRA}/workflowscheme/project`,
      handler: withSite(state, (site, req) => {
        if (!site.admins.has(req.accountId!)) return jiraError(403, ["Only Jira administrators can access workflow scheme associations."]);
        const ids = qList(req, "projectId");
        const values = ids
          .map((id) => site.projects.get(id))
          .filter((p) => p?.scheme)
          .map((p) => ({
            projectIds: [p!.id],
            workflowScheme: { ...p!.scheme, description: "", self: `${site.apiBase}/workflowscheme/${p!.scheme!.id}` },
          }));
        return json(200, { values });
      }),
    },
    {
      method: "POST",
      path: `${JIRA}/workflows`,
      handler: withSite(state, (site, req) => {
        if (!site.admins.has(req.accountId!)) return jiraError(403, ["You don't have permission to view workflows."]);
        const body = (req.body ?? {}) as Body;
        const names = new Set((body.workflowNames as string[] | undefined) ?? []);
        for (const id of (body.workflowIds as string[] | undefined) ?? []) for (const wf of site.workflows.values()) if (wf.id === id) names.add(wf.name);
        for (const pair of (body.projectAndIssueTypes as Array<{ projectId: string; issueTypeId: string }> | undefined) ?? []) {
          const p = site.projects.get(pair.projectId);
          if (p) names.add(site.workflowFor(p, pair.issueTypeId).name);
        }
        const wfs = [...names].map((n) => site.workflows.get(n)).filter((w): w is JiraWorkflow => Boolean(w));
        const statusIds = new Set(wfs.flatMap((w) => w.statuses));
        return json(200, {
          workflows: wfs.map((w) => workflowJson(site, w)),
          statuses: [...statusIds].map((id) => {
            const s = site.statuses.get(id)!;
            return { id: s.id, name: s.name, statusCategory: categoryEnum(s), statusReference: s.id, description: "", scope: { type: "GLOBAL" } };
          }),
        });
      }),
    },
  ];
}
