/** Routes of the fake Jira Service Management REST API (`/ex/jira/{cloudId}/rest/servicedeskapi/...`). */
import { json, q, qList, type FakeModule, type FakeRequest, type FakeRoute } from "../route-kit";
import { dateDto, type JsmApproval, type JsmRequestType, type JsmState } from "./state";

export const JSM_PREFIX = "/ex/jira/{cloudId}/rest/servicedeskapi";

export const jsmError = (status: number, errorMessage: string) =>
  json(status, { errorMessage, i18nErrorMessage: { i18nKey: `sd.error.${status}`, parameters: [] } });

function page<T>(req: FakeRequest, all: T[]) {
  const start = Number(q(req, "start") ?? 0);
  const limit = Math.min(Number(q(req, "limit") ?? 50), 100);
  const values = all.slice(start, start + limit);
  return json(200, { size: values.length, start, limit, isLastPage: start + limit >= all.length, values, _links: { base: "", context: "" }, _expands: [] });
}

function requestTypeDto(rt: JsmRequestType, expand: string[]) {
  return {
    id: rt.id,
    name: rt.name,
    description: rt.description,
    helpText: "",
    issueTypeId: rt.issueTypeId,
    serviceDeskId: rt.serviceDeskId,
    portalId: rt.serviceDeskId,
    groupIds: [],
    restrictionStatus: "OPEN",
    ...(expand.includes("practice") && rt.practice ? { practice: rt.practice } : {}),
    _expands: ["field", "practice"],
  };
}

function approvalDto(a: JsmApproval, caller: string | undefined) {
  return {
    id: a.id,
    name: a.name,
    finalDecision: a.finalDecision,
    canAnswerApproval: a.finalDecision === "pending" && a.approvers.some((x) => x.approver.accountId === caller),
    approvers: a.approvers,
    createdDate: dateDto(a.createdDate),
    ...(a.completedDate ? { completedDate: dateDto(a.completedDate) } : {}),
    _links: { self: "" },
  };
}

