/** Transitions and comments of the fake Jira. */
import { json, jiraError, q, qList, type FakeRoute } from "../route-kit";
import type { ChangeItem } from "../site";
import type { FakeAtlassianState } from "../state";
import { ADF_REQUIRED, JIRA, isAdf, withIssue, type Body } from "./common";
import { commentBean, statusBean } from "./render";

export function transitionRoutes(state: FakeAtlassianState): FakeRoute[] {
  return [
    {
      method: "GET",
      path: `${JIRA}/issue/{issueIdOrKey}/transitions`,
      handler: withIssue(state, (site, issue, req) => {
        const withFields = qList(req, "expand").includes("transitions.fields");
        const only = q(req, "transitionId");
        const list = site
          .availableTransitions(issue, req.accountId!)
          .filter((t) => !only || t.id === only)
          .map((t) => ({
            id: t.id,
            name: t.name,
            to: statusBean(site, site.statuses.get(t.to)!),
            hasScreen: Boolean(t.screen?.length),
            isGlobal: !t.from,
            isInitial: false,
            isAvailable: true,
            isConditional: Boolean(t.condition),
            isLooped: false,
            ...(withFields
              ? {
                  fields: Object.fromEntries(
                    (t.screen ?? []).map((f) => [
                      f,
                      f === "resolution"
                        ? {
                            required: false,
                            name: "Resolution",
                            key: "resolution",
                            operations: ["set"],
                            allowedValues: site.resolutions,
                            schema: { type: "resolution", system: "resolution" },
                          }
                        : { required: false, name: f, key: f, operations: ["add"], schema: { type: "comments-page", system: f } },
                    ]),
                  ),
                }
              : {}),
          }));
        return json(200, { expand: "transitions", transitions: list });
      }),
    },
    {
      method: "POST",
      path: `${JIRA}/issue/{issueIdOrKey}/transitions`,
      handler: withIssue(state, (site, issue, req) => {
        const body = (req.body ?? {}) as Body;
        const id = String(((body.transition ?? {}) as Body).id ?? "");
        const t = site.availableTransitions(issue, req.accountId!).find((x) => x.id === id);
        if (!t) return jiraError(400, [`Transition id '${id}' is not valid for this issue.`]);
        const fields = (body.fields ?? {}) as Body;
        const update = (body.update ?? {}) as Body;
        const errors: Record<string, string> = {};
        const screen = new Set(t.screen ?? []);
        for (const f of Object.keys(fields)) if (!screen.has(f)) errors[f] = `Field '${f}' cannot be set. It is not on the appropriate screen, or unknown.`;
        for (const f of Object.keys(update))
          if (f !== "comment" && !screen.has(f)) errors[f] = `Field '${f}' cannot be set. It is not on the appropriate screen, or unknown.`;
        let resolutionId: string | undefined;
        if (fields.resolution !== undefined && screen.has("resolution")) {
          const r = fields.resolution as Body;
          resolutionId = site.resolutions.find((x) => x.id === r?.id || x.name === r?.name)?.id;
          if (!resolutionId) errors.resolution = "Resolution is invalid.";
        }
        const comments = ((update.comment ?? []) as Array<Body>).map((op) => (op.add as Body | undefined)?.body);
        if (comments.some((c) => !isAdf(c))) errors.comment = ADF_REQUIRED;
        if (Object.keys(errors).length) return jiraError(400, [], errors);
        const rejection = t.validator?.(issue, fields);
        if (rejection) return jiraError(400, [rejection]);
        const items: ChangeItem[] = [];
        const from = site.statuses.get(issue.statusId)!;
        const to = site.statuses.get(t.to)!;
        if (from.id !== to.id) {
          issue.statusId = to.id;
          items.push({ field: "status", fieldtype: "jira", fieldId: "status", from: from.id, fromString: from.name, to: to.id, toString: to.name });
        }
        if (resolutionId && resolutionId !== issue.resolutionId) {
          const old = site.resolutions.find((r) => r.id === issue.resolutionId);
          issue.resolutionId = resolutionId;
          const nu = site.resolutions.find((r) => r.id === resolutionId)!;
          items.push({
            field: "resolution",
            fieldtype: "jira",
            fieldId: "resolution",
            from: old?.id ?? null,
            fromString: old?.name ?? null,
            to: nu.id,
            toString: nu.name,
          });
        }
        for (const c of comments) site.addComment(issue, c, req.accountId!);
        site.change(issue, items, req.accountId!, "issue_generic");
        return json(204);
      }),
    },
    {
      method: "GET",
      path: `${JIRA}/issue/{issueIdOrKey}/comment`,
      handler: withIssue(state, (site, issue) =>
        json(200, { startAt: 0, maxResults: 5000, total: issue.comments.length, comments: issue.comments.map((c) => commentBean(site, c)) }),
      ),
    },
    {
      method: "POST",
      path: `${JIRA}/issue/{issueIdOrKey}/comment`,
      handler: withIssue(state, (site, issue, req) => {
        const body = (req.body ?? {}) as Body;
        if (!isAdf(body.body)) return jiraError(400, [], { comment: ADF_REQUIRED });
        return json(201, commentBean(site, site.addComment(issue, body.body, req.accountId!)));
      }),
    },
    {
      method: "PUT",
      path: `${JIRA}/issue/{issueIdOrKey}/comment/{id}`,
      handler: withIssue(state, (site, issue, req) => {
        const comment = issue.comments.find((c) => c.id === req.params.id);
        if (!comment) return jiraError(404, ["Can not find a comment for the id: " + req.params.id + "."]);
        const body = (req.body ?? {}) as Body;
        if (!isAdf(body.body)) return jiraError(400, [], { comment: ADF_REQUIRED });
        site.editComment(issue, comment, body.body, req.accountId!);
        return json(200, commentBean(site, comment));
      }),
    },
    {
      method: "DELETE",
      path: `${JIRA}/issue/{issueIdOrKey}/comment/{id}`,
      handler: withIssue(state, (site, issue, req) => {
        const comment = issue.comments.find((c) => c.id === req.params.id);
        if (!comment) return jiraError(404, ["Can not find a comment for the id: " + req.params.id + "."]);
        site.deleteComment(issue, comment, req.accountId!);
        return json(204);
      }),
    },
  ];
}
