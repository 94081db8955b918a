import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ConnectionHandle, IncomingDelivery, TriggerSetupContext } from "../../core/define";
import { DeliveryUnauthorizedError } from "../../core/errors";
import { createHttpClient } from "../../core/http";
import { createTestLogger } from "../../core/testing";
import { createIncident } from "../components/create-incident";
import { incidentRequestTypeRef, serviceDesk } from "../resources-jsm";
import { SHARED_KEY } from "../shared-webhook";
import { JSM_DEMO } from "../testing/fake-atlassian/jsm/wiring";
import { DEMO } from "../testing/fake-atlassian/seed";
import { contextFor, memoryRegistrations, startJsmOpsFake, startReceiver, type JsmOpsFake } from "../testing/jsm-ops-harness";
import { onIncident, onIncidentConfig } from "./on-incident";

let h: JsmOpsFake;
let rx: Awaited<ReturnType<typeof startReceiver>>;
const R = JSM_DEMO.requestTypes;
const T = JSM_DEMO.issueTypes;
beforeAll(async () => {
  h = await startJsmOpsFake();
  rx = await startReceiver();
});
afterAll(async () => {
  await h?.close();
  await rx?.close();
});
beforeEach(() => {
  rx.deliveries.length = 0;
});

type Cfg = ReturnType<typeof onIncidentConfig.parse>;

function setupCtx(config: unknown, connection: ConnectionHandle = h.connection()): TriggerSetupContext<Cfg> {
  return {
    config: onIncidentConfig.parse(config),
    connection,
    http: createHttpClient(),
    log: createTestLogger(),
    intake: { id: "int_node", url: `${rx.url}/hooks/node`, token: "node" },
    sharedIntake: { id: "int_shared", url: `${rx.url}/hooks/shared-token`, token: "shared-token" },
    registrations: memoryRegistrations("n_incident"),
    automationId: "aut_1",
    nodeId: "n_incident",
  };
}

const matchCtx = (s: TriggerSetupContext<Cfg>) => ({ config: s.config, connection: s.connection, intake: s.sharedIntake!, now: () => new Date() });

async function matched(s: TriggerSetupContext<Cfg>) {
  await h.atlassian.webhooks.settled();
  const out = [];
  for (const d of rx.deliveries as IncomingDelivery[]) {
    await onIncident.verify!(d, matchCtx(s));
    out.push(...(await onIncident.match(d, matchCtx(s))));
  }
  return out;
}

const jira = () => h.atlassian.state.site(DEMO.cloudId)!;
const newIssue = (issueTypeId: string, summary: string, projectId: string = JSM_DEMO.projectId) =>
  jira().createIssue({ projectId, issueTypeId, summary, description: null, reporterId: DEMO.users.mia, labels: [] }, DEMO.users.mia);

