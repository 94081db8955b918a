/** Issue CRUD of the fake Jira: POST/GET/PUT/DELETE /rest/api/3/issue[/{issueIdOrKey}]. */
import { json, jiraError, q, qList, type FakeRoute } from "../route-kit";
import type { ChangeItem, FakeIssue, JiraSite } from "../site";
import type { FakeAtlassianState } from "../state";
import { ADF_REQUIRED, JIRA, displayOf, isAdf, refId, userRef, withIssue, withSite, type Body } from "./common";
import { issueBean } from "./render";

const SETTABLE = new Set(["project", "issuetype", "summary", "description", "assignee", "reporter", "priority", "labels", "parent"]);
const notOnScreen = (f: string) => `Field '${f}' cannot be set. It is not on the appropriate screen, or unknown.`;

type Changes = { errors: Record<string, string>; apply: Array<() => ChangeItem | undefined> };

/** Validates `fields` (+ `update.labels`) against the issue's project; returns errors and deferred setters. */
function planChanges(site: JiraSite, issue: Partial<FakeIssue>, fields: Body, update: Body): Changes {
  const errors: Record<string, string> = {};
  const apply: Changes["apply"] = [];
  const item = (field: string, from: string | null, fromString: string | null, to: string | null, toString: string | null): ChangeItem => ({
    field,
    fieldtype: "jira",
    fieldId: field,
    from,
    fromString,
    to,
    toString,
  });
  for (const key of Object.keys(fields)) if (!SETTABLE.has(key) && !site.extraFields.has(key)) errors[key] = notOnScreen(key);
  for (const key of Object.keys(fields)) {
    if (!site.extraFields.has(key)) continue;
    apply.push(() => {
      issue.extra = { ...issue.extra, [key]: fields[key] };
      return item(key, null, null, null, typeof fields[key] === "string" ? (fields[key] as string) : JSON.stringify(fields[key]));
    });
  }
  for (const key of Object.keys(update)) if (key in fields) errors[key] = `Field '${key}' cannot be set in both 'fields' and 'update'.`;
  if ("summary" in fields) {
    const s = fields.summary;
    if (typeof s !== "string" || !s.trim()) errors.summary = "You must specify a summary of the issue.";
    else if (s.length > 255) errors.summary = "Summary must be less than 255 characters.";
    else
      apply.push(() => {
        const from = issue.summary ?? null;
        issue.summary = s;
        return from === s ? undefined : item("summary", null, from, null, s);
      });
  }
  if ("description" in fields) {
    const d = fields.description;
    if (d !== null && !isAdf(d)) errors.description = ADF_REQUIRED;
    else apply.push(() => ((issue.description = d), item("description", null, null, null, null)));
  }
  if ("assignee" in fields) {
    const a = userRef(site, fields.assignee);
    if (a === "bad") errors.assignee = "Specified user does not exist or you do not have required permissions";
    else
      apply.push(() => {
        const from = issue.assigneeId ?? null;
        if (from === a) return undefined;
        issue.assigneeId = a ?? undefined;
        return { ...item("assignee", from, displayOf(site, from), a ?? null, displayOf(site, a)), fieldId: "assignee" };
      });
  }
  if ("priority" in fields) {
    const p = refId(site.priorities, fields.priority);
    if (!p) errors.priority = "Specify the Priority (id or name) in the string format";
    else
      apply.push(() => {
        const from = issue.priorityId ?? null;
        issue.priorityId = p;
        const name = (id: string | null) => site.priorities.find((x) => x.id === id)?.name ?? null;
        return from === p ? undefined : item("priority", from, name(from), p, name(p));
      });
  }
  const labelOps = update.labels as Array<Record<string, string | string[]>> | undefined;
  if ("labels" in fields || labelOps) {
    const bad = (l: unknown) => typeof l !== "string" || /\s/.test(l) || !l;
    let next: string[] | undefined;
    if ("labels" in fields) {
      const ls = fields.labels;
      if (!Array.isArray(ls) || ls.some(bad)) errors.labels = "The label must not contain spaces.";
      else next = ls as string[];
    }
    apply.push(() => {
      const before = [...(issue.labels ?? [])];
      let labels = next ?? [...before];
      for (const op of labelOps ?? []) {
        if (op.add) labels.push(op.add as string);
        if (op.remove) labels = labels.filter((l) => l !== op.remove);
        if (op.set) labels = [...(op.set as string[])];
      }
      issue.labels = [...new Set(labels)];
      return before.join(" ") === issue.labels.join(" ") ? undefined : item("labels", null, before.join(" "), null, issue.labels.join(" "));
    });
  }
  return { errors, apply };
}

