/**
 * The tracker integration (Jira, Jira Service Management, JSM Operations) over one Atlassian OAuth connection.
 * Part 1: Jira issues, workflows, issue / comment triggers. Part 2 adds service desk and ops units below.
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
import { partTwoComponents, partTwoResources, partTwoTriggers } from "./part-two";

export const tracker = defineIntegration({
  key: "tracker",
  title: "Jira & Jira Service Management",
  description: "Issues, workflows, comments, service-desk incidents and approvals, ops alerts and heartbeats.",
  icon: "ticket",
  connection: trackerConnection,
  components: [createIssue, getIssue, updateIssue, deleteIssue, transitionIssue, getWorkflow, ...partTwoComponents],
  triggers: [onIssue, onIssueComment, ...partTwoTriggers],
  resources: { ...jiraResources, ...partTwoResources },
});