describe("tracker.onIncident", () => {
  it("pickers give desk keys and incident request types carrying their issue type", async () => {
    const args = { connection: h.connection(), http: createHttpClient(), config: { serviceDesk: "SD" } };
    expect((await serviceDesk(args)).options.map((o) => o.value)).toEqual(["SD"]);
    expect((await incidentRequestTypeRef(args)).options).toEqual([
      expect.objectContaining({ value: `${R.incident}:${T.incident}`, label: "Report a system problem" }),
      expect.objectContaining({ value: `${R.majorIncident}:${T.incident}`, label: "Major incident" }),
    ]);
  });

  it("registers the shared Jira webhook for the desk's project and emits created/updated/deleted with user and changelog", async () => {
    const s = setupCtx({ serviceDesk: "SD", requestTypes: [`${R.incident}:${T.incident}`], events: ["created", "updated", "deleted"] });
    const { registration } = (await onIncident.setup!(s))!;
    const hook = [...jira().webhooks.values()].find((w) => String(registration!.upstreamId).split(",").includes(String(w.id)))!;
    expect(hook.url).toBe(s.sharedIntake!.url);
    expect(hook.jqlFilter).toBe('project IN ("SD")');
    expect(new Set(hook.events)).toEqual(new Set(["jira:issue_created", "jira:issue_updated", "jira:issue_deleted"]));

    const created = await createIncident.run(
      contextFor(createIncident, h, { serviceDesk: JSM_DEMO.serviceDeskId, requestType: R.incident, summary: "DB down" }),
    );
    const key = (created as { data: { key: string } }).data.key;
    const issue = jira().issue(key)!;
    jira().change(
      issue,
      [{ field: "summary", fieldtype: "jira", fieldId: "summary", from: null, fromString: "DB down", to: null, toString: "DB down (eu)" }],
      DEMO.users.ravi,
    );
    jira().deleteIssue(issue, DEMO.users.mia);

    const events = await matched(s);
    expect(events.map((e) => e.data.action)).toEqual(["created", "updated", "deleted"]);
    expect(events[0]!.data).toMatchObject({
      issue: { key, fields: { summary: "DB down", project: { key: "SD" }, issuetype: { id: T.incident } } },
      user: { accountId: DEMO.users.mia },
    });
    expect(events[0]!.data.changelog).toBeUndefined();
    expect(events[1]!.data).toMatchObject({
      user: { accountId: DEMO.users.ravi },
      changelog: { items: [expect.objectContaining({ field: "summary", toString: "DB down (eu)" })] },
    });
    expect(new Set(events.map((e) => e.dedupeKey)).size).toBe(3);

    await onIncident.teardown!(s);
    expect(await s.registrations.get(SHARED_KEY)).toBeUndefined();
    expect([...jira().webhooks.values()].filter((w) => w.url === s.sharedIntake!.url)).toHaveLength(0);
  });

  it("ignores other request types' issue types, other projects and unselected events", async () => {
    const s = setupCtx({ serviceDesk: "SD", requestTypes: [`${R.incident}:${T.incident}`], events: ["created"] });
    await onIncident.setup!(s);
    newIssue(T.serviceRequest, "printer jam"); // same desk, service request type
    newIssue(T.incident, "major one"); // incident: matches
    const events = await matched(s);
    expect(events.map((e) => e.data.issue.fields.summary)).toEqual(["major one"]);
    // An OPS incident (another project) never matches even if delivered.
    const ops = rx.deliveries[0]!;
    const body = ops.body as { issue: { fields: Record<string, unknown> } };
    const foreign = { ...ops, body: { ...body, issue: { ...body.issue, fields: { ...body.issue.fields, project: { id: DEMO.projects.ops, key: "OPS" } } } } };
    expect(await onIncident.match(foreign, matchCtx(s))).toEqual([]);
    await onIncident.teardown!(s);
  });

  it("plain request type ids are resolved at setup and remembered in the connection state", async () => {
    const state: Record<string, unknown> = { cloudId: DEMO.cloudId };
    const conn = { ...h.connection(), state, saveState: async (patch: Record<string, unknown>) => void Object.assign(state, patch) };
    const s = setupCtx({ serviceDesk: "SD", requestTypes: [R.majorIncident], events: ["created"] }, conn);
    await onIncident.setup!(s);
    expect(state.jsmRequestTypeIssueTypes).toEqual({ [`SD/${R.majorIncident}`]: T.incident });
    newIssue(T.incident, "resolved via state");
    expect((await matched(s)).map((e) => e.data.issue.fields.summary)).toEqual(["resolved via state"]);
    await onIncident.teardown!(s);
  });

  it("setup refuses request types that are not incident management or do not exist", async () => {
    await expect(onIncident.setup!(setupCtx({ serviceDesk: "SD", requestTypes: [`${R.getHelp}:${T.serviceRequest}`] }))).rejects.toThrow(
      /not incident management/,
    );
    await expect(onIncident.setup!(setupCtx({ serviceDesk: "SD", requestTypes: ["999"] }))).rejects.toThrow(/does not exist/);
  });

  it("rejects deliveries without Atlassian's JWT", async () => {
    const s = setupCtx({ serviceDesk: "SD", requestTypes: [`${R.incident}:${T.incident}`] });
    const d = { method: "POST", headers: {}, query: {}, rawBody: Buffer.from("{}"), body: {} };
    expect(() => onIncident.verify!(d, matchCtx(s))).toThrow(DeliveryUnauthorizedError);
  });
});
