/**
 * Wires the JSM and Ops modules into the fake Atlassian: their state lives in `state.extension(...)`,
 * customer requests resolve to the Jira module's issues, and the demo site gets a service desk
 * (project SD with incident and service-request types, impact/urgency/alerts/responders fields) and
 * operations teams. Used by the registration lines in `server.ts`.
 */
import type { FakeAtlassianState } from "../state";
import { OpsState, opsModule } from "../ops";
import { JsmState } from "./state";
import { jsmModule } from "./routes";

export const JSM_DEMO = {
  projectId: "10030",
  projectKey: "SD",
  serviceDeskId: "3",
  issueTypes: { incident: "10004", serviceRequest: "10005", postIncidentReview: "10006" },
  requestTypes: { incident: "31", majorIncident: "32", getHelp: "33", pir: "34" },
  fields: { impact: "customfield_10050", urgency: "customfield_10051", alerts: "customfield_10052", responders: "customfield_10053" },
  teams: { red: "85f14c10-5bd7-4e98-aee5-511ce1f80086", blue: "4513b7ea-3b91-438f-b7e4-e3e54af9147c" },
  schedules: { red: "f8f2a4ec-54b2-4513-865b-8cb3b81c9544", blue: "cd68207b-c55d-4611-ab25-72fd0c439e9f" },
  escalations: { red: "69291859-ed73-4396-8b74-c61a3c810cdf", blue: "aee8a0de-c80f-4515-a232-501c0bc9d715" },
} as const;

export function jsmStateOf(s: FakeAtlassianState): JsmState {
  return s.extension("jsm", () => {
    const jsm = new JsmState(() => s.now());
    jsm.issueLookup = (cloudId, idOrKey) => {
      const issue = s.site(cloudId)?.issue(idOrKey);
      return (
        issue && {
          issueId: issue.id,
          issueKey: issue.key,
          projectId: issue.projectId,
          issueTypeId: issue.issueTypeId,
          summary: issue.summary,
          reporterId: issue.reporterId,
        }
      );
    };
    jsm.issueCreator = (cloudId, input) => {
      const site = s.site(cloudId);
      if (!site) throw new Error(`No site ${cloudId}`);
      const description =
        typeof input.description === "string" && input.description
          ? { type: "doc", version: 1, content: [{ type: "paragraph", content: [{ type: "text", text: input.description }] }] }
          : null;
      const issue = site.createIssue(
        { projectId: input.projectId, issueTypeId: input.issueTypeId, summary: input.summary, description, reporterId: input.reporterId, labels: [] },
        input.reporterId,
      );
      return { issueId: issue.id, issueKey: issue.key };
    };
    for (const u of s.users.values()) jsm.addUser({ accountId: u.accountId, displayName: u.displayName, emailAddress: u.emailAddress });
    seedJsmDemo(s, jsm);
    return jsm;
  });
}

export function opsStateOf(s: FakeAtlassianState): OpsState {
  return s.extension("ops", () => {
    const ops = new OpsState(() => s.now());
    for (const cloudId of s.sites.keys()) {
      const site = ops.site(cloudId);
      for (const [key, name] of [
        ["red", "Red Team"],
        ["blue", "Blue Team"],
      ] as const) {
        site.addTeamWithRouting(name, { teamId: JSM_DEMO.teams[key], scheduleId: JSM_DEMO.schedules[key], escalationId: JSM_DEMO.escalations[key] });
      }
    }
    return ops;
  });
}

/** Adds the service-desk project SD to the first site (the demo site) when it has a workflow to use. */
function seedJsmDemo(s: FakeAtlassianState, jsm: JsmState) {
  const site = [...s.sites.values()][0];
  if (!site || site.projects.has(JSM_DEMO.projectId)) return;
  const workflow = [...site.workflows.keys()][0];
  if (!workflow) return;
  const T = JSM_DEMO.issueTypes;
  if (!site.issueTypes.has(T.incident)) site.issueTypes.set(T.incident, { id: T.incident, name: "Incident", subtask: false, hierarchyLevel: 0 });
  site.issueTypes.set(T.serviceRequest, { id: T.serviceRequest, name: "Service Request", subtask: false, hierarchyLevel: 0 });
  site.issueTypes.set(T.postIncidentReview, { id: T.postIncidentReview, name: "Post-incident review", subtask: false, hierarchyLevel: 0 });
  const lead = [...site.members][0] ?? "";
  site.projects.set(JSM_DEMO.projectId, {
    id: JSM_DEMO.projectId,
    key: JSM_DEMO.projectKey,
    name: "IT Service Desk",
    style: "classic",
    issueTypeIds: Object.values(T),
    scheme: { id: 10130, name: "SD Workflow Scheme", defaultWorkflow: workflow, issueTypeMappings: {} },
    leadAccountId: lead,
  });
  const F = JSM_DEMO.fields;
  site.extraFields.set("duedate", "Due date");
  site.extraFields.set("timetracking", "Time tracking");
  site.extraFields.set(F.impact, "Impact");
  site.extraFields.set(F.urgency, "Urgency");
  site.extraFields.set(F.alerts, "Alerts");
  site.extraFields.set(F.responders, "Responders");
  jsm.addServiceDesk({ id: JSM_DEMO.serviceDeskId, projectId: JSM_DEMO.projectId, projectKey: JSM_DEMO.projectKey, projectName: "IT Service Desk" });
  const levels = (names: string[]) => names.map((n, i) => ({ value: String(10100 + i), label: n }));
  const incidentFields = [
    { fieldId: "summary", name: "Summary", required: true },
    { fieldId: "description", name: "Description", required: false },
    {
      fieldId: F.impact,
      name: "Impact",
      required: false,
      validValues: levels(["Extensive / Widespread", "Significant / Large", "Moderate / Limited", "Minor / Localized"]),
    },
    { fieldId: F.urgency, name: "Urgency", required: false, validValues: levels(["Critical", "High", "Medium", "Low"]) },
    { fieldId: F.alerts, name: "Linked alerts", required: false },
    { fieldId: F.responders, name: "Responders", required: false },
  ];
  const R = JSM_DEMO.requestTypes;
  const desk = JSM_DEMO.serviceDeskId;
  jsm.addRequestType({
    id: R.incident,
    serviceDeskId: desk,
    name: "Report a system problem",
    issueTypeId: T.incident,
    practice: "incident-management",
    fields: incidentFields,
  });
  jsm.addRequestType({
    id: R.majorIncident,
    serviceDeskId: desk,
    name: "Major incident",
    issueTypeId: T.incident,
    practice: "incident-management",
    fields: incidentFields,
  });
  jsm.addRequestType({ id: R.getHelp, serviceDeskId: desk, name: "Get IT help", issueTypeId: T.serviceRequest, practice: "service-request" });
  jsm.addRequestType({ id: R.pir, serviceDeskId: desk, name: "Post-incident review", issueTypeId: T.postIncidentReview, practice: "post-incident-review" });
}

export const jsmRegistration = (s: FakeAtlassianState) => jsmModule(jsmStateOf(s));
export const opsRegistration = (s: FakeAtlassianState) => opsModule(opsStateOf(s));
