/**
 * The tracker integration (Jira, Jira Service Management, JSM Operations) over one Atlassian OAuth connection.
 * Jira issues, workflows, issue / comment triggers here; service desk and ops units in jsm-ops.ts.
 */
import { defineIntegration } from "../core/define";
import { createIssue } from "./components/create-issue";
import { deleteIssue } from "./components/delete-issue";
import { getIssue } from "./components/get-issue";
import { getWorkflow } from "./components/get-workflow";
import { transitionIssue } from "./components/transition-issue";
import { updateIssue } from "./components/update-issue";
import { trackerConnection } from "./connection";
import { jiraResources } from "./resources";
import { onIssue } from "./triggers/on-issue";
import { onIssueComment } from "./triggers/on-issue-comment";
import { jsmOpsComponents, jsmOpsResources, jsmOpsTriggers } from "./jsm-ops";

export const tracker = defineIntegration({
  key: "tracker",
  title: "Jira & Jira Service Management",
  description: "Issues, workflows, comments, service-desk incidents and approvals, ops alerts and heartbeats.",
  icon: "ticket",
  connection: trackerConnection,
  components: [createIssue, getIssue, updateIssue, deleteIssue, transitionIssue, getWorkflow, ...jsmOpsComponents],
  triggers: [onIssue, onIssueComment, ...jsmOpsTriggers],
  resources: { ...jiraResources, ...jsmOpsResources },
});
