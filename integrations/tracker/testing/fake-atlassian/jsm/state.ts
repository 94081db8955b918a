/**
 * State of the Jira Service Management module of the fake Atlassian: service desks, request types
 * (with their practice / work category), customer requests with approvals and comments.
 * Customer requests are Jira issues: `issueId`/`issueKey` refer to issues of the Jira module.
 */
export interface JsmUser {
  accountId: string;
  displayName: string;
  emailAddress?: string;
}

export interface JsmServiceDesk {
  id: string;
  projectId: string;
  projectKey: string;
  projectName: string;
}

export interface JsmRequestTypeField {
  fieldId: string;
  name: string;
  required: boolean;
  validValues?: Array<{ value: string; label: string }>;
  jiraSchema?: { type: string; system?: string; custom?: string; customId?: number };
}

export interface JsmRequestType {
  id: string;
  serviceDeskId: string;
  name: string;
  description: string;
  issueTypeId: string;
  /** Work category, e.g. "incident-management", "service-request"; omitted from responses unless expanded. */
  practice?: string;
  fields: JsmRequestTypeField[];
}

export interface JsmApproval {
  id: string;
  name: string;
  finalDecision: "approved" | "declined" | "pending";
  approvers: Array<{ approver: JsmUser; approverDecision: "approved" | "declined" | "pending" }>;
  createdDate: string;
  completedDate?: string;
}

export interface JsmComment {
  id: string;
  body: string;
  public: boolean;
  author: JsmUser;
  created: string;
}

export interface JsmRequest {
  issueId: string;
  issueKey: string;
  serviceDeskId: string;
  requestTypeId: string;
  summary: string;
  reporter: JsmUser;
  created: string;
  approvals: JsmApproval[];
  comments: JsmComment[];
}

export function dateDto(iso: string) {
  const d = new Date(iso);
  return { epochMillis: d.getTime(), friendly: d.toUTCString(), iso8601: d.toISOString().replace("Z", "+0000"), jira: d.toISOString().replace("Z", "+0000") };
}

export class JsmState {
  serviceDesks: JsmServiceDesk[] = [];
  requestTypes: JsmRequestType[] = [];
  requests = new Map<string, JsmRequest>();
  users = new Map<string, JsmUser>();
  /** Caller when the server core does not tell who the token belongs to. */
  defaultAccountId?: string;
  private seq = 1000;
  constructor(readonly now: () => Date = () => new Date()) {}

  nextId() {
    this.seq += 1;
    return String(this.seq);
  }

  addUser(u: JsmUser) {
    this.users.set(u.accountId, u);
    return u;
  }

  addServiceDesk(d: Omit<JsmServiceDesk, "id"> & { id?: string }) {
    const desk = { id: d.id ?? this.nextId(), ...d };
    this.serviceDesks.push(desk as JsmServiceDesk);
    return desk as JsmServiceDesk;
  }

  addRequestType(t: Omit<JsmRequestType, "id" | "fields" | "description"> & { id?: string; fields?: JsmRequestTypeField[]; description?: string }) {
    const rt: JsmRequestType = {
      description: "",
      fields: [
        { fieldId: "summary", name: "Summary", required: true },
        { fieldId: "description", name: "Description", required: false },
      ],
      ...t,
      id: t.id ?? this.nextId(),
    };
    this.requestTypes.push(rt);
    return rt;
  }

  addRequest(r: Omit<JsmRequest, "approvals" | "comments" | "created"> & { approvals?: JsmApproval[]; created?: string }) {
    const req: JsmRequest = { approvals: [], comments: [], created: this.now().toISOString(), ...r };
    this.requests.set(req.issueKey, req);
    return req;
  }

  addApproval(issueKey: string, name: string, approverIds: string[]) {
    const req = this.requests.get(issueKey);
    if (!req) throw new Error(`No request ${issueKey}`);
    const approval: JsmApproval = {
      id: this.nextId(),
      name,
      finalDecision: "pending",
      approvers: approverIds.map((id) => ({ approver: this.users.get(id) ?? { accountId: id, displayName: id }, approverDecision: "pending" })),
      createdDate: this.now().toISOString(),
    };
    req.approvals.push(approval);
    return approval;
  }

  /**
   * Resolves a Jira issue of the site (set by the server wiring): an issue in a service desk's project
   * whose issue type is a request type's issue type is a customer request of that type.
   */
  issueLookup?: (
    cloudId: string,
    idOrKey: string,
  ) => { issueId: string; issueKey: string; projectId: string; issueTypeId: string; summary: string; reporterId: string } | undefined;

  /** Creates the Jira issue behind a new customer request (set by the server wiring). */
  issueCreator?: (
    cloudId: string,
    input: { projectId: string; issueTypeId: string; summary: string; description: unknown; reporterId: string },
  ) => { issueId: string; issueKey: string };

  findRequest(idOrKey: string, cloudId?: string): JsmRequest | undefined {
    const known = this.requests.get(idOrKey.toUpperCase()) ?? this.requests.get(idOrKey) ?? [...this.requests.values()].find((r) => r.issueId === idOrKey);
    if (known || !cloudId || !this.issueLookup) return known;
    const issue = this.issueLookup(cloudId, idOrKey);
    if (!issue) return undefined;
    const desk = this.serviceDesks.find((d) => d.projectId === issue.projectId);
    const rt = desk && this.requestTypes.find((t) => t.serviceDeskId === desk.id && t.issueTypeId === issue.issueTypeId);
    if (!desk || !rt) return undefined;
    return this.addRequest({
      issueId: issue.issueId,
      issueKey: issue.issueKey,
      serviceDeskId: desk.id,
      requestTypeId: rt.id,
      summary: issue.summary,
      reporter: this.users.get(issue.reporterId) ?? { accountId: issue.reporterId, displayName: issue.reporterId },
    });
  }

  /** `{serviceDeskId}` accepts the desk id, `projectKey:ABC`, `projectId:10012` or a bare project key. */
  findDesk(ref: string): JsmServiceDesk | undefined {
    const [kind, value] = ref.includes(":") ? ref.split(":", 2) : ["", ref];
    return this.serviceDesks.find((d) =>
      kind === "projectKey" ? d.projectKey === value : kind === "projectId" ? d.projectId === value : d.id === value || d.projectKey === value,
    );
  }
}