export function issueRoutes(state: FakeAtlassianState): FakeRoute[] {
  return [
    {
      method: "POST",
      path: `${JIRA}/issue`,
      handler: withSite(state, (site, req) => {
        const body = (req.body ?? {}) as Body;
        const fields = (body.fields ?? {}) as Body;
        const errors: Record<string, string> = {};
        const pref = (fields.project ?? {}) as Body;
        const project = site.project(String(pref.id ?? pref.key ?? ""));
        if (!project) errors.project = "Specify a valid project ID or key";
        const itRef = (fields.issuetype ?? {}) as Body;
        const types = project ? project.issueTypeIds.map((id) => site.issueTypes.get(id)!) : [];
        const type = types.find((t) => t.id === String(itRef.id ?? "") || t.name === itRef.name);
        if (project && !type) errors.issuetype = "Specify an issue type";
        let parentId: string | undefined;
        if (type?.subtask) {
          const pr = (fields.parent ?? {}) as Body;
          const parent = site.issue(String(pr.key ?? pr.id ?? ""));
          if (!parent) errors.parent = "Given parent work item does not belong to appropriate hierarchy.";
          else parentId = parent.id;
        }
        if (!("summary" in fields)) errors.summary = "You must specify a summary of the issue.";
        const draft: Partial<FakeIssue> = { labels: [] };
        const plan = planChanges(
          site,
          draft,
          Object.fromEntries(Object.entries(fields).filter(([k]) => !["project", "issuetype", "parent", "reporter"].includes(k))),
          (body.update ?? {}) as Body,
        );
        Object.assign(errors, plan.errors);
        for (const f of project?.offCreateScreen ?? []) if (f in fields || f in ((body.update ?? {}) as Body)) errors[f] = notOnScreen(f);
        if (Object.keys(errors).length) return jiraError(400, [], errors);
        for (const a of plan.apply) a();
        const issue = site.createIssue(
          {
            projectId: project!.id,
            issueTypeId: type!.id,
            summary: draft.summary!,
            description: draft.description ?? null,
            priorityId: draft.priorityId ?? site.priorities.find((p) => p.isDefault)?.id,
            assigneeId: draft.assigneeId,
            reporterId: req.accountId!,
            labels: draft.labels ?? [],
            parentId,
            extra: draft.extra,
          },
          req.accountId!,
        );
        return json(201, { id: issue.id, key: issue.key, self: `${site.apiBase}/issue/${issue.id}` });
      }),
    },
    {
      method: "GET",
      path: `${JIRA}/issue/{issueIdOrKey}`,
      handler: withIssue(state, (site, issue, req) => json(200, issueBean(site, issue, { fields: qList(req, "fields"), expand: qList(req, "expand") }))),
    },
    {
      method: "PUT",
      path: `${JIRA}/issue/{issueIdOrKey}`,
      handler: withIssue(state, (site, issue, req) => {
        const body = (req.body ?? {}) as Body;
        const fields = { ...((body.fields ?? {}) as Body) };
        const errors: Record<string, string> = {};
        let typeChange: ChangeItem | undefined;
        if ("issuetype" in fields) {
          const project = site.projects.get(issue.projectId)!;
          const ref = (fields.issuetype ?? {}) as Body;
          const t = project.issueTypeIds.map((id) => site.issueTypes.get(id)!).find((x) => x.id === String(ref.id ?? "") || x.name === ref.name);
          if (!t) errors.issuetype = "The issue type selected is invalid.";
          else if (site.workflowFor(project, t.id) !== site.workflowFor(project, issue.issueTypeId))
            errors.issuetype = "The issue type selected uses a different workflow; move the issue instead.";
          else if (t.id !== issue.issueTypeId) {
            const old = site.issueTypes.get(issue.issueTypeId)!;
            typeChange = { field: "issuetype", fieldtype: "jira", fieldId: "issuetype", from: old.id, fromString: old.name, to: t.id, toString: t.name };
          }
          delete fields.issuetype;
        }
        const plan = planChanges(site, issue, fields, (body.update ?? {}) as Body);
        Object.assign(errors, plan.errors);
        if (Object.keys(errors).length) return jiraError(400, [], errors);
        const items = plan.apply.map((a) => a()).filter((x): x is ChangeItem => Boolean(x));
        if (typeChange) {
          issue.issueTypeId = typeChange.to!;
          items.push(typeChange);
        }
        site.change(issue, items, req.accountId!);
        if (q(req, "returnIssue") === "true") return json(200, issueBean(site, issue));
        return json(204);
      }),
    },
    {
      method: "DELETE",
      path: `${JIRA}/issue/{issueIdOrKey}`,
      handler: withIssue(state, (site, issue, req) => {
        const subs = site.subtasks(issue);
        if (subs.length && q(req, "deleteSubtasks") !== "true") {
          return jiraError(400, [
            `The issue ${issue.key} has subtasks (${subs.map((s) => s.key).join(", ")}). Set deleteSubtasks to true to delete them with it.`,
          ]);
        }
        site.deleteIssue(issue, req.accountId!);
        return json(204);
      }),
    },
  ];
}