export function jsmRoutes(state: JsmState): FakeRoute[] {
  const P = JSM_PREFIX;
  const caller = (req: FakeRequest) => req.accountId ?? state.defaultAccountId;
  const notRequest = (key: string) => jsmError(404, `The issue ${key} is not a customer request of a service desk, or you cannot see it.`);
  const withRequest =
    (fn: (r: NonNullable<ReturnType<JsmState["findRequest"]>>, req: FakeRequest) => ReturnType<FakeRoute["handler"]>) => (req: FakeRequest) => {
      const r = state.findRequest(req.params.issueIdOrKey!, req.params.cloudId);
      return r ? fn(r, req) : notRequest(req.params.issueIdOrKey!);
    };
  return [
    {
      method: "GET",
      path: `${P}/servicedesk`,
      handler: (req) =>
        page(
          req,
          state.serviceDesks.map((d) => ({ ...d, projectTypeKey: "service_desk", _links: { self: "" } })),
        ),
    },
    {
      method: "GET",
      path: `${P}/servicedesk/{serviceDeskId}/requesttype`,
      handler: (req) => {
        const desk = state.findDesk(req.params.serviceDeskId!);
        if (!desk) return jsmError(404, `Service desk ${req.params.serviceDeskId} does not exist`);
        const search = (q(req, "searchQuery") ?? "").toLowerCase();
        const types = state.requestTypes.filter((t) => t.serviceDeskId === desk.id && t.name.toLowerCase().includes(search));
        return page(
          req,
          types.map((t) => requestTypeDto(t, qList(req, "expand"))),
        );
      },
    },
    {
      method: "GET",
      path: `${P}/servicedesk/{serviceDeskId}/requesttype/{requestTypeId}`,
      handler: (req) => {
        const desk = state.findDesk(req.params.serviceDeskId!);
        const rt = state.requestTypes.find((t) => t.id === req.params.requestTypeId && t.serviceDeskId === desk?.id);
        return rt ? json(200, requestTypeDto(rt, qList(req, "expand"))) : jsmError(404, `Request type ${req.params.requestTypeId} does not exist`);
      },
    },
    {
      method: "GET",
      path: `${P}/servicedesk/{serviceDeskId}/requesttype/{requestTypeId}/field`,
      handler: (req) => {
        const desk = state.findDesk(req.params.serviceDeskId!);
        const rt = state.requestTypes.find((t) => t.id === req.params.requestTypeId && t.serviceDeskId === desk?.id);
        if (!rt) return jsmError(404, `Request type ${req.params.requestTypeId} does not exist`);
        return json(200, {
          canRaiseOnBehalfOf: true,
          canAddRequestParticipants: true,
          requestTypeFields: rt.fields.map((f) => ({ visible: true, validValues: [], jiraSchema: { type: "string", system: f.fieldId }, ...f })),
        });
      },
    },
    {
      method: "GET",
      path: `${P}/request/{issueIdOrKey}`,
      handler: withRequest((r) =>
        json(200, {
          issueId: r.issueId,
          issueKey: r.issueKey,
          summary: r.summary,
          requestTypeId: r.requestTypeId,
          serviceDeskId: r.serviceDeskId,
          createdDate: dateDto(r.created),
          reporter: r.reporter,
          requestFieldValues: [{ fieldId: "summary", label: "Summary", value: r.summary }],
          _links: { jiraRest: `/rest/api/3/issue/${r.issueId}`, web: "", agent: "", self: "" },
        }),
      ),
    },
    {
      method: "POST",
      path: `${P}/request`,
      handler: (req) => {
        const b = (req.body ?? {}) as {
          serviceDeskId?: string;
          requestTypeId?: string;
          requestFieldValues?: Record<string, unknown>;
          raiseOnBehalfOf?: string;
        };
        const desk = state.findDesk(String(b.serviceDeskId ?? ""));
        if (!desk) return jsmError(400, `Service desk ${b.serviceDeskId} does not exist.`);
        const rt = state.requestTypes.find((t) => t.id === String(b.requestTypeId) && t.serviceDeskId === desk.id);
        if (!rt) return jsmError(400, `Request type ${b.requestTypeId} does not exist on service desk ${desk.id}.`);
        const values = b.requestFieldValues ?? {};
        const missing = rt.fields.filter((f) => f.required && (values[f.fieldId] === undefined || values[f.fieldId] === ""));
        if (missing.length) return jsmError(400, `Missing required fields: ${missing.map((f) => f.name).join(", ")}.`);
        if (!state.issueCreator) return jsmError(500, "Customer requests cannot be created without the Jira module.");
        const reporterId = b.raiseOnBehalfOf ?? caller(req) ?? "unknown";
        const made = state.issueCreator(req.params.cloudId!, {
          projectId: desk.projectId,
          issueTypeId: rt.issueTypeId,
          summary: String(values.summary ?? ""),
          description: values.description ?? null,
          reporterId,
        });
        const r = state.addRequest({
          issueId: made.issueId,
          issueKey: made.issueKey,
          serviceDeskId: desk.id,
          requestTypeId: rt.id,
          summary: String(values.summary ?? ""),
          reporter: state.users.get(reporterId) ?? { accountId: reporterId, displayName: reporterId },
        });
        return json(201, {
          issueId: r.issueId,
          issueKey: r.issueKey,
          requestTypeId: r.requestTypeId,
          serviceDeskId: r.serviceDeskId,
          createdDate: dateDto(r.created),
          reporter: r.reporter,
          requestFieldValues: Object.entries(values).map(([fieldId, value]) => ({
            fieldId,
            label: rt.fields.find((f) => f.fieldId === fieldId)?.name ?? fieldId,
            value,
          })),
          currentStatus: { status: "Waiting for support", statusCategory: "NEW", statusDate: dateDto(r.created) },
          _links: { jiraRest: `/rest/api/3/issue/${r.issueId}`, web: "", agent: "", self: "" },
        });
      },
    },
    {
      method: "GET",
      path: `${P}/request/{issueIdOrKey}/approval`,
      handler: withRequest((r, req) =>
        page(
          req,
          r.approvals.map((a) => approvalDto(a, caller(req))),
        ),
      ),
    },
    {
      method: "GET",
      path: `${P}/request/{issueIdOrKey}/approval/{approvalId}`,
      handler: withRequest((r, req) => {
        const a = r.approvals.find((x) => x.id === req.params.approvalId);
        return a ? json(200, approvalDto(a, caller(req))) : jsmError(404, `Approval ${req.params.approvalId} does not exist`);
      }),
    },
    {
      method: "POST",
      path: `${P}/request/{issueIdOrKey}/approval/{approvalId}`,
      handler: withRequest((r, req) => {
        const a = r.approvals.find((x) => x.id === req.params.approvalId);
        if (!a) return jsmError(404, `Approval ${req.params.approvalId} does not exist`);
        const decision = String((req.body as { decision?: string })?.decision ?? "");
        if (decision !== "approve" && decision !== "decline") return jsmError(400, "The decision must be 'approve' or 'decline'.");
        const who = caller(req);
        const slot = a.approvers.find((x) => x.approver.accountId === who);
        if (!slot) return jsmError(403, "You are not an approver of this approval.");
        if (a.finalDecision !== "pending" || slot.approverDecision !== "pending") return jsmError(409, "This approval has already been decided.");
        slot.approverDecision = decision === "approve" ? "approved" : "declined";
        a.finalDecision = slot.approverDecision;
        a.completedDate = state.now().toISOString();
        return json(200, approvalDto(a, who));
      }),
    },
    {
      method: "GET",
      path: `${P}/request/{issueIdOrKey}/comment`,
      handler: withRequest((r, req) =>
        page(
          req,
          r.comments.map((c) => ({ ...c, created: dateDto(c.created) })),
        ),
      ),
    },
    {
      method: "POST",
      path: `${P}/request/{issueIdOrKey}/comment`,
      handler: withRequest((r, req) => {
        const b = (req.body ?? {}) as { body?: string; public?: boolean };
        if (typeof b.public !== "boolean") return jsmError(400, "The 'public' field is required.");
        if (!b.body) return jsmError(400, "The comment body is required.");
        const who = caller(req) ?? "unknown";
        const c = {
          id: state.nextId(),
          body: b.body,
          public: b.public,
          author: state.users.get(who) ?? { accountId: who, displayName: who },
          created: state.now().toISOString(),
        };
        r.comments.push(c);
        return json(201, { ...c, created: dateDto(c.created), _links: { self: "" } });
      }),
    },
  ];
}

export function jsmModule(state: JsmState): FakeModule {
  return { name: "jsm", routes: jsmRoutes(state), spec: { file: "jsm.v3.json", prefix: "/ex/jira/{cloudId}" } };
}
