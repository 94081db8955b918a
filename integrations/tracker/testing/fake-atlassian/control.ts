/**
 * Test-control endpoints of the fake (not part of any Atlassian API, no token needed), for offline demos and
 * for tests driving the fake from another process (e.g. Playwright against a fake started by the CLI):
 *   POST /__fake/jira/issues              {project, summary, issueType?, reporter?, description?}  → {id, key}
 *   POST /__fake/jira/issues/{key}/comments {text, author?}                                       → {id}
 *   GET  /__fake/jira/issues/{key}         → {key, status, comments[], ...}
 *   GET  /__fake/jira/webhooks             → registered dynamic webhooks with expiry
 *   POST /__fake/faults                    {method?, path?, status | lose: "reset"|"hang", retryAfter?, times?}
 * Changes made here raise webhook deliveries exactly like API changes do.
 */
import { json, type FakeModule } from "./route-kit";
import type { FakeAtlassianState } from "./state";

type Body = Record<string, unknown>;
const adf = (text: string) => ({ type: "doc", version: 1, content: [{ type: "paragraph", content: [{ type: "text", text }] }] });

export function controlModule(state: FakeAtlassianState): FakeModule {
  const site = () => [...state.sites.values()][0]!;
  const actor = (v: unknown) =>
    typeof v === "string" && state.users.has(v) ? v : ([...state.users.keys()].find((id) => id !== state.consentAccountId) ?? state.consentAccountId);
  return {
    name: "control",
    routes: [
      {
        method: "POST",
        path: "/__fake/jira/issues",
        auth: "none",
        handler: (req) => {
          const b = (req.body ?? {}) as Body;
          const s = site();
          const project = s.project(String(b.project ?? ""));
          if (!project) return json(400, { error: `unknown project ${String(b.project)}` });
          const wanted = String(b.issueType ?? "");
          const type =
            project.issueTypeIds.map((id) => s.issueTypes.get(id)!).find((t) => t.id === wanted || t.name === wanted) ??
            s.issueTypes.get(project.issueTypeIds[0]!)!;
          const issue = s.createIssue(
            {
              projectId: project.id,
              issueTypeId: type.id,
              summary: String(b.summary ?? "Created from the fake"),
              description: typeof b.description === "string" ? adf(b.description) : null,
              reporterId: actor(b.reporter),
              labels: [],
            },
            actor(b.reporter),
          );
          return json(201, { id: issue.id, key: issue.key });
        },
      },
      {
        method: "POST",
        path: "/__fake/jira/issues/{key}/comments",
        auth: "none",
        handler: (req) => {
          const issue = site().issue(req.params.key!);
          if (!issue) return json(404, { error: "no such issue" });
          const b = (req.body ?? {}) as Body;
          const c = site().addComment(issue, adf(String(b.text ?? "")), actor(b.author));
          return json(201, { id: c.id });
        },
      },
      {
        method: "GET",
        path: "/__fake/jira/issues/{key}",
        auth: "none",
        handler: (req) => {
          const s = site();
          const issue = s.issue(req.params.key!);
          if (!issue) return json(404, { error: "no such issue" });
          return json(200, {
            id: issue.id,
            key: issue.key,
            summary: issue.summary,
            status: s.statuses.get(issue.statusId)!.name,
            resolution: s.resolutions.find((r) => r.id === issue.resolutionId)?.name ?? null,
            comments: issue.comments.length,
          });
        },
      },
      {
        method: "GET",
        path: "/__fake/jira/webhooks",
        auth: "none",
        handler: () =>
          json(
            200,
            [...site().webhooks.values()].map((w) => ({
              id: w.id,
              url: w.url,
              events: w.events,
              jqlFilter: w.jqlFilter,
              expiresAt: new Date(w.expiresAt).toISOString(),
            })),
          ),
      },
      {
        method: "POST",
        path: "/__fake/faults",
        auth: "none",
        handler: (req) => {
          const b = (req.body ?? {}) as Body;
          state.fail({
            method: b.method as string | undefined,
            path: b.path as string | undefined,
            status: b.status === undefined ? undefined : Number(b.status),
            lose: b.lose === "reset" || b.lose === "hang" ? b.lose : undefined,
            retryAfter: b.retryAfter as number | undefined,
            times: b.times as number | undefined,
          });
          return json(204);
        },
      },
    ],
  };
}
