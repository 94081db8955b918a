/**
 * tracker.getWorkflow (spec rule 3): issue → project + issue type → workflow scheme → workflow.
 * Team-managed projects have no scheme: `workflowName`/`statuses` stay empty while the current status and
 * the transitions available to the connection's user are still filled.
 */
import { z } from "zod";
import { defineComponent } from "../../core/define";
import { IntegrationHttpError } from "../../core/errors";
import { jiraClient, type JiraClient } from "../jira-client";
import { issueKeyField, projectField } from "../schemas";

export const getWorkflowConfig = z.object({ project: projectField(), issueKey: issueKeyField() });

const category = z.enum(["TODO", "IN_PROGRESS", "DONE"]);
export const workflowOutput = z.object({
  issueKey: z.string(),
  issueType: z.string(),
  projectKey: z.string(),
  workflowName: z.string(),
  workflowSchemeName: z.string(),
  workflowSchemeId: z.string(),
  currentStatus: z.string(),
  currentStatusId: z.string(),
  statuses: z.array(z.object({ id: z.string(), name: z.string(), category, isCurrent: z.boolean().optional() })),
  availableTransitions: z.array(z.object({ id: z.string(), name: z.string(), toStatus: z.string(), toStatusId: z.string() })),
});
type WorkflowOut = z.output<typeof workflowOutput>;

const CATEGORY_OF_KEY: Record<string, WorkflowOut["statuses"][number]["category"]> = { new: "TODO", indeterminate: "IN_PROGRESS", done: "DONE" };

/** The scheme's workflow for the issue type, or undefined for team-managed / unreadable schemes. */
async function schemeWorkflow(jira: JiraClient, projectId: string, issueTypeId: string, log: { warn(m: string, f?: Record<string, unknown>): void }) {
  try {
    const scheme = await jira.workflowSchemeOf(projectId);
    if (!scheme) return undefined;
    const workflowName = scheme.issueTypeMappings?.[issueTypeId] ?? scheme.defaultWorkflow ?? "";
    return { schemeName: scheme.name ?? "", schemeId: scheme.id === undefined ? "" : String(scheme.id), workflowName };
  } catch (e) {
    if (e instanceof IntegrationHttpError && e.status === 403) {
      log.warn("workflow scheme not readable (needs Administer Jira); workflow statuses left empty", { projectId });
      return undefined;
    }
    throw e;
  }
}

export const getWorkflow = defineComponent({
  key: "tracker.getWorkflow",
  title: "Get Workflow",
  description: "Describes an issue's workflow: statuses, current status and the transitions available now.",
  docs: "Resolves issue → project and issue type → workflow scheme → workflow. For team-managed projects (no workflow scheme) `workflowName` and `statuses` are empty while `currentStatus` and `availableTransitions` are filled. `availableTransitions` reflects workflow conditions and the connection user's permissions. Reading workflow schemes needs the *Administer Jira* permission; without it the workflow part stays empty.",
  config: getWorkflowConfig,
  outputType: "tracker.workflow",
  output: workflowOutput,
  example: {
    issueKey: "OPS-24",
    issueType: "Incident",
    projectKey: "OPS",
    workflowName: "Ops Workflow",
    workflowSchemeName: "OPS Workflow Scheme",
    workflowSchemeId: "10100",
    currentStatus: "To Do",
    currentStatusId: "10000",
    statuses: [
      { id: "10000", name: "To Do", category: "TODO", isCurrent: true },
      { id: "10001", name: "In Progress", category: "IN_PROGRESS" },
      { id: "10003", name: "Done", category: "DONE" },
    ],
    availableTransitions: [{ id: "11", name: "Start Progress", toStatus: "In Progress", toStatusId: "10001" }],
  },
  async run(ctx) {
    const jira = jiraClient(ctx.connection!, ctx.http);
    const issue = await jira.getIssue(ctx.config.issueKey, { fields: "status,issuetype,project" });
    const f = issue.fields;
    const [transitions, project] = await Promise.all([jira.transitions(issue.key), jira.project(f.project!.key)]);
    const out: WorkflowOut = {
      issueKey: issue.key,
      issueType: f.issuetype?.name ?? "",
      projectKey: f.project?.key ?? "",
      workflowName: "",
      workflowSchemeName: "",
      workflowSchemeId: "",
      currentStatus: f.status?.name ?? "",
      currentStatusId: f.status?.id ?? "",
      statuses: [],
      availableTransitions: transitions.map((t) => ({ id: t.id, name: t.name, toStatus: t.to.name, toStatusId: t.to.id })),
    };
    const teamManaged = project.simplified === true || project.style === "next-gen";
    const wf = teamManaged ? undefined : await schemeWorkflow(jira, project.id, f.issuetype!.id, ctx.log);
    if (wf) {
      out.workflowSchemeName = wf.schemeName;
      out.workflowSchemeId = wf.schemeId;
      out.workflowName = wf.workflowName;
      const read = wf.workflowName ? await jira.readWorkflows([wf.workflowName]) : undefined;
      const workflow = read?.workflows.find((w) => w.name === wf.workflowName);
      const byRef = new Map((read?.statuses ?? []).map((s) => [s.statusReference, s]));
      out.statuses = (workflow?.statuses ?? []).flatMap((ref) => {
        const s = byRef.get(ref.statusReference);
        if (!s) return [];
        const cat = category.safeParse(s.statusCategory).success
          ? (s.statusCategory as WorkflowOut["statuses"][number]["category"])
          : (CATEGORY_OF_KEY[s.statusCategory] ?? "TODO");
        return [{ id: s.id, name: s.name, category: cat, ...(s.id === out.currentStatusId ? { isCurrent: true } : {}) }];
      });
    }
    return ctx.emit(out);
  },
});
