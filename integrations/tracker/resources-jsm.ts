/** Dynamic dropdowns of the service desk: desks, request types, approvals of a request, incident issues. */
import type { ResourceLoader } from "../core/define";
import { isIncidentPractice, jsmClient, type RequestType } from "./jsm-client";

export const ISSUE_PICKER_LIMIT = 500;
export const ISSUE_PICKER_RECENT_DAYS = 90;

const str = (v: unknown) => (typeof v === "string" ? v.trim() : "");
const matches = (search: string | undefined, ...texts: string[]) => !search || texts.some((t) => t.toLowerCase().includes(search.toLowerCase()));

/**
 * The one service-desk picker (Create Incident and On Incident): the desk's name is shown, its project key is
 * stored. The key is what the trigger matches webhook events by, and the service-desk API accepts it wherever
 * it takes a desk id (`{serviceDeskId}` "can alternatively be a project identifier", UPSTREAM.md §E.1).
 */
export const serviceDesk: ResourceLoader = async ({ connection, http, search }) => {
  const desks = await jsmClient(connection, http).listServiceDesks();
  return {
    options: desks
      .filter((d) => matches(search, d.projectName, d.projectKey))
      .map((d) => ({ value: d.projectKey, label: `${d.projectName} (${d.projectKey})`, description: `Service desk ${d.id}` })),
  };
};

/**
 * Incident-management request types only, when the site reports the practice (work category) of its
 * request types; when none is reported every type is listed (the user picks the incident one).
 */
export function incidentTypes(types: RequestType[]): RequestType[] {
  const reported = types.some((t) => typeof t.practice === "string" && t.practice !== "");
  return reported ? types.filter((t) => isIncidentPractice(t.practice)) : types;
}

export const incidentRequestType: ResourceLoader = async ({ connection, http, config, search }) => {
  const desk = str(config.serviceDesk);
  if (!desk || desk.includes("{{")) return { options: [] };
  const types = incidentTypes(await jsmClient(connection, http).listRequestTypes(desk));
  return { options: types.filter((t) => matches(search, t.name)).map((t) => ({ value: t.id, label: t.name, description: t.practice })) };
};

/** Incident request types as `<requestTypeId>:<issueTypeId>` so the trigger can match without a lookup. */
export const incidentRequestTypeRef: ResourceLoader = async ({ connection, http, config, search }) => {
  const desk = str(config.serviceDesk);
  if (!desk || desk.includes("{{")) return { options: [] };
  const types = incidentTypes(await jsmClient(connection, http).listRequestTypes(desk));
  return { options: types.filter((t) => matches(search, t.name)).map((t) => ({ value: `${t.id}:${t.issueTypeId}`, label: t.name, description: t.practice })) };
};

export const approval: ResourceLoader = async ({ connection, http, config }) => {
  const key = str(config.issueKey);
  if (!key || key.includes("{{")) return { options: [] };
  const list = await jsmClient(connection, http)
    .listApprovals(key)
    .catch(() => []);
  return { options: list.map((a) => ({ value: a.id, label: a.name, description: a.finalDecision })) };
};

/** JQL of the incident issue picker: the project's issues, or ~90 days across projects; newest updates first. */
export function incidentIssueJql(project: string): string {
  return project ? `project = "${project.replace(/"/g, '\\"')}" ORDER BY updated DESC` : `updated >= -${ISSUE_PICKER_RECENT_DAYS}d ORDER BY updated DESC`;
}

export const incidentIssue: ResourceLoader = async ({ connection, http, config, search }) => {
  const issues = await jsmClient(connection, http).searchIssues(incidentIssueJql(str(config.project)), ISSUE_PICKER_LIMIT);
  return {
    options: issues
      .filter((i) => matches(search, i.key, String(i.fields.summary ?? "")))
      .map((i) => ({ value: i.key, label: `${i.key} ${String(i.fields.summary ?? "")}`.trim() })),
  };
};

export const jsmResources = {
  serviceDesks: serviceDesk,
  incidentRequestTypes: incidentRequestType,
  incidentRequestTypeRefs: incidentRequestTypeRef,
  approvals: approval,
  incidentIssues: incidentIssue,
};
